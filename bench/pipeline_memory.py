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
with the scaled config, layout PP × 1 GPU, and `stage=`; fragmentation is measured as
memory_reserved / max_memory_allocated − 1, the CUDA context as mem_get_info's used minus
memory_reserved. Runtime well under 4 minutes on an H100."""

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
    stage = parallelize(stage, world, ep_backend="local", compute_dtype=torch.bfloat16)
    optimizer = build_optimizer(stage, lr=1e-6, weight_decay=0.0, device=world.device)
    torch.cuda.synchronize()
    free, total = torch.cuda.mem_get_info()
    context_gb = (total - free - torch.cuda.memory_reserved()) / GB
    state_gb = torch.cuda.memory_allocated() / GB

    d = cfg.hidden_size
    act_ring, grad_ring = ring_sizes(s, pp, m)
    ring = [torch.empty(1, t, d, dtype=torch.bfloat16, device="cuda") for _ in range(max(act_ring, 0))]
    grads = [torch.empty(1, t, d, dtype=torch.bfloat16, device="cuda") for _ in range(grad_ring)]
    cu = torch.tensor([0, t // 2, t], dtype=torch.int32)
    pos = torch.cat([torch.arange(t // 2), torch.arange(t - t // 2)])[None].cuda()
    ids = torch.randint(0, cfg.vocab_size, (1, t), device="cuda")

    def forward(i):
        if stage.is_first:
            x = ids
        else:
            x = ring[i % len(ring)].normal_().requires_grad_(True)  # "received"
        kw = dict(next_tokens_BT=ids[:, 1:]) if stage.is_last else {}
        return x, stage(x, pos, cu, **kw)

    def backward(x, y):
        if stage.is_last:
            y.float().sum().backward()
        else:
            g = grads[0].normal_()
            y.backward(g)
        if not stage.is_first:
            x.grad = None

    stage.train()
    for step in range(2):  # the second step is measured (optimizer state exists)
        torch.cuda.reset_peak_memory_stats()
        warm = min(m, pp - s)
        live = [forward(i) for i in range(warm)]
        for i in range(warm, m):
            backward(*live.pop(0))
            live.append(forward(i))
        while live:
            backward(*live.pop(0))
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() / GB
    reserved = torch.cuda.max_memory_reserved() / GB
    frag = reserved / peak - 1

    state_terms = ("weights fp32 (sharded)", "gradients fp32 (sharded)", "AdamW moments fp32 (sharded)")
    model_state = sum(v for k, v in predicted.items() if k in state_terms)
    act_key = next(k for k in predicted if k.startswith("activations"))
    ring_key = next((k for k in predicted if k.startswith("pipeline receive")), None)
    gathered = predicted["gathered bf16 weights + unsharded grads"]
    ring_measured = (len(ring) + len(grads)) * t * d * 2 / GB
    step_predicted = gathered + predicted[act_key]
    step_measured = peak - state_gb - ring_measured
    rows = [
        ("model state (fp32 weights, grads, AdamW) [1]", model_state, None),
        ("  weights + AdamW allocated before the step", predicted["weights fp32 (sharded)"] + predicted["AdamW moments fp32 (sharded)"], state_gb),
        ("pipeline receive buffers (ring)", predicted.get(ring_key, 0.0) if ring_key else 0.0, ring_measured),
        ("gathered bf16 + unsharded grads + activations [2]", step_predicted + predicted["gradients fp32 (sharded)"], step_measured),
        ("max_memory_allocated (sum of the above)", sum(v for k, v in predicted.items() if k not in
         ("NCCL communicators", "CUDA context") and not k.startswith("fragmentation")), peak),
        ("fragmentation (reserved / allocated - 1)", FRAGMENTATION, frag),
        ("CUDA context (outside the allocator)", CUDA_CONTEXT_GB, context_gb),
    ]
    print(f"\nStage {s} of PP {pp}: layers {list(layers)}, {t:,}-token micro-batches x {m}, 1F1B warm-up {min(m, pp - s)}, "
          f"ring {act_ring} activation + {grad_ring} gradient buffers, on {torch.cuda.get_device_name()}")
    print(f"  {'term':<52} {'modelled':>10} {'measured':>10} {'meas/model':>10}")
    for name, model, measured in rows:
        unit = "" if "fragmentation" in name else " GB"
        ms = "" if measured is None else f"{measured:10.3f}"
        ratio = "" if measured is None or not model else f"{measured / model:10.2f}"
        print(f"  {name:<52} {model:10.3f} {ms:>10} {ratio:>10}{unit}")
    print("  [1] predicted; measured as the next row (the gradients are part of the step's peak)")
    print("  [2] peak allocated minus what was allocated before the step and the ring")
    print("\n  every modelled term (estimate.footprint.footprint, the planner's function, scaled config):")
    for name, gb in predicted.items():
        print(f"    {name:<52} {gb:8.3f} GB")
    print(f"\n  Set estimate.footprint.FRAGMENTATION to ~{frag:.2f} and CUDA_CONTEXT_GB to ~{context_gb:.1f} from this run; "
          f"the activation model is {'over' if step_measured < step_predicted else 'under'}-estimating by "
          f"{abs(step_measured - step_predicted - predicted['gradients fp32 (sharded)']):.2f} GB here.")


if __name__ == "__main__":
    main()
