"""One GRPO optimizer step of a Qwen3-MoE on one GPU: tokens/s, MFU against the bf16 matmul
peak measured in the same run, peak memory.

    python bench/train_step.py [--layers 4] [--micro-batch-size 16 --micro-batches 1] [--compile] [--activation-checkpointing] [--profile]
    python bench/train_step.py --compile --mix 48      # + a realistic length mix, packed against padded
    python bench/train_step.py --routing-replay        # + the same step with the engine's routes replayed

`--routing-replay` (issue 47 item 2): after the fixed-shape step, the same micro-batches again
with every position's experts given (`Sample.routed_experts`, uint8 [P + R - 1, L, K], what
the rollout worker stores from SGLang's `return_routed_experts`; uniform distinct experts, the
load a balanced router gives), timed in the same process on the same model: step time and peak
memory against the router's own top-k, and the memory against the planner's routes term
(estimate.footprint, `routing-replay routes`).

`--mix N`: after the fixed-shape step, N samples of a 512-token prompt and a lognormal
response (sigma 1, mean 4096 tokens, cut at 16384), the same samples trained both ways on the
same model: right-padded micro-batches of `--mix-micro-batch-size` samples sorted by length
(the trainer's padded path), and packed micro-batches of about `--mix-token-budget` tokens
(payload.train.batch.pack_micro_batches: no pad tokens, attention inside each sample through
FlashAttention's varlen kernel, payload.model.packed). Both budgets hold at most ~34 k tokens
per micro-batch, what the fixed shape uses. tokens/s counts real tokens only; MFU counts their
FLOPs (attention per sample).

The step is the trainer's own code path: `parallelize` (FSDP2 on a one-rank NCCL world,
bf16 compute, fp32 master weights and gradient reduction; `--compile`: torch.compile per
decoder layer), `collate`d micro-batches, `train_step` (logprob recompute with grad through
the fused chunked LM head, GRPO loss with TIS, backward, global-norm clipping, AdamW). The
model has Qwen3-30B-A3B's layer shape (D 2048, 32 heads × 128, 4 KV heads, 128 experts of
F 768, top-8, vocab 151936) and 4 layers by default: one GPU holds every parameter's fp32
master weight, gradient and AdamW moments (16 B/param); 6 layers fit with activation
checkpointing.

Model FLOPs per token (forward + backward = 3 × forward, recomputation not counted):
    6 · (attention projections + router + top-k experts' SwiGLU + LM head) parameters
  + 6 · S_ctx · heads · head_dim per layer for causal attention (S_ctx: mean context length)
MFU = model FLOPs / step time / measured peak.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def measured_peak_tflops() -> float:
    """bf16 8192³ matmul on random data, median of 20 after warm-up (CUDA events)."""
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    for _ in range(5):
        a @ b
    times = []
    for _ in range(20):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        a @ b
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return 2 * 8192**3 / statistics.median(times) / 1e12


def model_flops_per_token(cfg, context: float) -> float:
    d, hd = cfg.hidden_size, cfg.head_dim
    attention = d * hd * (2 * cfg.num_attention_heads + 2 * cfg.num_key_value_heads)
    experts = cfg.num_experts_per_tok * 3 * d * cfg.moe_intermediate_size
    router = d * cfg.num_experts
    dense = cfg.num_hidden_layers * (attention + experts + router) + d * cfg.vocab_size
    return 6 * dense + 6 * cfg.num_hidden_layers * context * cfg.num_attention_heads * hd


def lognormal_samples(n: int, vocab: int, seed: int = 0, prompt: int = 512, mean: float = 4096, cut: int = 16384):
    from payload.train.batch import Sample

    rng = np.random.default_rng(seed)
    lengths = np.minimum(rng.lognormal(np.log(mean) - 0.5, 1.0, n), cut).astype(int) + 1
    return [Sample(rng.integers(0, vocab, prompt), rng.integers(0, vocab, r), -rng.random(r) * 12, float(rng.random()),
                   float(rng.standard_normal())) for r in lengths]


def time_steps(step, warmup: int, steps: int) -> tuple[float, list[float], dict]:
    times, metrics = [], {}
    for i in range(warmup + steps):
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        metrics = step()
        end.record()
        end.synchronize()
        if i >= warmup:
            times.append(start.elapsed_time(end) / 1e3)
    return statistics.median(times), times, metrics


def sample_flops(cfg, lengths) -> float:
    """Model FLOPs of sequences of these lengths (causal attention within each)."""
    dense = model_flops_per_token(cfg, context=0)
    attention = 6 * cfg.num_hidden_layers * cfg.num_attention_heads * cfg.head_dim
    return sum(dense * n + attention * n * (n + 1) / 2 for n in lengths)


def mix_benchmark(args, cfg, run, peak) -> dict:
    """The lognormal mix, padded (the trainer's earlier path) against packed (its path now), on
    one GPU and as the step of `--mix-ranks` data-parallel ranks. A multi-rank step lasts as
    long as its slowest rank (every FSDP and expert collective waits for it), so it is timed
    here as the slowest rank's share, each share trained alone on this GPU: equal-count
    contiguous shares of right-padded micro-batches (shard_for_rank + micro_batches), against
    token-balanced shares packed by the token budget (split_for_ranks + pack_micro_batches).
    Communication is not in it (one GPU)."""
    from payload.train.batch import micro_batches, pack_micro_batches, packed_micro_batch_count, shard_for_rank, split_for_ranks

    mix = lognormal_samples(args.mix, cfg.vocab_size)
    lengths = [s.num_tokens for s in mix]
    real_tokens, mix_flops = sum(lengths), sample_flops(cfg, lengths)
    out = {"samples": args.mix, "real_tokens": real_tokens, "response_mean": float(np.mean(lengths)) - 512,
           "response_max": max(lengths) - 512}
    for ranks in (1, args.mix_ranks):
        padded_shares = [shard_for_rank(mix, r, ranks) for r in range(ranks)]
        padded_count = -(-max(map(len, padded_shares)) // args.mix_micro_batch_size)
        packed_shares = split_for_ranks(mix, ranks)
        packed_count = max(packed_micro_batch_count(share, args.mix_token_budget) for share in packed_shares)
        variants = {
            "padded": [micro_batches(share, args.mix_micro_batch_size, padded_count) for share in padded_shares],
            "packed": [pack_micro_batches(share, packed_count) for share in packed_shares],
        }
        row = out[f"ranks_{ranks}"] = {}
        for kind, per_rank in variants.items():
            torch.cuda.reset_peak_memory_stats()
            try:
                times = [time_steps(run(micro), args.warmup, args.steps)[0] for micro in per_rank]
            except Exception as exc:  # report it and keep the other variant's figures
                row[kind] = {"error": repr(exc)[:2000]}
                print(f"mix {kind} x{ranks} failed: {exc!r}"[:4000], flush=True)
                continue
            step_s = max(times)
            computed = sum(mb.input_ids_BT.numel() for micro in per_rank for mb in micro)
            share_tokens = [sum(mb.num_tokens for mb in micro) for micro in per_rank]
            row[kind] = {
                "micro_batches_per_rank": len(per_rank[0]), "computed_tokens": computed,
                "pad_fraction": 1 - real_tokens / computed, "rank_tokens_max_over_mean": max(share_tokens) / np.mean(share_tokens),
                "rank_step_s": times, "step_s": step_s, "tokens_per_s": real_tokens / step_s,
                "mfu": mix_flops / (step_s * ranks) / 1e12 / peak, "peak_memory_gib": torch.cuda.max_memory_allocated() / 2**30,
            }
            print(f"| {ranks} rank(s) | {kind} | {len(per_rank[0])} micro-batches/rank | pad {row[kind]['pad_fraction']:.1%} | "
                  f"rank tokens max/mean {row[kind]['rank_tokens_max_over_mean']:.2f} | step {step_s * 1e3:.0f} ms | "
                  f"{real_tokens / step_s:,.0f} tok/s | MFU {row[kind]['mfu']:.1%} | {row[kind]['peak_memory_gib']:.1f} GiB |",
                  flush=True)
        if all("tokens_per_s" in row.get(k, {}) for k in variants):
            row["packed_over_padded"] = row["packed"]["tokens_per_s"] / row["padded"]["tokens_per_s"]
            print(f"{ranks} rank(s): packed / padded tokens/s {row['packed_over_padded']:.2f}x", flush=True)
    return out


def replay_benchmark(args, cfg, samples, run, router_step_s: float, router_peak_gib: float) -> dict:
    """The fixed-shape step again with routes replayed; its time and peak memory over the
    router's, and the memory against the planner's term for one micro-batch in flight."""
    from dataclasses import replace

    from payload.train.batch import micro_batches

    rng = np.random.default_rng(1)
    layers, k, e = cfg.num_hidden_layers, cfg.num_experts_per_tok, cfg.num_experts
    replayed = [replace(s, routed_experts=np.argsort(rng.random((s.num_tokens - 1, layers, e)), axis=-1)[..., :k].astype(np.uint8))
                for s in samples]
    micro = micro_batches(replayed, args.micro_batch_size, args.micro_batches)
    torch.cuda.reset_peak_memory_stats()
    step_s, times, _ = time_steps(run(micro), args.warmup, args.steps)
    peak_gib = torch.cuda.max_memory_allocated() / 2**30
    t = args.micro_batch_size * (args.prompt_tokens + args.response_tokens)
    modelled = t * layers * k * 8  # estimate.footprint's routing-replay term, one micro-batch in flight
    out = {"step_s_median": step_s, "step_s_all": times, "step_over_router": step_s / router_step_s,
           "peak_memory_gib": peak_gib, "peak_memory_added_mb": (peak_gib - router_peak_gib) * 2**30 / 1e6,
           "modelled_routes_mb": modelled / 1e6,
           "routes_host_bytes_per_micro_batch": int(sum(mb.routed_experts_BTLK.numel() for mb in micro) / len(micro))}
    print(f"routing replay: step {step_s * 1e3:.1f} ms = {out['step_over_router']:.3f}x the router's "
          f"{router_step_s * 1e3:.1f} ms; peak memory {out['peak_memory_added_mb']:+.1f} MB "
          f"(modelled {out['modelled_routes_mb']:.1f} MB)", flush=True)
    return out


def experts_impl_used(model, rows_per_layer: int) -> str:
    """What the first MoE layer runs on a CUDA bf16 batch of `rows_per_layer` tokens x top-k
    (auto resolves per device and rows per expert)."""
    from payload.model import grouped_mm_supported

    experts = next(m for m in model.modules() if hasattr(m, "use_fused"))
    x = torch.empty(16, experts.gate_up_proj.shape[-1], device="cuda", dtype=torch.bfloat16)
    if experts.use_fused(x, rows_per_layer):
        return "fused"
    return "grouped_mm" if grouped_mm_supported(x, experts.gate_up_proj, experts.down_proj) else "loop"


def bench_keeps_logits(args, cfg) -> tuple[bool, str]:
    """--keep-logits resolved as the trainer resolves the job's switch, for this one-GPU step."""
    from spec.job import parse_job_config
    from estimate.footprint import device_memory_gb, trainer_keeps_logits

    setting = {"auto": "auto", "on": True, "off": False}[args.keep_logits]
    job = parse_job_config({
        "model": {"lm_head_keep_logits": setting, "activation_checkpointing": args.activation_checkpointing},
        "parallel": {"expert_parallel_size": 1, "data_parallel_shard_size": 1},
        # Twice the step's samples (group_size >= 2): the decision reads the micro-batch, not the step.
        "batch": {"prompts_per_step": args.micro_batches * args.micro_batch_size, "max_prompt_tokens": args.prompt_tokens,
                  "max_response_tokens": args.response_tokens, "packing": False, "micro_batch_size": args.micro_batch_size},
        "algorithm": {"group_size": 2},
    }, "bench/train_step.py")
    from spec.hardware import node_of_device
    from spec.layout import TrainerLayout

    return trainer_keeps_logits(job, cfg, TrainerLayout(1, 1, 1, 1), node_of_device(torch.cuda.get_device_name(0)),
                                device_memory_gb(torch.cuda.get_device_properties(0).total_memory))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--prompt-tokens", type=int, default=512)
    p.add_argument("--response-tokens", type=int, default=1536)
    p.add_argument("--micro-batch-size", type=int, default=16)
    p.add_argument("--micro-batches", type=int, default=1)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--activation-checkpointing", action="store_true")
    p.add_argument("--compile", action="store_true", help="torch.compile each decoder layer (parallelize(compile_layers=True))")
    p.add_argument("--experts-impl", default="auto", choices=["auto", "fused", "grouped_mm", "loop"],
                   help="the experts' implementation (auto: the fused-permutation Triton GEMMs where they run)")
    p.add_argument("--reshard-after-forward", default="default", choices=["default", "always", "never"],
                   help="FSDP2's reshard policy (parallelize: default = every decoder layer but the last)")
    p.add_argument("--keep-logits", default="auto", choices=["auto", "on", "off"],
                   help="hold the LM head's logits for backward instead of recomputing them (model.lm_head_keep_logits; "
                   "auto: where the planner's memory model says this shape fits with them, as the trainer decides)")
    p.add_argument("--routing-replay", action="store_true",
                   help="also time the step with every position's experts replayed (rollout.return_routed_experts)")
    p.add_argument("--profile", action="store_true", help="print the CUDA kernels of one more step, by total time")
    p.add_argument("--mix", type=int, default=0, help="samples of the lognormal length mix (0: fixed shape only)")
    p.add_argument("--mix-micro-batch-size", type=int, default=2)
    p.add_argument("--mix-token-budget", type=int, default=32768)
    p.add_argument("--mix-ranks", type=int, default=8, help="data-parallel ranks whose step the mix is also timed as")
    p.add_argument("--out", default=os.environ.get("OUT", "."))
    args = p.parse_args()

    from payload.model import Qwen3MoeForCausalLM, Qwen3MoeConfig, grouped_mm_supported
    from payload.train.advantages import group_advantages
    from payload.train.batch import Sample, micro_batches
    from payload.train.parallel import init_world, parallelize
    from spec.layout import TrainerLayout
    from payload.train.step import LossConfig, build_optimizer, train_step

    peak = measured_peak_tflops()
    world = init_world(TrainerLayout(1, 1, 1, 1))
    cfg = Qwen3MoeConfig(num_hidden_layers=args.layers, activation_checkpointing=args.activation_checkpointing,
                         experts_impl=args.experts_impl)
    keep_logits, why = bench_keeps_logits(args, cfg)
    print(why, flush=True)
    cfg = cfg.replace(lm_head_keep_logits=keep_logits)
    with torch.device("cuda"):
        model = Qwen3MoeForCausalLM(cfg)  # fp32 master weights
    params = sum(p.numel() for p in model.parameters())
    model = parallelize(model, world, ep_backend="local", compute_dtype=torch.bfloat16, compile_layers=args.compile,
                        reshard_after_forward=args.reshard_after_forward)
    optimizer = build_optimizer(model, lr=1e-6, weight_decay=0.0, device=world.device)
    loss = LossConfig(tis_cap=2.0, max_response_tokens=args.response_tokens)

    g = torch.Generator().manual_seed(0)
    n = args.micro_batch_size * args.micro_batches
    group = 8 if n % 8 == 0 else 1
    samples = []
    for _ in range(n):
        prompt = torch.randint(0, cfg.vocab_size, (args.prompt_tokens,), generator=g).tolist()
        response = torch.randint(0, cfg.vocab_size, (args.response_tokens,), generator=g).tolist()
        logprobs = (-torch.rand(args.response_tokens, generator=g) * 12).tolist()
        samples.append(Sample(prompt, response, logprobs, float(torch.rand(1, generator=g))))
    for s, a in zip(samples, group_advantages(torch.tensor([s.reward for s in samples]), group).tolist()):
        s.advantage = a
    micro = micro_batches(samples, args.micro_batch_size, args.micro_batches)

    torch.cuda.reset_peak_memory_stats()
    run = lambda micro: lambda: train_step(model, optimizer, micro, loss, group=torch.distributed.group.WORLD,  # noqa: E731
                                           device=world.device)
    step_s, times, metrics = time_steps(run(micro), args.warmup, args.steps)
    if args.profile:
        from torch.profiler import ProfilerActivity, profile

        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            train_step(model, optimizer, micro, loss, group=torch.distributed.group.WORLD, device=world.device)
            torch.cuda.synchronize()
        table = prof.key_averages().table(sort_by="cuda_time_total", row_limit=25, max_name_column_width=70)
        Path(args.out, "profile.txt").write_text(table)
        print(table)
    seq = args.prompt_tokens + args.response_tokens
    tokens = n * seq
    flops = model_flops_per_token(cfg, context=(seq + 1) / 2) * tokens
    result = {
        "gpu": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "config": f"Qwen3-MoE D{cfg.hidden_size} {cfg.num_experts}x{cfg.moe_intermediate_size} top{cfg.num_experts_per_tok} "
        f"vocab {cfg.vocab_size}, {args.layers} layers, {params / 1e9:.2f}B params",
        "experts_impl": experts_impl_used(model, args.micro_batch_size * seq * cfg.num_experts_per_tok),
        "activation_checkpointing": args.activation_checkpointing,
        "compile_layers": args.compile,
        "reshard_after_forward": args.reshard_after_forward,
        "lm_head_keep_logits": keep_logits,
        "tokens_per_step": tokens,
        "micro_batches": f"{args.micro_batches} x {args.micro_batch_size} x {seq}",
        "step_s_median": step_s,
        "step_s_all": times,
        "tokens_per_s": tokens / step_s,
        "model_tflop_per_step": flops / 1e12,
        "achieved_tflops": flops / step_s / 1e12,
        "peak_bf16_tflops": peak,
        "mfu": flops / step_s / 1e12 / peak,
        "peak_memory_gib": torch.cuda.max_memory_allocated() / 2**30,
        "loss": metrics["loss"],
        "grad_norm": metrics["grad_norm"],
    }
    print(f"fixed shape: {step_s * 1e3:.0f} ms, MFU {result['mfu']:.1%}", flush=True)
    if args.routing_replay:
        result["routing_replay"] = replay_benchmark(args, cfg, samples, run, step_s, result["peak_memory_gib"])
    if args.mix:
        result["mix"] = mix_benchmark(args, cfg, run, peak)
    name = f"train_step_L{args.layers}_{args.micro_batches}x{args.micro_batch_size}" + ("_ac" if args.activation_checkpointing else "") + ("_compiled" if args.compile else "") + (f"_mix{args.mix}" if args.mix else "") + f"_{result['experts_impl']}_reshard-{args.reshard_after_forward}" + ("_keep-logits" if keep_logits else "") + ("_replay" if args.routing_replay else "") + ".json"
    Path(args.out, name).write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))
    print(f"| {result['config']} | AC {'on' if args.activation_checkpointing else 'off'} | {tokens} tok/step | "
          f"{args.micro_batches}x{args.micro_batch_size} | compile {'on' if args.compile else 'off'} | {step_s * 1e3:.0f} ms | {tokens / step_s:,.0f} tok/s | {result['achieved_tflops']:.0f} TFLOP/s | "
          f"peak {peak:.0f} | MFU {result['mfu']:.1%} | {result['peak_memory_gib']:.1f} GiB |")
    torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()
