"""Rate of the FP8 rollout quantizer (payload.sync.fp8.quantize_block) on one GPU, against the
copy rate measured in the same run, on one Qwen3-30B-A3B layer's expert weights as the trainer
holds them (bf16 [E, 2F, D] and [E, D, F]).

    python bench/fp8_quantize.py

Prints GB/s of bf16 read, eager and torch.compile'd, and the seconds 235B parameters would take
on one GPU and spread over a 128-GPU trainer (each rank quantizes its own shard). Writes
$OUT/fp8_quantize.json when OUT is set. Needs a CUDA GPU.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from payload.sync.fp8 import quantize_block  # noqa: E402


def main() -> int:
    if not torch.cuda.is_available():
        print("bench/fp8_quantize.py needs a CUDA GPU", file=sys.stderr)
        return 2
    from triton.testing import do_bench

    torch.manual_seed(0)
    weights = [torch.randn(128, 1536, 2048, device="cuda", dtype=torch.bfloat16),
               torch.randn(128, 2048, 768, device="cuda", dtype=torch.bfloat16)]
    nbytes = sum(w.numel() * w.element_size() for w in weights)
    copy_ms = do_bench(lambda: [w.clone() for w in weights], return_mode="median")
    result = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "bytes_bf16": nbytes,
              "copy_gb_s": 2 * nbytes / copy_ms / 1e6}  # read + write
    compiled = torch.compile(quantize_block)
    for name, fn in (("eager", quantize_block), ("compiled", compiled)):
        ms = do_bench(lambda: [fn(w) for w in weights], return_mode="median")
        rate = nbytes / ms / 1e6  # GB/s of bf16 weights read
        result[name] = {"ms": ms, "bf16_gb_s": rate, "s_235b_one_gpu": 470e9 / (rate * 1e9),
                        "s_235b_128_gpus": 470e9 / 128 / (rate * 1e9)}
    print(json.dumps(result, indent=1))
    out = os.environ.get("OUT")
    if out:
        Path(out, "fp8_quantize.json").write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
