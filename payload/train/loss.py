"""The GRPO policy loss: clipped surrogate, dual clip, k3 KL to a reference, off-policy correction
(TIS, sequence mask, IcePop), aggregations.

Per token (PPO / DAPO clip-higher, Schulman's k3 KL estimator, verl's TIS):

    ratio  = exp(logp − old_logp)
    pg     = −min(ratio·A, clamp(ratio, 1 − clip_low, 1 + clip_high)·A)
    pg     = min(pg, −dual_clip·A)                where A < 0 and dual_clip is set
    pg     = pg · w                               (w: the off-policy correction below, detached)
    kl     = exp(ref − logp) − (ref − logp) − 1   (k3, unbiased and ≥ 0)
    loss_t = pg + kl_coef · kl

The off-policy correction (`correction`) weighs each token's policy term by w, from the
trainer-vs-rollout ratio k = exp(old_logp − rollout_logp) (old_logp: the trainer's policy the
batch is trained against; rollout_logp: the engine's, which may be up to `max_staleness`
versions older and runs other kernels / precision):

    tis            w = min(k, tis_cap)                      (verl's token TIS; no weight without tis_cap)
    sequence_mask  w = 1[low ≤ k_seq ≤ high] · min(k, tis_cap),
                   k_seq = exp(mean over the sequence's loss tokens of (old_logp − rollout_logp)),
                   the geometric mean of its token ratios: a sequence outside [low, high] is
                   dropped whole (OpenRLHF `seq-mask-tis`; verl rollout_rs="geometric")
    icepop         w = k · 1[low ≤ k ≤ high]                (IcePop, Ring-1T: M(k) = k inside
                   [α, β], 0 outside; tokens outside are masked, not clipped; tis_cap unused)

Masked tokens stay in the aggregation's denominator (their policy term is 0, as in the IcePop
objective's 1/|y| and OpenRLHF's mask · loss), and their KL term is kept: only the policy
gradient of an off-policy token is dropped. `off_policy_masked_fraction` reports the share
of loss tokens whose policy term a mask zeroed (0 under tis).

Reported beside them, the train-rollout gap (no gradient): rollout_logprob_diff = |old_logp −
rollout_logp| and rollout_kl = k3 of KL(rollout ‖ trainer) = exp(g) − g − 1, g = old_logp −
rollout_logp, means over the sampled tokens: what the rollout engine's kernels and precision
(job.rollout.precision fp8) cost, and what TIS corrects.

Aggregations over the *global* batch (every data-parallel rank's micro-batches together),
with m the token mask and S the number of sequences that have at least one token:

    token-mean               Σ m·loss / Σ m
    seq-mean-token-mean      (1/S) Σ_seq (Σ_t m·loss / Σ_t m)
    seq-mean-token-sum       (1/S) Σ_seq Σ_t m·loss
    seq-mean-token-sum-norm  (1/S) Σ_seq Σ_t m·loss / max_response_tokens   (Dr. GRPO)

Each rank returns its *share*: its own numerator over the global denominator, so that the
sum over ranks and micro-batches is the global loss. The trainer therefore sums gradients
across data-parallel ranks (it does not average them) and never divides by the number of
micro-batches. `loss_denominator` computes the global denominator once per step.
"""

from __future__ import annotations

import math
from typing import Literal

import torch
import torch.distributed as dist

Aggregation = Literal["token-mean", "seq-mean-token-mean", "seq-mean-token-sum", "seq-mean-token-sum-norm"]
AGGREGATIONS: tuple[str, ...] = ("token-mean", "seq-mean-token-mean", "seq-mean-token-sum", "seq-mean-token-sum-norm")
Correction = Literal["tis", "sequence_mask", "icepop"]
CORRECTIONS: tuple[str, ...] = ("tis", "sequence_mask", "icepop")

# exp() of a log-ratio beyond this overflows float32 and turns a clipped (zero-gradient) token
# into inf·0 = NaN; verl clamps at the same value. Real ratios never come near it.
_MAX_LOG_RATIO = 20.0


def _check_aggregation(aggregation: str) -> None:
    if aggregation not in AGGREGATIONS:
        raise ValueError(f"aggregation {aggregation!r} is not one of {', '.join(AGGREGATIONS)}")


def _local_denominator(mask_BT: torch.Tensor, aggregation: str) -> torch.Tensor:
    if aggregation == "token-mean":
        return mask_BT.sum(dtype=torch.float64)
    return mask_BT.any(dim=1).sum(dtype=torch.float64)


def loss_denominator(
    masks_BT: torch.Tensor | list[torch.Tensor],
    aggregation: Aggregation,
    group: dist.ProcessGroup | None = None,
    device: torch.device | str = "cpu",
) -> float:
    """The global denominator for `aggregation`: unmasked tokens (token-mean) or non-empty
    sequences (seq-*), summed over this rank's micro-batches and, when `group` is given,
    over every rank of that (data-parallel) group. Call it on every rank of the group;
    `device` is where the group's backend reduces (CUDA for NCCL)."""
    _check_aggregation(aggregation)
    masks = [masks_BT] if isinstance(masks_BT, torch.Tensor) else masks_BT
    total = torch.zeros((), dtype=torch.float64)
    for mask_BT in masks:
        total += _local_denominator(mask_BT.bool().cpu(), aggregation)
    total = total.to(device)
    if group is not None:
        dist.all_reduce(total, group=group)
    return float(total)


def _aggregate(
    loss_BT: torch.Tensor,
    mask_BT: torch.Tensor,
    aggregation: str,
    denominator: float,
    max_response_tokens: int,
) -> torch.Tensor:
    zero = torch.zeros((), dtype=loss_BT.dtype, device=loss_BT.device)
    masked_BT = torch.where(mask_BT, loss_BT, zero)
    if aggregation == "token-mean":
        return masked_BT.sum() / denominator
    sums_B = masked_BT.sum(dim=1)
    if aggregation == "seq-mean-token-mean":
        sums_B = sums_B / mask_BT.sum(dim=1).clamp(min=1)
    elif aggregation == "seq-mean-token-sum-norm":
        sums_B = sums_B / max_response_tokens
    return sums_B.sum() / denominator


def _masked_mean(x_BT: torch.Tensor, mask_BT: torch.Tensor) -> torch.Tensor:
    x_BT = x_BT.detach()
    return torch.where(mask_BT, x_BT, torch.zeros_like(x_BT)).sum() / mask_BT.sum().clamp(min=1)


def grpo_loss(
    logprobs_BT: torch.Tensor,
    old_logprobs_BT: torch.Tensor,
    advantages_B: torch.Tensor,
    mask_BT: torch.Tensor,
    *,
    clip_low: float = 0.2,
    clip_high: float = 0.28,
    dual_clip: float | None = None,
    ref_logprobs_BT: torch.Tensor | None = None,
    kl_coef: float = 0.0,
    rollout_logprobs_BT: torch.Tensor | None = None,
    tis_cap: float | None = None,
    correction: Correction = "tis",
    correction_low: float = 0.5,
    correction_high: float = 5.0,
    aggregation: Aggregation = "token-mean",
    max_response_tokens: int | None = None,
    denominator: float | None = None,
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """The loss (a scalar with gradient w.r.t. `logprobs_BT`) and detached metrics.

    Shapes: logprobs / old / ref / rollout logprobs and mask `[B, T]`, advantages `[B]`.
    `denominator`: the global one from `loss_denominator` (default: this batch alone).
    `max_response_tokens`: the constant of seq-mean-token-sum-norm (default: T).
    `correction`, `correction_low`, `correction_high`: the off-policy correction and its
    acceptance interval [low, high] (sequence_mask: of the sequence's geometric-mean ratio;
    icepop: of each token's ratio); see the module docstring.
    Metrics are means over this batch's unmasked tokens.
    """
    _check_aggregation(aggregation)
    if correction not in CORRECTIONS:
        raise ValueError(f"correction {correction!r} is not one of {', '.join(CORRECTIONS)}")
    if correction != "tis":
        if not 0 < correction_low < 1 < correction_high:
            raise ValueError(f"correction bounds must satisfy 0 < low < 1 < high, got [{correction_low}, {correction_high}]")
        if rollout_logprobs_BT is None:
            raise ValueError(f"correction {correction} needs rollout logprobs")
    if dual_clip is not None and dual_clip <= 1.0:
        raise ValueError(f"dual_clip must be > 1, got {dual_clip}")
    if logprobs_BT.ndim != 2 or advantages_B.shape != logprobs_BT.shape[:1]:
        raise ValueError(
            f"expected logprobs [B, T] and advantages [B], got {tuple(logprobs_BT.shape)} and {tuple(advantages_B.shape)}"
        )
    mask_BT = mask_BT.bool()
    if denominator is None:
        denominator = float(_local_denominator(mask_BT, aggregation))
    denominator = max(denominator, 1.0)  # a step with no tokens contributes 0, not NaN
    max_response_tokens = max_response_tokens or logprobs_BT.shape[1]

    advantages_B1 = advantages_B.to(logprobs_BT.dtype).unsqueeze(1)
    log_ratio_BT = (logprobs_BT - old_logprobs_BT).clamp(-_MAX_LOG_RATIO, _MAX_LOG_RATIO)
    ratio_BT = torch.exp(log_ratio_BT)
    unclipped_BT = ratio_BT * advantages_B1
    clipped_BT = ratio_BT.clamp(1.0 - clip_low, 1.0 + clip_high) * advantages_B1
    pg_BT = -torch.minimum(unclipped_BT, clipped_BT)
    metrics = {"clip_fraction": _masked_mean((clipped_BT < unclipped_BT).to(pg_BT.dtype), mask_BT)}
    if dual_clip is not None:
        # For A < 0 the clipped objective is unbounded as the ratio grows; dual clip caps it.
        bound_BT = -dual_clip * advantages_B1
        dual_BT = (advantages_B1 < 0) & (pg_BT > bound_BT)
        pg_BT = torch.where(dual_BT, bound_BT.expand_as(pg_BT), pg_BT)
        metrics["dual_clip_fraction"] = _masked_mean(dual_BT.to(pg_BT.dtype), mask_BT)
    if rollout_logprobs_BT is not None:
        # The train-rollout gap (what an FP8 or otherwise different rollout engine costs): the
        # mean |old_logp - rollout_logp| and k3's KL(rollout || trainer) over the sampled tokens.
        gap_BT = (old_logprobs_BT - rollout_logprobs_BT).clamp(-_MAX_LOG_RATIO, _MAX_LOG_RATIO).detach()
        metrics["rollout_logprob_diff"] = _masked_mean(gap_BT.abs(), mask_BT)
        metrics["rollout_kl"] = _masked_mean(torch.exp(gap_BT) - 1.0 - gap_BT, mask_BT)
    if correction == "icepop":
        # IcePop (Ring-1T): the ratio itself inside [low, high], 0 outside (masked, not clipped).
        k_BT = torch.exp(gap_BT)
        keep_BT = (k_BT >= correction_low) & (k_BT <= correction_high)
        weight_BT = torch.where(keep_BT, k_BT, torch.zeros_like(k_BT))
        metrics["off_policy_masked_fraction"] = _masked_mean((~keep_BT).to(pg_BT.dtype), mask_BT)
        metrics["tis_weight_mean"] = _masked_mean(weight_BT, mask_BT)
        pg_BT = pg_BT * weight_BT
    elif tis_cap is not None or correction == "sequence_mask":
        if rollout_logprobs_BT is None:
            raise ValueError("tis_cap is set but no rollout logprobs were given")
        gap_BT = (old_logprobs_BT - rollout_logprobs_BT).clamp(-_MAX_LOG_RATIO, _MAX_LOG_RATIO).detach()
        weight_BT = torch.exp(gap_BT)
        if tis_cap is not None:
            metrics["tis_clip_fraction"] = _masked_mean((weight_BT > tis_cap).to(pg_BT.dtype), mask_BT)
            weight_BT = weight_BT.clamp(max=tis_cap)
        if correction == "sequence_mask":
            # The sequence's geometric-mean ratio over its loss tokens (log space; an empty row is 1).
            zero = torch.zeros_like(gap_BT)
            seq_log_B1 = (torch.where(mask_BT, gap_BT, zero).sum(dim=1, keepdim=True)
                          / mask_BT.sum(dim=1, keepdim=True).clamp(min=1))
            keep_B1 = (seq_log_B1 >= math.log(correction_low)) & (seq_log_B1 <= math.log(correction_high))
            weight_BT = torch.where(keep_B1, weight_BT, zero)
            metrics["off_policy_masked_fraction"] = _masked_mean((~keep_B1).expand_as(mask_BT).to(pg_BT.dtype), mask_BT)
        metrics["tis_weight_mean"] = _masked_mean(weight_BT, mask_BT)
        pg_BT = pg_BT * weight_BT
    if correction == "tis" and rollout_logprobs_BT is not None:
        metrics["off_policy_masked_fraction"] = torch.zeros((), dtype=pg_BT.dtype, device=pg_BT.device)

    policy_loss = _aggregate(pg_BT, mask_BT, aggregation, denominator, max_response_tokens)
    loss = policy_loss
    metrics["policy_loss"] = policy_loss.detach()
    if ref_logprobs_BT is not None and kl_coef > 0:
        delta_BT = (ref_logprobs_BT - logprobs_BT).clamp(-_MAX_LOG_RATIO, _MAX_LOG_RATIO)
        kl_BT = torch.exp(delta_BT) - delta_BT - 1.0
        kl_loss = _aggregate(kl_BT, mask_BT, aggregation, denominator, max_response_tokens)
        loss = loss + kl_coef * kl_loss
        metrics["kl_loss"] = kl_loss.detach()
        metrics["ref_kl"] = _masked_mean(kl_BT, mask_BT)

    # k3 estimate of KL(old ‖ new): how far this update has moved the policy.
    metrics["approx_kl"] = _masked_mean(ratio_BT - 1.0 - log_ratio_BT, mask_BT)
    metrics["ratio_mean"] = _masked_mean(ratio_BT, mask_BT)
    # ±inf when no token is unmasked; masked selection rather than indexing (no host sync).
    ratio = ratio_BT.detach()
    metrics["ratio_max"] = torch.where(mask_BT, ratio, torch.full_like(ratio, -torch.inf)).amax()
    metrics["ratio_min"] = torch.where(mask_BT, ratio, torch.full_like(ratio, torch.inf)).amin()
    metrics["loss"] = loss.detach()
    return loss, metrics
