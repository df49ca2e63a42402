"""One GRPO optimizer step over this rank's micro-batches.

The trainer takes one optimizer step per batch of experience, so the policy the ratio is
measured against ("old") is the current one before the step: its logprobs are the ones this
forward computes, detached (no second forward). The rollout engine's logprobs enter through
TIS: they differ from the trainer's by engine numerics and by staleness (the batch may have
been sampled by an earlier policy version).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import torch
import torch.distributed as dist

from payload.model import Qwen3MoeForCausalLM, compute_logprobs
from payload.train.batch import MicroBatch
from payload.train.loss import Aggregation, grpo_loss, loss_denominator
from payload.train.parallel import clip_grad_norm_


@dataclass
class LossConfig:
    clip_low: float = 0.2
    clip_high: float = 0.28
    dual_clip: float | None = None
    kl_coef: float = 0.0
    tis_cap: float | None = 2.0
    aggregation: Aggregation = "token-mean"
    max_response_tokens: int | None = None
    router_aux_loss_coef: float = 0.0
    max_grad_norm: float = 1.0
    temperature: float = 1.0


def train_step(
    model: Qwen3MoeForCausalLM,
    optimizer: torch.optim.Optimizer,
    micro: list[MicroBatch],
    config: LossConfig,
    group: dist.ProcessGroup | None = None,
    reference: Qwen3MoeForCausalLM | None = None,
    device: torch.device = torch.device("cpu"),
) -> dict[str, float]:
    """Forward/backward every micro-batch, clip, step. `group`: the data-parallel group the
    loss is normalised over (all trainer ranks), None for one process. Returns this rank's
    metrics (token-weighted means over its micro-batches; loss terms are its shares)."""
    started = time.perf_counter()
    model.train()
    denominator = loss_denominator([mb.loss_mask_BT1 for mb in micro], config.aggregation, group)
    world = 1 if group is None else dist.get_world_size(group)
    sums: dict[str, float] = {}
    weights: dict[str, float] = {}
    tokens = 0
    for mb in micro:
        mb = mb.to(device)
        routed = mb.routed_experts_BTLK
        logprobs, out = compute_logprobs(model, mb.input_ids_BT, mb.attention_mask_BT, routed, config.temperature)
        ref_logprobs = None
        if reference is not None and config.kl_coef > 0:
            with torch.no_grad():
                ref_logprobs, _ = compute_logprobs(reference, mb.input_ids_BT, mb.attention_mask_BT, routed, config.temperature)
        loss, metrics = grpo_loss(
            logprobs,
            logprobs.detach(),
            mb.advantages_B,
            mb.loss_mask_BT1,
            clip_low=config.clip_low,
            clip_high=config.clip_high,
            dual_clip=config.dual_clip,
            ref_logprobs_BT=ref_logprobs,
            kl_coef=config.kl_coef,
            rollout_logprobs_BT=mb.rollout_logprobs_BT1,
            tis_cap=config.tis_cap,
            aggregation=config.aggregation,
            max_response_tokens=config.max_response_tokens,
            denominator=denominator,
        )
        if config.router_aux_loss_coef > 0:
            # A mean per micro-batch; gradients are summed over micro-batches and ranks.
            loss = loss + config.router_aux_loss_coef * out.aux_loss / (len(micro) * world)
            metrics["aux_loss"] = out.aux_loss.detach()
        loss.backward()
        n = int(mb.loss_mask_BT1.sum())
        tokens += mb.num_tokens
        for key, value in metrics.items():
            if key in ("loss", "policy_loss", "kl_loss"):  # shares: they add up
                sums[key] = sums.get(key, 0.0) + float(value)
                weights[key] = 1.0
            elif key in ("ratio_max", "ratio_min"):
                pick = max if key == "ratio_max" else min
                sums[key] = pick(sums.get(key, float(value)), float(value))
                weights[key] = 1.0
            elif n:
                sums[key] = sums.get(key, 0.0) + float(value) * n
                weights[key] = weights.get(key, 0.0) + n
    grad_norm = clip_grad_norm_(list(model.parameters()), config.max_grad_norm, group)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    result = {k: sums[k] / weights[k] for k in sums if weights[k]}
    result.update(grad_norm=float(grad_norm), tokens=float(tokens), step_seconds=time.perf_counter() - started)
    return result
