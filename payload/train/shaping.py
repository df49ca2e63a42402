"""Reward shaping applied where rewards become advantages, and the step's length statistics.

DAPO's soft overlong punishment (arXiv 2503.14476, §3.4; `job.algorithm.overlong_penalty`):
with L_max = batch.max_response_tokens and L_cache = buffer_tokens,

    R_length(y) = 0                                    |y| <= L_max - L_cache
                = ((L_max - L_cache) - |y|) / L_cache  L_max - L_cache < |y| <= L_max
                = -1                                   L_max < |y|

scaled by `factor` and added to the verifier's reward before the group normalisation
(payload.train.advantages.group_advantages). As in verl's DAPO reward manager
(`overlong_buffer`: min(-(|y| - (L_max - L_cache)) / L_cache * penalty_factor, 0)) the penalty
depends only on the length: a response truncated at L_max (finish_reason "length") gets the
full -factor on top of whatever its verifier said about the unfinished text, and one longer
than L_max (none should be: the servers stop at it) gets no more than that. |y| is every
response token, environment replies of a multi-turn episode included: the same count
max_response_tokens caps (payload.rollout.episode).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import torch

from spec.job import OverlongPenalty


def overlong_penalty(lengths_B: torch.Tensor, max_tokens: int, buffer_tokens: int, factor: float = 1.0) -> torch.Tensor:
    """The DAPO length penalty per sample (<= 0), in the dtype of `lengths_B` promoted to float32 at least."""
    if lengths_B.ndim != 1:
        raise ValueError(f"lengths must be 1-D [B], got shape {tuple(lengths_B.shape)}")
    if not 1 <= buffer_tokens <= max_tokens:
        raise ValueError(f"buffer_tokens {buffer_tokens} must be in [1, max_tokens {max_tokens}]")
    lengths = lengths_B.to(torch.promote_types(lengths_B.dtype, torch.float32))
    exceed = lengths - (max_tokens - buffer_tokens)
    return -factor * (exceed / buffer_tokens).clamp(min=0.0, max=1.0)


def shaped_rewards(rewards_B: np.ndarray, lengths_B: Sequence[int], max_tokens: int,
                   penalty: OverlongPenalty | None) -> tuple[np.ndarray, np.ndarray]:
    """(rewards + penalty, penalty) as float64 [B]; penalty all zero when shaping is off."""
    rewards = np.asarray(rewards_B, dtype=np.float64)
    if penalty is None:
        return rewards, np.zeros_like(rewards)
    p = overlong_penalty(torch.tensor(np.asarray(lengths_B), dtype=torch.float64), max_tokens,
                         penalty.buffer_tokens, penalty.factor).numpy()
    return rewards + p, p


def length_metrics(lengths_B: Sequence[int], truncated_B: Sequence[bool], penalties_B: np.ndarray) -> dict[str, float]:
    """The step's response-length statistics: mean, max, p95 (linear interpolation), the
    fraction truncated at the length cap, and the mean overlong penalty (0 when off)."""
    lengths = np.asarray(lengths_B, dtype=np.float64)
    if lengths.size == 0:
        return {}
    return {
        "response_length_mean": float(lengths.mean()),
        "response_length_max": int(lengths.max()),
        "response_length_p95": float(np.percentile(lengths, 95)),
        "response_clip_ratio": float(np.mean(np.asarray(truncated_B, dtype=bool))),
        "overlong_penalty_mean": float(np.mean(penalties_B)),
    }
