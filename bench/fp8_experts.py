"""One MoE layer (SparseMoeBlock, torch's grouped GEMM experts), forward + backward, with the
experts' GEMMs in bf16 against experts_precision="fp8" (payload/model/fp8_experts.py: forward
and input gradient in e4m3 with rowwise scales, weight gradient bf16), on the same weights and
inputs, and against the bf16 matmul peak measured in the same run.

    python bench/fp8_experts.py [--shapes qwen3-30b-a3b,deepseek-v3,qwen3-30b-a3b-ep8,deepseek-v3-ep16]

The two `-ep` shapes are one expert-parallel rank's local experts (16 of them, receiving the
same tokens x top-k rows), where each expert gets 8x / 16x more rows than with every expert on
one GPU and the weights to quantize are 8x / 16x fewer. fp8 is also timed with the scaled GEMM's
use_fast_accum (fp8_experts.FAST_ACCUM, off by default).

Prints per shape: ms and TFLOP/s of the layer step and of the experts alone (rows already
grouped), one forward GEMM alone (torch's grouped GEMM against torch._scaled_grouped_mm on
operands quantized beforehand), the rowwise quantizer's time per tensor the fp8 step quantizes
(Triton kernel; the torch reference on the largest for scale), and how far the fp8 layer's
output and gradients are from the bf16 layer's. Writes $OUT/fp8_experts.json when OUT is set.
Needs an sm90+ GPU. Imports nothing that needs pydantic (bench/moe_layer.py's shapes and timer).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch.nn.functional as F  # noqa: E402

from moe_layer import SHAPES, Shape, bench, matmul_peak, rel, shape_list  # noqa: E402
from payload.model import SparseMoeBlock, fp8_experts  # noqa: E402
from payload.model.fp8_rowwise import quantize_rowwise, quantize_rowwise_torch  # noqa: E402


ALL_SHAPES = SHAPES | {
    "qwen3-30b-a3b-ep8": Shape("qwen3-30b-a3b-ep8", 2048, 768, 16, 8, 16384),
    "deepseek-v3-ep16": Shape("deepseek-v3-ep16", 7168, 2048, 16, 8, 4096),
}


def quantizer_times(shape: Shape, block: SparseMoeBlock, rows: int) -> dict:
    """ms of quantize_rowwise on each tensor one fp8 layer step quantizes, and GB/s of bf16 read
    plus fp8 and scales written."""
    d, f = shape.hidden, shape.expert_intermediate
    experts = block.experts
    tensors = {
        "x [N,D]": torch.randn(rows, d, device="cuda", dtype=torch.bfloat16),
        "h [N,F]": torch.randn(rows, f, device="cuda", dtype=torch.bfloat16),
        "dy_gate_up [N,2F]": torch.randn(rows, 2 * f, device="cuda", dtype=torch.bfloat16),
        "dy_down [N,D]": torch.randn(rows, d, device="cuda", dtype=torch.bfloat16),
        "W_gate_up [E,2F,D]": experts.gate_up_proj.detach(),
        "W_down [E,D,F]": experts.down_proj.detach(),
        "W_gate_up^T (dgrad)": experts.gate_up_proj.detach().transpose(-2, -1),
        "W_down^T (dgrad)": experts.down_proj.detach().transpose(-2, -1),
    }
    out = {}
    for name, t in tensors.items():
        ms = bench(lambda t=t: quantize_rowwise(t), rep_ms=200)
        moved = t.numel() * (2 + 1) + t.numel() // t.shape[-1] * 4
        out[name] = {"ms": ms, "gb_s": moved / (ms * 1e-3) / 1e9}
    out["total_ms"] = sum(v["ms"] for v in out.values())
    x = tensors["x [N,D]"]
    out["torch_reference x [N,D] ms"] = bench(lambda: quantize_rowwise_torch(x), rep_ms=200)
    return out


def forward_gemm(shape: Shape, block: SparseMoeBlock, rows: torch.Tensor, offsets: torch.Tensor) -> dict:
    """The gate/up forward GEMM alone: bf16 grouped GEMM against the FP8 one on operands
    quantized beforehand (what the quantizer costs is quantizer_times)."""
    w = block.experts.gate_up_proj.detach()
    flops = 2.0 * rows.shape[0] * shape.hidden * 2 * shape.expert_intermediate
    bf16_ms = bench(lambda: F.grouped_mm(rows, w.transpose(-2, -1), offs=offsets))
    x_q, x_s = quantize_rowwise(rows)
    w_q, w_s = quantize_rowwise(w)
    out = {"bf16_ms": bf16_ms, "bf16_tflops": flops / (bf16_ms * 1e-3) / 1e12}
    for name, fast in (("fp8", False), ("fp8_fast_accum", True)):
        ms = bench(lambda: torch._scaled_grouped_mm(x_q, w_q.transpose(-2, -1), x_s, w_s, offs=offsets,
                                                    out_dtype=torch.bfloat16, use_fast_accum=fast))
        out |= {f"{name}_ms": ms, f"{name}_tflops": flops / (ms * 1e-3) / 1e12}
    return out


def run_shape(shape: Shape, peak: float) -> dict:
    torch.manual_seed(0)
    block = SparseMoeBlock(shape.hidden, shape.expert_intermediate, shape.experts, shape.top_k, True,
                           experts_impl="grouped_mm").to("cuda", torch.bfloat16)
    with torch.no_grad():
        for p in block.parameters():
            p.normal_(0.0, 0.02)
    params = list(block.parameters())
    x = torch.randn(1, shape.tokens, shape.hidden, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    grad = torch.randn_like(x)
    wrt = [x, block.experts.gate_up_proj, block.experts.down_proj, block.gate.weight]

    def set_precision(precision):
        block.experts.precision = precision

    result = {"shape": shape.name}
    outputs = {}
    for precision in ("bf16", "fp8"):
        set_precision(precision)
        out = block(x)[0]
        outputs[precision] = (out.detach(), *torch.autograd.grad(out, wrt, grad))
        del out
    for name, a, b in zip(("out", "grad_x", "grad_gate_up", "grad_down", "grad_router"), outputs["fp8"], outputs["bf16"]):
        result[f"rel_err_{name}"] = rel(a, b)
    del outputs

    flops = shape.flops()
    with torch.no_grad():
        idx, _, _ = block.gate(x[0])
        counts = torch.bincount(idx.reshape(-1), minlength=shape.experts)
    rows = torch.randn(shape.tokens * shape.top_k, shape.hidden, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    rows_grad = torch.randn_like(rows)
    expert_flops = 18.0 * rows.shape[0] * shape.hidden * shape.expert_intermediate
    for variant in ("bf16", "fp8", "fp8_fast_accum"):
        set_precision(variant.removesuffix("_fast_accum"))
        fp8_experts.FAST_ACCUM = variant.endswith("_fast_accum")
        start = time.time()
        ms = bench(lambda: block(x)[0].backward(grad), grad_to_none=params + [x])
        tflops = flops / (ms * 1e-3) / 1e12
        result[variant] = {"ms": ms, "tflops": tflops, "pct_peak": 100 * tflops / peak, "wall_s": time.time() - start}
        ms = bench(lambda: block.experts(rows, counts).backward(rows_grad), grad_to_none=params + [rows])
        result[f"experts_only_{variant}"] = {"ms": ms, "tflops": expert_flops / (ms * 1e-3) / 1e12}
    fp8_experts.FAST_ACCUM = False
    result["speedup"] = result["bf16"]["ms"] / result["fp8"]["ms"]
    result["speedup_fast_accum"] = result["bf16"]["ms"] / result["fp8_fast_accum"]["ms"]
    result["experts_only_speedup"] = result["experts_only_bf16"]["ms"] / result["experts_only_fp8"]["ms"]
    offsets = torch.cumsum(counts, 0, dtype=torch.int32)
    result["forward_gemm_gate_up"] = forward_gemm(shape, block, rows.detach(), offsets)
    result["quantizer"] = quantizer_times(shape, block, rows.shape[0])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", type=shape_list(ALL_SHAPES), default=",".join(ALL_SHAPES))
    args = parser.parse_args()
    if not torch.cuda.is_available() or torch.cuda.get_device_capability() < (9, 0):
        print("bench/fp8_experts.py needs an sm90+ CUDA GPU", file=sys.stderr)
        return 2
    import triton

    peak = matmul_peak()
    env = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__,
           "date": time.strftime("%Y-%m-%d"), "bf16_matmul_peak_tflops": peak}
    print(f"bf16 matmul peak (8192^3, measured): {peak:.0f} TFLOP/s on {env['gpu']}, torch {env['torch']}", flush=True)
    results = []
    for name in args.shapes:
        r = run_shape(ALL_SHAPES[name], peak)
        results.append(r)
        torch.cuda.empty_cache()
        print(f"\n{r['shape']}: layer fwd+bwd bf16 {r['bf16']['ms']:.2f} ms ({r['bf16']['tflops']:.0f} TFLOP/s, "
              f"{r['bf16']['pct_peak']:.0f}% of peak), fp8 {r['fp8']['ms']:.2f} ms ({r['fp8']['tflops']:.0f} TFLOP/s); "
              f"fp8 speed-up {r['speedup']:.2f}x; fp8 fast-accum {r['fp8_fast_accum']['ms']:.2f} ms "
              f"({r['speedup_fast_accum']:.2f}x)")
        print(f"  experts only: bf16 {r['experts_only_bf16']['ms']:.2f} ms, fp8 {r['experts_only_fp8']['ms']:.2f} ms "
              f"({r['experts_only_speedup']:.2f}x), fp8 fast-accum {r['experts_only_fp8_fast_accum']['ms']:.2f} ms")
        g = r["forward_gemm_gate_up"]
        print(f"  gate/up forward GEMM alone: bf16 {g['bf16_ms']:.3f} ms ({g['bf16_tflops']:.0f} TFLOP/s), "
              f"fp8 {g['fp8_ms']:.3f} ms ({g['fp8_tflops']:.0f} TFLOP/s), fast-accum {g['fp8_fast_accum_ms']:.3f} ms "
              f"({g['fp8_fast_accum_tflops']:.0f} TFLOP/s)")
        q = r["quantizer"]
        print(f"  quantizer per step: {q['total_ms']:.3f} ms total; torch reference on x: {q['torch_reference x [N,D] ms']:.3f} ms")
        for k, v in q.items():
            if isinstance(v, dict):
                print(f"    {k:<22}{v['ms']:>8.3f} ms {v['gb_s']:>7.0f} GB/s")
        print("  rel. error fp8 vs bf16: " + ", ".join(f"{k.removeprefix('rel_err_')} {v:.1e}"
                                                    for k, v in r.items() if k.startswith("rel_err_")), flush=True)
    out = os.environ.get("OUT")
    if out:
        Path(out, "fp8_experts.json").write_text(json.dumps({"env": env, "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
