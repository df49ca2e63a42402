"""One pipeline stage's real 1F1B step at reduced scale on one H100/H200, its memory against
estimate.footprint's prediction for the same configuration, term by term.

    python3 bench/pipeline_memory.py [--stage 1] [--pp 4] [--layers 2] [--tokens 4096] [--micro-batches 6]

Shapes are Qwen3-235B-A22B's (hidden 4096, 64 query / 4 KV heads of 128, moe_intermediate 1536,
vocab 151,936); layers per stage, tokens and micro-batches are scaled down; experts are one EP
rank's share of EP 8 (16 of 128) with top-1 routing, so a rank's expert rows per token match
EP 8's average (T · K / 8 = T). The stage is payload.train.pipeline's PipelineStageModel
(the repo's layers, activation checkpointing, bf16 compute over fp32 masters, AdamW) run by the
1F1B order of torch's Schedule1F1B for stage `--stage` of `--pp` (w = PP − stage warm-up
forwards, then one backward / one forward, then the drain), with payload.train.pipeline's ring
of receive buffers (w activation slots, one gradient slot) and random gradients in place of the
next stage's. No collectives (one GPU): no DeepEP, NCCL or publish terms; they are printed as the
model's figures only. The prediction is estimate.footprint.footprint (what the planner calls)
with the scaled config, layout PP × 1 GPU, and `stage=`. Three steps run: the first is a warm-up
(AdamW creates its moments lazily, at its first step), the second is measured, the third shows
whether the allocator's reserve still grows. Persistent bytes (sharded weights, gradients, AdamW
moments) are measured as tensors; transient ones (gathered bf16 weights, unsharded gradients,
activations, the ring) as the step's peak allocated minus the persistent ones. Fragmentation, as
estimate.footprint applies it: (max_memory_reserved − max_memory_allocated) / transient bytes;
also printed: reserved / allocated − 1 and the non-releasable share (inactive split blocks). The
CUDA context is mem_get_info's used minus memory_reserved. expandable_segments stays off, as in
the trainer (k8s/pods.py gpu_security says why). Runtime well under 4 minutes on an H100."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

GB = 1e9


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--pp", type=int, default=4)
    p.add_argument("--stage", type=int, default=1, help="which stage of --pp to run (0: embedding, pp-1: LM head)")
    p.add_argument("--layers", type=int, default=2, help="decoder layers per stage")
    p.add_argument("--tokens", type=int, default=4096, help="tokens per micro-batch (T)")
    p.add_argument("--micro-batches", type=int, default=6)
    args = p.parse_args()
    assert torch.cuda.is_available(), "needs one CUDA GPU"

    from estimate.footprint import (CUDA_CONTEXT_GB, FRAGMENTATION, Residents, StepShape, footprint)
    from payload.model import Qwen3MoeForCausalLM, Qwen3MoeConfig
    from payload.train.pipeline import PipelineStageModel, ring_sizes
    from payload.train.parallel import init_world, parallelize
    from payload.train.step import build_optimizer
    from spec.hardware import INSTANCE_TYPES
    from spec.layout import TrainerLayout

    pp, s, t, m = args.pp, args.stage, args.tokens, args.micro_batches
    cfg = Qwen3MoeConfig(hidden_size=4096, num_attention_heads=64, num_key_value_heads=4, head_dim=128,
                         moe_intermediate_size=1536, intermediate_size=12288, num_experts=16, num_experts_per_tok=1,
                         num_hidden_layers=args.layers * pp, activation_checkpointing=True, lm_head_keep_logits=False,
                         tie_word_embeddings=False)
    node = INSTANCE_TYPES["p5en.48xlarge"]
    layout = TrainerLayout(pp, 1, 1, 1, pipeline=pp)
    shape = StepShape(tokens=t * m * pp, largest_micro_batch=t, micro_batches=m, mean_sample_tokens=t)
    residents = Residents(publish_bucket_bytes=0, deepep=False)
    predicted = footprint(cfg, layout, shape, node, residents, stage=s).memory_gb

    torch.cuda.init()
    world = init_world(TrainerLayout(1, 1, 1, 1))
    from estimate.stages import split_layers
    layers = split_layers(cfg, pp, t)[s]
    with torch.device("meta"):
        full = Qwen3MoeForCausalLM(cfg)
    stage = PipelineStageModel(full, layers, s, pp)
    stage = stage.to_empty(device="cuda")
    for prm in stage.parameters():
        torch.nn.init.normal_(prm, std=0.02)
    # The loop variable would keep the last parameter's original storage alive once FSDP has
    # copied it into its shard: on the last stage that is the LM head (vocab x hidden fp32,
    # 2.49 GB at these shapes), which the H100 run of 2026-12-07 counted as weights (1.63x).
    del prm
    stage = parallelize(stage, world, ep_backend="local", compute_dtype=torch.bfloat16)
    optimizer = build_optimizer(stage, lr=1e-6, weight_decay=0.0, device=world.device)
    torch.cuda.synchronize()
    free, total = torch.cuda.mem_get_info()
    context_gb = (total - free - torch.cuda.memory_reserved()) / GB
    weights_gb = torch.cuda.memory_allocated() / GB

    d = cfg.hidden_size
    act_ring, grad_ring = ring_sizes(s, pp, m)
    # The ring as payload.train.pipeline's _RingStage keeps it: torch's PipelineStage receives
    # into each slot in place (NCCL writes it outside autograd) and hands the slot itself to the
    # stage as a leaf that requires grad (stage.py _retrieve_recv_activations); stage_backward
    # clears its .grad after reading it. Allocated once, before the steps.
    ring = [torch.empty(1, t, d, dtype=torch.bfloat16, device="cuda").requires_grad_(True) for _ in range(act_ring)]
    grads = [torch.empty(1, t, d, dtype=torch.bfloat16, device="cuda") for _ in range(grad_ring)]
    ring_gb = (len(ring) + len(grads)) * t * d * 2 / GB
    cu = torch.tensor([0, t // 2, t], dtype=torch.int32)
    pos = torch.cat([torch.arange(t // 2), torch.arange(t - t // 2)])[None].cuda()
    ids = torch.randint(0, cfg.vocab_size, (1, t), device="cuda")

    def forward(i):
        if stage.is_first:
            x = ids
        else:
            x = ring[i % len(ring)]  # slot i mod w: its last reader's backward has run (1F1B)
            with torch.no_grad():  # "received": written in place, as NCCL's recv does, outside autograd
                x.normal_()
        kw = dict(next_tokens_BT=ids[:, 1:]) if stage.is_last else {}
        return x, stage(x, pos, cu, **kw)

    def backward(x, y):
        if stage.is_last:
            y.float().sum().backward()
        else:
            with torch.no_grad():
                grads[0].normal_()  # the next stage's gradient, "received" into the one gradient slot
            y.backward(grads[0])
        if not stage.is_first:
            x.grad = None  # as torch's stage_backward does after sending it

    def local_bytes(tensors):
        return sum((t_.to_local() if hasattr(t_, "to_local") else t_).numel() * t_.element_size() for t_ in tensors)

    def step():
        """One 1F1B step and the optimizer's; its memory figures (GB)."""
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        warm = min(m, pp - s)
        live = [forward(i) for i in range(warm)]
        for i in range(warm, m):
            backward(*live.pop(0))
            live.append(forward(i))
        while live:
            backward(*live.pop(0))
        grads_gb = local_bytes(p_.grad for p_ in stage.parameters() if p_.grad is not None) / GB
        optimizer.step()
        moments_gb = local_bytes(v for st in optimizer.state.values() for v in st.values()
                                 if torch.is_tensor(v) and v.is_cuda and v.dim() > 0) / GB
        optimizer.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        stats = torch.cuda.memory_stats()
        return dict(before=before / GB, peak=torch.cuda.max_memory_allocated() / GB,
                    reserved=torch.cuda.max_memory_reserved() / GB, grads=grads_gb, moments=moments_gb,
                    nonreleasable=stats.get("inactive_split_bytes.all.peak", 0) / GB)

    stage.train()
    # AdamW creates its moments at its first step, so the first step is a warm-up: the second is
    # measured (weights, moments and the ring allocated before it), the third shows whether the
    # allocator's reserve still grows.
    steps = [step() for _ in range(3)]
    meas, third = steps[1], steps[2]
    peak, reserved = meas["peak"], meas["reserved"]
    persistent = meas["before"] - ring_gb + meas["grads"]  # sharded weights + moments + sharded grads
    transient = peak - persistent  # gathered bf16 + unsharded grads + activations + the ring
    frag_all = reserved / peak - 1
    frag_transient = (reserved - peak) / transient
    nonreleasable = meas["nonreleasable"] / transient

    outside = ("NCCL communicators", "CUDA context", "DeepEP buffer")
    frag_key = next(k for k in predicted if k.startswith("fragmentation"))
    act_key = next(k for k in predicted if k.startswith("activations"))
    ring_key = next((k for k in predicted if k.startswith("pipeline receive")), None)
    model_ring = predicted[ring_key] if ring_key else 0.0
    gathered = predicted["gathered bf16 weights + unsharded grads"]
    model_persistent = sum(predicted[k] for k in ("weights fp32 (sharded)", "gradients fp32 (sharded)",
                                                  "AdamW moments fp32 (sharded)"))
    model_transient = gathered + predicted[act_key] + model_ring
    model_peak = sum(v for k, v in predicted.items() if k not in outside and k != frag_key)
    rows = [
        ("weights fp32 (sharded)", predicted["weights fp32 (sharded)"], weights_gb),
        ("gradients fp32 (sharded), at the end of backward", predicted["gradients fp32 (sharded)"], meas["grads"]),
        ("AdamW moments fp32 (after the warm-up step)", predicted["AdamW moments fp32 (sharded)"], meas["moments"]),
        ("= persistent (allocated once) [1]", model_persistent, persistent),
        ("pipeline receive buffers (ring)", model_ring, ring_gb),
        ("gathered bf16 + unsharded grads + activations [2]", gathered + predicted[act_key], transient - ring_gb),
        ("= transient (allocated and freed every step)", model_transient, transient),
        ("max_memory_allocated (persistent + transient)", model_peak, peak),
        ("fragmentation: (reserved - allocated) / transient", FRAGMENTATION, frag_transient),
        ("max_memory_reserved", model_peak + predicted[frag_key], reserved),
        ("CUDA context (outside the allocator)", CUDA_CONTEXT_GB, context_gb),
    ]
    print(f"\nStage {s} of PP {pp}: layers {list(layers)}, {t:,}-token micro-batches x {m}, 1F1B warm-up {min(m, pp - s)}, "
          f"ring {act_ring} activation + {grad_ring} gradient buffers, on {torch.cuda.get_device_name()}, "
          f"torch {torch.__version__}; the second of 3 steps measured")
    print(f"  {'term':<52} {'modelled':>10} {'measured':>10} {'meas/model':>10}")
    for name, model, measured in rows:
        unit = "" if "fragmentation" in name else " GB"
        ratio = f"{measured / model:10.2f}" if model else f"{'-':>10}"
        print(f"  {name:<52} {model:10.3f} {measured:10.3f} {ratio}{unit}")
    print("  [1] measured: allocated before the measured step minus the ring, plus the sharded gradients")
    print("  [2] measured: peak allocated minus the persistent bytes and the ring")
    print("\n  fragmentation, three ways (the measured step; expandable_segments off, as the trainer runs):")
    print(f"    reserved / allocated - 1 (of every allocated byte)        {frag_all:8.3f}")
    print(f"    (reserved - allocated) / transient (estimate.footprint's) {frag_transient:8.3f}   "
          f"({reserved - peak:.3f} GB over {transient:.3f} GB)")
    print(f"    non-releasable (inactive split blocks) / transient        {nonreleasable:8.3f}   "
          f"({meas['nonreleasable']:.3f} GB: free blocks inside used segments, which the allocator cannot "
          f"hand back to cudaMalloc; whole free segments it frees before raising OOM)")
    print(f"    reserve growth from the measured step to the next: {third['reserved'] - reserved:+.3f} GB "
          f"(peak allocated {third['peak'] - peak:+.3f} GB)")
    print("\n  every modelled term (estimate.footprint.footprint, the planner's function, scaled config):")
    for name, gb in predicted.items():
        print(f"    {name:<52} {gb:8.3f} GB")
    print(f"\n  From this run: estimate.footprint.FRAGMENTATION ~{frag_transient:.2f} (reserved) or "
          f"~{nonreleasable:.2f} (non-releasable only), CUDA_CONTEXT_GB ~{context_gb:.2f}; the transient model is "
          f"{'over' if transient < model_transient else 'under'}-estimating by {abs(transient - model_transient):.2f} GB "
          f"({transient / model_transient:.2f}x) here.")

if __name__ == "__main__":
    main()
