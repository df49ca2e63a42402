"""One GRPO optimizer step over this rank's micro-batches.

The trainer takes one optimizer step per batch of experience, so the policy the ratio is
measured against ("old") is the current one before the step: its logprobs are the ones this
forward computes, detached (no second forward). The rollout engine's logprobs enter through
TIS: they differ from the trainer's by engine numerics and by staleness (the batch may have
been sampled by an earlier policy version).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import torch
import torch.distributed as dist

from payload.model import Qwen3MoeForCausalLM, compute_logprobs
from payload.train.batch import MicroBatch
from payload.train.loss import Aggregation, grpo_loss, loss_denominator
from payload.train.parallel import clip_grad_norm_

_SHARES = ("loss", "policy_loss", "kl_loss", "aux_loss")
_MEANS = ("clip_fraction", "dual_clip_fraction", "tis_clip_fraction", "tis_weight_mean", "ref_kl", "approx_kl", "ratio_mean")


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
    loss is normalised over (all trainer ranks), None for one process. Returns the step's
    metrics over the whole global batch (the same numbers on every rank)."""
    started = time.perf_counter()
    model.train()
    denominator = loss_denominator([mb.loss_mask_BT1 for mb in micro], config.aggregation, group)
    world = 1 if group is None else dist.get_world_size(group)
    # Loss terms are shares of the global loss: they add up over micro-batches and ranks.
    # Every other metric is a mean over unmasked tokens: summed weighted by the token count.
    totals = torch.zeros(len(_SHARES) + 2 * len(_MEANS) + 1, dtype=torch.float64)
    extremes = torch.tensor([-math.inf, -math.inf], dtype=torch.float64)  # max ratio, -min ratio
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
            aux = config.router_aux_loss_coef * out.aux_loss / (len(micro) * world)
            loss = loss + aux
            metrics["aux_loss"] = aux.detach()
            metrics["loss"] = loss.detach()
        loss.backward()
        n = float(mb.loss_mask_BT1.sum())
        for i, key in enumerate(_SHARES):
            if key in metrics:
                totals[i] += float(metrics[key])
        for i, key in enumerate(_MEANS):
            if key in metrics and n:
                totals[len(_SHARES) + 2 * i] += float(metrics[key]) * n
                totals[len(_SHARES) + 2 * i + 1] += n
        totals[-1] += mb.num_tokens
        if "ratio_max" in metrics:
            extremes = torch.maximum(extremes, torch.tensor([float(metrics["ratio_max"]), -float(metrics["ratio_min"])]))
    if group is not None and world > 1:
        dist.all_reduce(totals, group=group)
        dist.all_reduce(extremes, op=dist.ReduceOp.MAX, group=group)
    grad_norm = clip_grad_norm_(list(model.parameters()), config.max_grad_norm, group)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    result = {key: float(totals[i]) for i, key in enumerate(_SHARES)}
    for i, key in enumerate(_MEANS):
        weight = float(totals[len(_SHARES) + 2 * i + 1])
        if weight:
            result[key] = float(totals[len(_SHARES) + 2 * i]) / weight
    if extremes[0] > -math.inf:
        result.update(ratio_max=float(extremes[0]), ratio_min=-float(extremes[1]))
    result.update(grad_norm=float(grad_norm), tokens=float(totals[-1]), step_seconds=time.perf_counter() - started)
    return result
