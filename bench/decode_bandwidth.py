"""The share of HBM bandwidth a decode step's reads reach on one GPU, against the GPU's own copy
rate measured in the same run: the `hbm_efficiency` the planner's decode roofline assumes
(estimate/throughput.py, 0.75).

    python bench/decode_bandwidth.py [--json OUT]

A decode step of a Qwen3 MoE replica reads, per layer and GPU, the KV cache of every running
request and the expert weights its batch touches. Timed here, each a median of CUDA-event
timings after a warm-up, at Qwen3-30B-A3B's shapes on a TP4/EP4 replica (the layout p5en-48
serves it with: 8 query heads and 1 KV head a GPU, 32 experts a GPU, batch 513 of ~8,280 tokens,
the planner's figures):
- copy peak: `dst.copy_(src)` of 4 GiB, HBM bytes read + written per second;
- attention decode: torch's scaled_dot_product_attention (its flash kernel, GQA), one query
  token a request against a contiguous bf16 KV cache, K and V bytes read per second;
- expert GEMMs: F.grouped_mm of the batch's routed rows (~32 a local expert) against the 32
  local experts' gate_up and down weights, weight bytes read per second.
SGLang decodes with FlashInfer / FA3 paged kernels, not available on this machine: torch's
kernels give a floor for what a decode step's reads reach, not SGLang's figure.
"""

from __future__ import annotations

import argparse
import json
import statistics

import torch
import torch.nn.functional as F

# The H200's HBM3e bandwidth by its datasheet: the planner's hbm_gb_s, which hbm_efficiency scales.
SPEC_HBM_GB_S = 4800


def timed(fn, repeat: int = 20) -> float:
    """Median seconds of `fn` over `repeat` CUDA-event timings, after two warm-up calls."""
    fn(), fn()
    times = []
    for _ in range(repeat):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return statistics.median(times)


def copy_peak(gib: int = 4) -> float:
    src = torch.empty(gib << 29, dtype=torch.bfloat16, device="cuda")
    dst = torch.empty_like(src)
    return 2 * src.numel() * 2 / timed(lambda: dst.copy_(src))


def attention_decode(batch: int, context: int, q_heads: int, kv_heads: int, head_dim: int) -> float:
    q = torch.randn(batch, q_heads, 1, head_dim, dtype=torch.bfloat16, device="cuda")
    k = torch.randn(batch, kv_heads, context, head_dim, dtype=torch.bfloat16, device="cuda")
    v = torch.randn_like(k)
    seconds = timed(lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=q_heads != kv_heads))
    return 2 * k.numel() * 2 / seconds


def expert_gemms(tokens: int, top_k: int, experts: int, local_experts: int, hidden: int, intermediate: int) -> float:
    rows_per_expert = max(1, tokens * top_k // experts)
    rows = rows_per_expert * local_experts
    x = torch.randn(rows, hidden, dtype=torch.bfloat16, device="cuda")
    gate_up = torch.randn(local_experts, 2 * intermediate, hidden, dtype=torch.bfloat16, device="cuda")
    down = torch.randn(local_experts, hidden, intermediate, dtype=torch.bfloat16, device="cuda")
    offsets = torch.arange(1, local_experts + 1, dtype=torch.int32, device="cuda") * rows_per_expert

    def step():
        h = F.grouped_mm(x, gate_up.transpose(-2, -1), offs=offsets)
        a = F.silu(h[:, :intermediate]) * h[:, intermediate:]
        return F.grouped_mm(a, down.transpose(-2, -1), offs=offsets)

    return (gate_up.numel() + down.numel()) * 2 / timed(step)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("error: needs a CUDA device")
    peak = copy_peak()
    figures = {
        "device": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "copy_peak_gb_s": peak / 1e9,
        # Qwen3-30B-A3B, TP4: 32 query / 4 KV heads over 4 GPUs; batch and context from `plan`.
        "attention_decode_gb_s": attention_decode(batch=513, context=8280, q_heads=8, kv_heads=1, head_dim=128) / 1e9,
        # 513 tokens x top-8 over 128 experts, 32 on this GPU (EP4); D 2048, F 768.
        "expert_gemms_gb_s": expert_gemms(tokens=513, top_k=8, experts=128, local_experts=32, hidden=2048,
                                          intermediate=768) / 1e9,
    }
    print(f"{figures['device']}, torch {figures['torch']}")
    print(f"copy peak          {figures['copy_peak_gb_s']:8,.0f} GB/s (read + write)")
    for name in ("attention_decode", "expert_gemms"):
        rate = figures[f"{name}_gb_s"]
        figures[f"{name}_share_of_copy_peak"] = rate / figures["copy_peak_gb_s"]
        figures[f"{name}_share_of_spec"] = rate / SPEC_HBM_GB_S
        print(f"{name:18s} {rate:8,.0f} GB/s read = {rate / figures['copy_peak_gb_s']:.2f} x the copy peak, "
              f"{rate / SPEC_HBM_GB_S:.2f} x the {SPEC_HBM_GB_S:,} GB/s the planner's hbm_gb_s takes")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)


if __name__ == "__main__":
    main()
