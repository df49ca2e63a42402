"""The fused MoE layer's four Triton grouped GEMMs, one at a time, against the HBM floor of the
bytes each must move and against torch's CUTLASS grouped GEMM on pre-permuted rows.

    python bench/grouped_gemm.py [--shapes qwen3-30b-a3b,deepseek-v3] [--variants plain,tma,tma+bm64]

The four (payload/model/fused_experts.py): forward gate/up (A rows gathered from the tokens),
forward down (C rows scattered to their (token, k) slots), and in backward the input gradient of
down (gathered) and of gate/up (scattered). Variants of payload/model/grouped_gemm_triton.py:
`plain` reads the weights through plain loads (the module's autotune configs); `tma` through a
TMA descriptor (what the fused layer runs on Hopper); `+bm64` adds 64-row tiles to the configs
(at ~128 rows per expert half the experts spill into a second, nearly empty 128-row tile).

Floor: the weights and A rows read at the HBM read rate plus the C rows written at the write
rate, both measured in the same run (a bf16 sum over 8 GB; fill_ of 8 GB). At the
DeepSeek-V3-like shape (256 experts of 7168 x 2048, 32,768 rows) each GEMM streams 7.5 GB (down)
or 15 GB (gate/up) of weights — 45 GB for the four, ~10.7 ms at an assumed 4.2 TB/s — against ~0.5 GB of
rows; at Qwen3-30B-A3B's (128 experts of 2048 x 768, 131,072 rows) the weights are 0.4 / 0.8 GB
and the four GEMMs are compute-bound (~0.3 TFLOP each). Checks each variant's result against
`plain` (relative error; the same fp32 accumulation in another order). Needs a CUDA GPU; writes
$OUT/grouped_gemm.json when OUT is set.
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

from moe_layer import SHAPES, Shape, bench, matmul_peak, shape_list  # noqa: E402

# 64-row tiles beside the module's own (BM, BN, BK, warps, stages).
BM64_TILES = [(64, 256, 64, 4, 4), (64, 128, 64, 4, 6), (64, 256, 64, 4, 3)]


def hbm_rates() -> tuple[float, float]:
    """(read, write) bytes/s: a bf16 sum over 8 GB, and fill_ of the same 8 GB."""
    x = torch.ones(4 << 30, dtype=torch.bfloat16, device="cuda")
    read = x.numel() * 2 / (bench(lambda: x.sum(dtype=torch.float32)) * 1e-3)
    write = x.numel() * 2 / (bench(lambda: x.fill_(1.0)) * 1e-3)
    del x
    torch.cuda.empty_cache()
    return read, write


def variant_call(name: str):
    """grouped_mm's keyword arguments for a variant."""
    from payload.model import grouped_gemm_triton as gg

    kwargs = {"weights_via_tma": name.startswith("tma")}
    if name.endswith("+bm64"):
        kwargs["kernel"] = gg.tuned(gg.configs([*gg.MM_TILES, *BM64_TILES]))
    elif name.split("+")[0] not in ("plain", "tma"):
        raise SystemExit(f"--variants: unknown variant {name!r} (plain, tma, plain+bm64, tma+bm64)")
    return kwargs


def run_shape(shape: Shape, variants: list[str], read_rate: float, write_rate: float) -> dict:
    import torch.nn.functional as F

    from payload.model import grouped_gemm_triton as gg

    torch.manual_seed(0)
    d, f, e, k, t = shape.hidden, shape.expert_intermediate, shape.experts, shape.top_k, shape.tokens
    n = t * k
    gate_up = torch.randn(e, 2 * f, d, device="cuda", dtype=torch.bfloat16) * 0.02
    down = torch.randn(e, d, f, device="cuda", dtype=torch.bfloat16) * 0.02
    x = torch.randn(t, d, device="cuda", dtype=torch.bfloat16)
    # Routing as the layer's router makes it at initialisation: near-uniform top-k.
    idx = torch.randn(t, e, device="cuda").topk(k, dim=1).indices
    slot = torch.argsort(idx.reshape(-1), stable=True)
    group_end = torch.cumsum(torch.bincount(idx.reshape(-1), minlength=e), 0, dtype=torch.int32)
    token = torch.div(slot, k, rounding_mode="floor")
    a_nf = torch.randn(n, f, device="cuda", dtype=torch.bfloat16)
    grad_h = torch.randn(n, 2 * f, device="cuda", dtype=torch.bfloat16)
    out_tkd = torch.empty(n, d, device="cuda", dtype=torch.bfloat16)
    x_permuted = x.index_select(0, token)  # the unfused layer's rows, for the CUTLASS peer
    gemms = {
        # name: (call with grouped_mm kwargs, CUTLASS peer, weight tensor, A bytes read, C bytes written)
        "forward gate/up (gather A)": (
            lambda **kw: gg.grouped_mm(x, gate_up.transpose(1, 2), group_end, a_rows_N=token, **kw),
            lambda: F.grouped_mm(x_permuted, gate_up.transpose(1, 2), offs=group_end), gate_up, t * d * 2, n * 2 * f * 2),
        "forward down (scatter C)": (
            lambda **kw: gg.grouped_mm(a_nf, down.transpose(1, 2), group_end, c_rows_N=slot, out=out_tkd, **kw),
            lambda: F.grouped_mm(a_nf, down.transpose(1, 2), offs=group_end), down, n * f * 2, n * d * 2),
        "input grad of down (gather A)": (
            lambda **kw: gg.grouped_mm(x, down, group_end, a_rows_N=token, **kw),
            lambda: F.grouped_mm(x_permuted, down, offs=group_end), down, t * d * 2, n * f * 2),
        "input grad of gate/up (scatter C)": (
            lambda **kw: gg.grouped_mm(grad_h, gate_up, group_end, c_rows_N=slot, out=out_tkd, **kw),
            lambda: F.grouped_mm(grad_h, gate_up, offs=group_end), gate_up, n * 2 * f * 2, n * d * 2),
    }
    rows_per_expert = torch.bincount(idx.reshape(-1), minlength=e).float()
    result = {"shape": shape.name, "rows_per_expert_mean": rows_per_expert.mean().item(),
              "rows_per_expert_max": rows_per_expert.max().item(), "gemms": {}}
    totals = {name: 0.0 for name in ["floor", "cutlass", *variants]}
    for name, (call, peer, weights, a_bytes, c_bytes) in gemms.items():
        weight_bytes = weights.numel() * 2
        floor_ms = ((weight_bytes + a_bytes) / read_rate + c_bytes / write_rate) * 1e3
        row = {"weight_gb": weight_bytes / 1e9, "floor_ms": floor_ms, "cutlass_ms": bench(peer)}
        reference = call(**variant_call("plain")).clone()
        for variant in variants:
            kwargs = variant_call(variant)
            got = call(**kwargs)
            row[f"{variant}_rel_err"] = ((got.float() - reference.float()).norm() / reference.float().norm()).item()
            row[f"{variant}_ms"] = bench(lambda: call(**kwargs))
            kernel = kwargs.get("kernel", gg.MM_KERNEL)
            row[f"{variant}_config"] = str(getattr(kernel, "best_config", None))
            totals[variant] += row[f"{variant}_ms"]
        totals["floor"] += floor_ms
        totals["cutlass"] += row["cutlass_ms"]
        result["gemms"][name] = row
    result["total_ms"] = totals
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", type=shape_list(SHAPES), default=",".join(SHAPES))
    parser.add_argument("--variants", default="plain,tma,plain+bm64,tma+bm64")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("bench/grouped_gemm.py needs a CUDA GPU", file=sys.stderr)
        return 2
    import triton

    variants = args.variants.split(",")
    read_rate, write_rate = hbm_rates()
    env = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__,
           "date": time.strftime("%Y-%m-%d"), "bf16_matmul_peak_tflops": matmul_peak(),
           "hbm_read_tb_s": read_rate / 1e12, "hbm_write_tb_s": write_rate / 1e12}
    print(f"{env['gpu']}, torch {env['torch']}, triton {env['triton']}: HBM read {read_rate / 1e12:.2f} TB/s, "
          f"write {write_rate / 1e12:.2f} TB/s, bf16 peak {env['bf16_matmul_peak_tflops']:.0f} TFLOP/s (measured)")
    results = []
    for name in args.shapes:
        r = run_shape(SHAPES[name], variants, read_rate, write_rate)
        results.append(r)
        print(f"\n{r['shape']}: {r['rows_per_expert_mean']:.0f} rows per expert (max {r['rows_per_expert_max']:.0f})")
        print(f"  {'GEMM':<36}{'weights GB':>11}{'floor ms':>9}{'CUTLASS':>9}" + "".join(f"{v:>12}" for v in variants))
        for gemm, row in r["gemms"].items():
            print(f"  {gemm:<36}{row['weight_gb']:>11.2f}{row['floor_ms']:>9.2f}{row['cutlass_ms']:>9.2f}"
                  + "".join(f"{row[f'{v}_ms']:>12.2f}" for v in variants))
        t = r["total_ms"]
        print(f"  {'four GEMMs':<36}{'':>11}{t['floor']:>9.2f}{t['cutlass']:>9.2f}" + "".join(f"{t[v]:>12.2f}" for v in variants))
        print(f"  {'of the floor':<36}{'':>11}{'':>9}{t['floor'] / t['cutlass']:>9.0%}"
              + "".join(f"{t['floor'] / t[v]:>12.0%}" for v in variants))
        worst = max(row[f"{v}_rel_err"] for row in r["gemms"].values() for v in variants)
        print(f"  largest relative difference from plain: {worst:.1e}")
        torch.cuda.empty_cache()
    out = os.environ.get("OUT")
    if out:
        Path(out, "grouped_gemm.json").write_text(json.dumps({"env": env, "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
