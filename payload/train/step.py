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

from torch.distributed.fsdp import FSDPModule

from payload.model import Qwen3MoeForCausalLM, compute_logprobs
from payload.train.batch import MicroBatch
from payload.train.loss import Aggregation, Correction, grpo_loss, loss_denominator
from payload.train.parallel import clip_grad_norm_

_SHARES = ("loss", "policy_loss", "kl_loss", "aux_loss")
_MEANS = ("clip_fraction", "dual_clip_fraction", "tis_clip_fraction", "tis_weight_mean", "ref_kl", "approx_kl", "ratio_mean",
          "rollout_logprob_diff", "rollout_kl", "off_policy_masked_fraction")


@dataclass
class LossConfig:
    clip_low: float = 0.2
    clip_high: float = 0.28
    dual_clip: float | None = None
    kl_coef: float = 0.0
    tis_cap: float | None = 2.0
    off_policy_correction: Correction = "tis"
    off_policy_low: float = 0.5
    off_policy_high: float = 5.0
    aggregation: Aggregation = "token-mean"
    max_response_tokens: int | None = None
    router_aux_loss_coef: float = 0.0
    max_grad_norm: float = 1.0
    temperature: float = 1.0


class StepTotals:
    """A step's metrics, summed on the device and reduced once (one host sync per step, not
    one per metric). Loss terms are shares of the global loss: they add up over micro-batches
    and ranks. Every other metric is a mean over unmasked tokens: summed weighted by the
    token count. Extremes (ratio max / min) are reduced by MAX."""

    def __init__(self, device: torch.device) -> None:
        self.sums = torch.zeros(len(_SHARES) + 2 * len(_MEANS) + 1, dtype=torch.float64, device=device)
        self.extremes = torch.full((2,), -math.inf, dtype=torch.float64, device=device)  # max ratio, -min ratio

    def add(self, metrics: dict[str, torch.Tensor], masked_tokens: torch.Tensor, tokens: int) -> None:
        sums = self.sums
        sums[-1] += tokens
        for i, key in enumerate(_SHARES):
            if key in metrics:
                sums[i] += metrics[key]
        for i, key in enumerate(_MEANS):
            if key in metrics:
                sums[len(_SHARES) + 2 * i] += metrics[key] * masked_tokens
                sums[len(_SHARES) + 2 * i + 1] += masked_tokens
        self.extremes = torch.maximum(self.extremes, torch.stack([metrics["ratio_max"], -metrics["ratio_min"]]).double())

    def reduce(self, group: dist.ProcessGroup | None) -> dict[str, float]:
        """The global metrics (collective over `group`; None: this process alone)."""
        if group is not None and dist.get_world_size(group) > 1:
            dist.all_reduce(self.sums, group=group)
            dist.all_reduce(self.extremes, op=dist.ReduceOp.MAX, group=group)
        totals, extremes = self.sums.tolist(), self.extremes.tolist()
        result = {key: totals[i] for i, key in enumerate(_SHARES)}
        for i, key in enumerate(_MEANS):
            if totals[len(_SHARES) + 2 * i + 1]:
                result[key] = totals[len(_SHARES) + 2 * i] / totals[len(_SHARES) + 2 * i + 1]
        if extremes[0] > -math.inf:
            result.update(ratio_max=extremes[0], ratio_min=-extremes[1])
        result["tokens"] = totals[-1]
        return result


def build_optimizer(model: torch.nn.Module, lr: float, weight_decay: float, device: torch.device) -> torch.optim.AdamW:
    # The fused kernel reads and writes each fp32 state once per step (the foreach path makes
    # several passes): on GPU the optimizer step is memory-bound, so that is what it costs.
    return torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay, fused=device.type == "cuda")


def _sync_gradients(model: FSDPModule, last: bool) -> None:
    """Before each micro-batch: reduce gradients and reshard only around the last one (and there
    only the modules parallelize set to reshard after forward)."""
    model.set_requires_gradient_sync(last)
    model.set_reshard_after_backward(last)
    for module in model.modules():  # the root keeps its own setting (it never reshards after forward)
        if isinstance(module, FSDPModule) and module is not model:
            module.set_reshard_after_forward(last and getattr(module, "fsdp_reshard_after_forward", True), recurse=False)


def train_step(
    model: Qwen3MoeForCausalLM,
    optimizer: torch.optim.Optimizer,
    micro: list[MicroBatch],
    config: LossConfig,
    group: dist.ProcessGroup | None = None,
    reference: Qwen3MoeForCausalLM | None = None,
    device: torch.device = torch.device("cpu"),
    norm_group: dist.ProcessGroup | None = None,
    sync_every_micro_batch: bool = False,
) -> dict[str, float]:
    """Forward/backward every micro-batch, clip, step. `group`: the data-parallel group the
    loss is normalised over (all trainer ranks), None for one process. `norm_group`: the ranks
    that together hold every gradient element once (World.replica_group under HSDP); default
    `group`. Returns the step's metrics over the whole global batch (the same numbers on every
    rank).

    Gradients are reduced once per step: before every micro-batch but the last, FSDP2 keeps
    the parameters gathered and the gradients unsharded and accumulating (fp32) instead of
    all-gathering and reduce-scattering per micro-batch. That holds this rank's whole unsharded
    gradient (4 B × its parameters, experts its EP slice): `sync_every_micro_batch` trades the
    traffic back for that memory; the cross-replica all-reduce stays once per step either way
    (`python -m payload plan`)."""
    started = time.perf_counter()
    model.train()
    denominator = loss_denominator([mb.loss_mask_BT1 for mb in micro], config.aggregation, group, device)
    world = 1 if group is None else dist.get_world_size(group)
    totals = StepTotals(device)
    accumulate = isinstance(model, FSDPModule) and len(micro) > 1
    for index, mb in enumerate(micro):
        last = index == len(micro) - 1
        if accumulate and sync_every_micro_batch:
            # Reduce-scatter every micro-batch (gradients stay sharded) but all-reduce across
            # HSDP replicas once, after the last: FSDP2 adds the earlier micro-batches'
            # reduce-scattered shards into that one (a no-op without replicas).
            model.set_requires_all_reduce(last)
        elif accumulate:
            _sync_gradients(model, last)
        tokens = mb.num_tokens
        mb = mb.to(device)
        routed = mb.routed_experts_BTLK
        # Padded micro-batches are right-padded, so under causal attention no real token sees a
        # pad and positions are 0..n-1 either way: without a mask SDPA takes its flash kernel.
        # The mask is needed only to keep pads out of the router's load-balancing statistics.
        # Packed ones have no pads; their sequences' boundaries are cu_seqlens.
        mask = mb.attention_mask_BT if config.router_aux_loss_coef > 0 and not mb.packed else None

        def logprobs_of(m):
            logprobs, out = compute_logprobs(m, mb.input_ids_BT, mask, routed, config.temperature,
                                             mb.cu_seqlens, mb.position_ids_BT)
            if mb.packed:  # each sample's shifted-frame logprobs out of the packed row: [B, L-1]
                logprobs = logprobs[0][mb.unpack_BT1]
            return logprobs, out

        logprobs, out = logprobs_of(model)
        ref_logprobs = None
        if reference is not None and config.kl_coef > 0:
            with torch.no_grad():
                ref_logprobs, _ = logprobs_of(reference)
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
            correction=config.off_policy_correction,
            correction_low=config.off_policy_low,
            correction_high=config.off_policy_high,
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
        totals.add(metrics, mb.loss_mask_BT1.sum(), tokens)
    result = totals.reduce(group if world > 1 else None)
    grad_norm = clip_grad_norm_(list(model.parameters()), config.max_grad_norm, norm_group or group)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    result.update(grad_norm=float(grad_norm), step_seconds=time.perf_counter() - started)
    return result
