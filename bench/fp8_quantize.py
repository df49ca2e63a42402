"""Rate of the FP8 rollout quantizer (payload.sync.fp8.quantize_block) on one GPU, against the
copy rate measured in the same run, on one Qwen3-30B-A3B layer's expert weights as the trainer
holds them (bf16 [E, 2F, D] and [E, D, F]).

    python bench/fp8_quantize.py

Prints GB/s of bf16 read (the torch version eager and torch.compile'd, the Triton kernel), and the seconds 235B parameters would take
on one GPU and spread over a 128-GPU trainer (each rank quantizes its own shard); then the
publish path's own pack of one layer's HF tensors, bf16 against fp8 (`publish_pack`). Writes
$OUT/fp8_quantize.json when OUT is set. Needs a CUDA GPU.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from payload.sync.fp8 import _quantize_block_torch, quantize_block  # noqa: E402


def layer_hf_tensors(layer: int = 0) -> list[tuple[str, torch.Tensor]]:
    """One Qwen3-30B-A3B decoder layer's HF tensors as the publisher receives them: attention
    projections and norms, the router, and each expert's gate/up/down as views of the stacked
    [E, 2F, D] / [E, D, F] parameters (payload/model/checkpoint.py hf_expert_tensors)."""
    d, f, e, q, kv = 2048, 768, 128, 32 * 128, 4 * 128
    p = f"model.layers.{layer}"

    def r(*shape):
        return torch.randn(*shape, device="cuda", dtype=torch.bfloat16) * 0.02

    out = [(f"{p}.self_attn.q_proj.weight", r(q, d)), (f"{p}.self_attn.k_proj.weight", r(kv, d)),
           (f"{p}.self_attn.v_proj.weight", r(kv, d)), (f"{p}.self_attn.o_proj.weight", r(d, q)),
           (f"{p}.self_attn.q_norm.weight", r(128)), (f"{p}.self_attn.k_norm.weight", r(128)),
           (f"{p}.input_layernorm.weight", r(d)), (f"{p}.post_attention_layernorm.weight", r(d)),
           (f"{p}.mlp.gate.weight", r(e, d))]
    gate_up, down = r(e, 2 * f, d), r(e, d, f)
    for i in range(e):
        gate, up = gate_up[i].split(f, dim=0)
        out += [(f"{p}.mlp.experts.{i}.gate_proj.weight", gate), (f"{p}.mlp.experts.{i}.up_proj.weight", up)]
    out += [(f"{p}.mlp.experts.{i}.down_proj.weight", down[i]) for i in range(e)]
    return out


def publish_pack() -> dict:
    """The publish path's own pack (payload/sync/wire.py WireFormat.pack into a reused bucket
    buffer, what WeightPublisher._packed and FanOutPublisher.stage run), bf16 against fp8, on one
    layer (1.2 GB bf16, 393 HF tensors); rates are bf16 bytes read a second."""
    from triton.testing import do_bench

    from payload.sync.wire import WireFormat

    tensors = layer_hf_tensors()
    nbytes = sum(t.numel() * t.element_size() for _, t in tensors)
    out = {"bytes_bf16": nbytes, "tensors": len(tensors)}
    for precision in ("bf16", "fp8"):
        wire = WireFormat(torch.bfloat16, precision)
        buffer = torch.empty(wire.packed_bytes(tensors), dtype=torch.uint8, device="cuda")
        ms = do_bench(lambda: wire.pack(tensors, buffer), return_mode="median")
        out[precision] = {"ms": ms, "bf16_gb_s": nbytes / ms / 1e6, "wire_bytes": buffer.numel(),
                          "s_235b_rank0": 470e9 / (nbytes / ms / 1e6 * 1e9)}
    return out


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
    compiled = torch.compile(_quantize_block_torch)
    for name, fn in (("eager", _quantize_block_torch), ("compiled", compiled), ("triton", quantize_block)):
        ms = do_bench(lambda: [fn(w) for w in weights], return_mode="median")
        rate = nbytes / ms / 1e6  # GB/s of bf16 weights read
        result[name] = {"ms": ms, "bf16_gb_s": rate, "s_235b_one_gpu": 470e9 / (rate * 1e9),
                        "s_235b_128_gpus": 470e9 / 128 / (rate * 1e9)}
    result["publish_pack"] = publish_pack()
    print(json.dumps(result, indent=1))
    out = os.environ.get("OUT")
    if out:
        Path(out, "fp8_quantize.json").write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
