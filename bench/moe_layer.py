"""One MoE layer, forward + backward in bf16, against transformers' Qwen3MoeSparseMoeBlock
(grouped_mm experts) on the same weights and inputs, and against the bf16 matmul peak measured
in the same run.

    python bench/moe_layer.py [--shapes qwen3-30b-a3b,deepseek-v3] [--compile] [--liger] [--profile] [--rounds N]

Prints per shape: ms, TFLOP/s, % of the measured peak, speed-up over HF, and how far our
output and input gradient are from HF's. FLOPs counted: the expert GEMMs (18·N·D·F for
gate/up/down forward and both backward products, N = tokens × top-k) plus the router (6·T·D·E).
--rounds N times HF and our layer (compiled with --compile) N more times, alternating, and prints
the median, lowest and highest ratio: the ratio moves by a few percent between runs, so a target
near the measured figure is judged on the median of the rounds.
Writes the numbers to $OUT/moe_layer.json when OUT is set. Needs a CUDA GPU.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch.nn.functional as F  # noqa: E402

from payload.model import SparseMoeBlock, grouped_mm_supported, moe, wgrad_quack  # noqa: E402


@dataclass(frozen=True)
class Shape:
    name: str
    hidden: int
    expert_intermediate: int
    experts: int
    top_k: int
    tokens: int

    def flops(self) -> float:
        n = self.tokens * self.top_k
        return 18.0 * n * self.hidden * self.expert_intermediate + 6.0 * self.tokens * self.hidden * self.experts


SHAPES = {
    "qwen3-30b-a3b": Shape("qwen3-30b-a3b", 2048, 768, 128, 8, 16384),
    "deepseek-v3": Shape("deepseek-v3", 7168, 2048, 256, 8, 4096),
}


def shape_list(known: dict):
    """argparse type for --shapes: comma-separated names, each one of `known` (checked before any
    GPU work starts)."""

    def parse(text: str) -> list[str]:
        names = text.split(",")
        unknown = [name for name in names if name not in known]
        if unknown:
            raise argparse.ArgumentTypeError(f"unknown {', '.join(unknown)}; known: {', '.join(known)}")
        return names

    return parse


def bench(fn, grad_to_none=(), rep_ms=400) -> float:
    from triton.testing import do_bench

    return do_bench(fn, warmup=100, rep=rep_ms, grad_to_none=list(grad_to_none), return_mode="median")


def matmul_peak() -> float:
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    ms = bench(lambda: a @ b)
    return 2 * 8192**3 / (ms * 1e-3) / 1e12


def hf_block(shape: Shape, ours: SparseMoeBlock):
    import transformers

    config = transformers.Qwen3MoeConfig(
        hidden_size=shape.hidden,
        moe_intermediate_size=shape.expert_intermediate,
        num_experts=shape.experts,
        num_experts_per_tok=shape.top_k,
        norm_topk_prob=True,
    )
    config._experts_implementation = "grouped_mm"
    block = transformers.models.qwen3_moe.modeling_qwen3_moe.Qwen3MoeSparseMoeBlock(config).to("cuda", torch.bfloat16)
    # The very same parameters (and so the same gradients buffers): one copy of the weights.
    block.gate.weight = ours.gate.weight
    block.experts.gate_up_proj = ours.experts.gate_up_proj
    block.experts.down_proj = ours.experts.down_proj
    return block


def rel(a: torch.Tensor, b: torch.Tensor) -> float:
    """‖a - b‖ / ‖b‖ in fp32, a slice at a time (expert gradients are 22 GB in bf16); a may be a
    host copy."""
    diff, ref = 0.0, 0.0
    for a_part, b_part in zip(a.split(8), b.split(8)):
        diff += (a_part.to(b.device).float() - b_part.float()).square().sum().item()
        ref += b_part.float().square().sum().item()
    return (diff / ref) ** 0.5


def liger_experts():
    """Liger-Kernel's fused MoE (gather + grouped GEMM + SwiGLU, down GEMM, weighted token sum, its
    own backward; Triton), the library candidate for issue #31, if installed."""
    from liger_kernel.ops.fused_moe import LigerFusedMoEFunction

    return LigerFusedMoEFunction.apply


def run_shape(shape: Shape, peak: float, compile_ours: bool, profile: bool, liger: bool = False, rounds: int = 0) -> dict:
    torch.manual_seed(0)
    ours = SparseMoeBlock(shape.hidden, shape.expert_intermediate, shape.experts, shape.top_k, True).to("cuda", torch.bfloat16)
    with torch.no_grad():
        for p in ours.parameters():
            p.normal_(0.0, 0.02)
    hf = hf_block(shape, ours)
    params = list(ours.parameters())
    x = torch.randn(1, shape.tokens, shape.hidden, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    grad = torch.randn_like(x)

    def step_ours(block=ours):
        block(x)[0].backward(grad)

    def with_impl(impl):
        """Our layer with one experts path: "fused" (#31: the permutation inside Triton grouped
        GEMMs) or "grouped_mm" (torch's grouped GEMM on rows the dispatcher permuted)."""

        def step(block=ours):
            ours.experts.impl = impl
            try:
                step_ours(block)
            finally:
                ours.experts.impl = "auto"

        return step

    step_ours_fused, step_ours_unfused = with_impl("fused"), with_impl("grouped_mm")

    def step_hf():
        out = hf(x)
        (out[0] if isinstance(out, tuple) else out).backward(grad)

    # Same function first: outputs and gradients (input, experts, router) against HF's.
    wrt = [x, ours.experts.gate_up_proj, ours.experts.down_proj, ours.gate.weight]
    # Our result waits in host memory while HF's is computed: both sets of DeepSeek-V3-like
    # gradients (2 x 22.5 GB) beside the weights would not fit an 80 GB H100.
    out_ours = ours(x)[0]
    grads_ours = [g.cpu() for g in torch.autograd.grad(out_ours, wrt, grad)]
    out_ours = out_ours.cpu()
    out_hf = hf(x)
    out_hf = out_hf[0] if isinstance(out_hf, tuple) else out_hf
    grads_hf = torch.autograd.grad(out_hf, wrt, grad)
    result = {
        "shape": shape.name,
        "grouped_mm": grouped_mm_supported(x, ours.experts.gate_up_proj),
        "auto_takes_fused": ours.experts.use_fused(x[0], shape.tokens * shape.top_k),
        "rel_err_out": rel(out_ours, out_hf),
    }
    for name, a, b in zip(("grad_x", "grad_gate_up", "grad_down", "grad_router"), grads_ours, grads_hf):
        result[f"rel_err_{name}"] = rel(a, b)
    del out_ours, grads_ours, out_hf, grads_hf

    flops = shape.flops()

    def step_ours_autograd_wgrad():
        # Diagnostic: our layer with F.grouped_mm's own backward (as HF uses it), to show
        # what computing the weight gradient in the parameter's layout saves.
        saved = moe.grouped_linear
        moe.grouped_linear = lambda x_NI, w_EOI, offs: F.grouped_mm(x_NI, w_EOI.transpose(-2, -1), offs=offs)
        try:
            step_ours_unfused()
        finally:
            moe.grouped_linear = saved

    variants = {
        "hf": step_hf,
        "ours": step_ours,
        "ours_fused": step_ours_fused,
        "ours_unfused": step_ours_unfused,
        "ours_autograd_wgrad": step_ours_autograd_wgrad,
    }
    if liger:
        fused = liger_experts()

        def liger_forward():
            idx, weight, _ = ours.gate(x[0])
            return fused(x[0], ours.experts.gate_up_proj, ours.experts.down_proj, idx.to(torch.int32), weight)

        out_liger = liger_forward()
        grads_liger = torch.autograd.grad(out_liger, wrt, grad[0])
        out_ref = ours(x)[0][0]
        grads_ref = torch.autograd.grad(out_ref, wrt, grad[0])
        result["liger_rel_err_vs_ours"] = {"out": rel(out_liger, out_ref)} | {
            name: rel(a, b) for name, a, b in zip(("grad_x", "grad_gate_up", "grad_down", "grad_router"), grads_liger, grads_ref)
        }
        del out_liger, grads_liger, out_ref, grads_ref
        variants["liger"] = lambda: liger_forward().backward(grad[0])
    if compile_ours:
        compiled = torch.compile(ours)
        variants["ours_compiled"] = lambda: step_ours(compiled)
        variants["ours_fused_compiled"] = lambda: step_ours_fused(compiled)
        variants["ours_unfused_compiled"] = lambda: step_ours_unfused(compiled)
    for name, fn in variants.items():
        start = time.time()
        try:
            ms = bench(fn, grad_to_none=params + [x])
        except Exception as exc:  # a compiler failure is a result to report, not a crash
            print(f"{shape.name} {name} failed: {str(exc).splitlines()[0]}")
            continue
        tflops = flops / (ms * 1e-3) / 1e12
        result[name] = {"ms": ms, "tflops": tflops, "pct_peak": 100 * tflops / peak, "wall_s": time.time() - start}
    best = min((result[k] for k in ("ours", "ours_compiled") if k in result), key=lambda v: v["ms"])
    result["speedup_vs_hf"] = result["hf"]["ms"] / best["ms"]
    if rounds:
        name = "ours_compiled" if "ours_compiled" in result else "ours"
        pairs = [(bench(step_hf, params + [x]), bench(variants[name], params + [x])) for _ in range(rounds)]
        ratios = [hf_ms / ours_ms for hf_ms, ours_ms in pairs]
        result["rounds"] = {"variant": name, "ms": pairs, "median_ratio": statistics.median(ratios), "min_ratio": min(ratios), "max_ratio": max(ratios)}

    # Where the time goes: the two grouped GEMMs and SwiGLU alone, on rows already grouped.
    with torch.no_grad():
        idx, _, _ = ours.gate(x[0])
        counts = torch.bincount(idx.reshape(-1), minlength=shape.experts)
    rows = torch.randn(shape.tokens * shape.top_k, shape.hidden, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    rows_grad = torch.randn_like(rows)
    ms = bench(lambda: ours.experts(rows, counts).backward(rows_grad), grad_to_none=params + [rows])
    expert_flops = 18.0 * rows.shape[0] * shape.hidden * shape.expert_intermediate
    result["experts_only"] = {"ms": ms, "tflops": expert_flops / (ms * 1e-3) / 1e12}
    result["experts_only"]["pct_peak"] = 100 * result["experts_only"]["tflops"] / peak

    if profile:
        from torch.profiler import ProfilerActivity, profile as torch_profile

        for p in params + [x]:
            p.grad = None
        with torch_profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(3):
                step_ours()
            torch.cuda.synchronize()
        print(f"--- {shape.name}: our layer's CUDA kernels over 3 steps ---")
        print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=14, max_name_column_width=70))
    return result


def print_shape(r: dict) -> None:
    """One shape's rows of the table, its errors against HF and its rounds."""
    for variant in ("hf", "ours", "ours_compiled", "ours_fused", "ours_fused_compiled", "ours_unfused", "ours_unfused_compiled", "ours_autograd_wgrad", "liger", "experts_only"):
        if variant not in r:
            continue
        v = r[variant]
        ratio = r["hf"]["ms"] / v["ms"] if variant != "experts_only" else float("nan")
        print(f"{r['shape']:<15}{variant:<21}{v['ms']:>9.2f}{v['tflops']:>10.0f}{v['pct_peak']:>7.0f}%{ratio:>7.2f}")
    errors = ", ".join(f"{k.removeprefix('rel_err_')} {v:.1e}" for k, v in r.items() if k.startswith("rel_err_"))
    print(f"{'':<15}rel. error vs HF: {errors}")
    if "rounds" in r:
        rr = r["rounds"]
        print(f"{'':<15}{len(rr['ms'])} alternating rounds, HF / {rr['variant']}: median {rr['median_ratio']:.3f}x "
              f"(lowest {rr['min_ratio']:.3f}, highest {rr['max_ratio']:.3f}); ms " + ", ".join(f"{a:.2f}/{b:.2f}" for a, b in rr["ms"]))
    if "liger_rel_err_vs_ours" in r:
        print(f"{'':<15}liger rel. error vs ours: " + ", ".join(f"{k} {v:.1e}" for k, v in r["liger_rel_err_vs_ours"].items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", type=shape_list(SHAPES), default=",".join(SHAPES))
    parser.add_argument("--compile", action="store_true", help="also time torch.compile of our layer")
    parser.add_argument("--profile", action="store_true", help="print our layer's top CUDA kernels")
    parser.add_argument("--liger", action="store_true", help="also time Liger-Kernel's fused MoE on the same weights")
    parser.add_argument("--rounds", type=int, default=0, help="time HF and our layer this many more times, alternating")
    args = parser.parse_args()
    if args.rounds < 0:
        parser.error(f"--rounds {args.rounds}: give 0 (none) or more rounds")
    if not torch.cuda.is_available():
        print("bench/moe_layer.py needs a CUDA GPU", file=sys.stderr)
        return 2
    import transformers

    peak = matmul_peak()
    env = {
        "gpu": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "date": time.strftime("%Y-%m-%d"),
        "bf16_matmul_peak_tflops": peak,
        "fused_weight_gradients": wgrad_quack.backend(torch.empty(0, device="cuda", dtype=torch.bfloat16)),
    }
    print(f"bf16 matmul peak (8192^3, measured): {peak:.0f} TFLOP/s on {env['gpu']}, torch {env['torch']}, transformers {env['transformers']}; "
          f"fused layer's weight gradients: {env['fused_weight_gradients']}")
    print(f"{'shape':<15}{'variant':<21}{'ms':>9}{'TFLOP/s':>10}{'% peak':>8}{'vs HF':>7}")
    out = os.environ.get("OUT")
    results = []
    for name in args.shapes:
        # Each shape takes minutes (compiles, HF's layer, the rounds): print it when it is done.
        results.append(run_shape(SHAPES[name], peak, args.compile, args.profile, args.liger, args.rounds))
        print_shape(results[-1])
        if out:
            Path(out, "moe_layer.json").write_text(json.dumps({"env": env, "results": results}, indent=2))
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
