"""Group-relative advantages (GRPO) and the DAPO filter for groups that carry no signal.

Rewards arrive as one flat vector `rewards_B` where every `group_size` consecutive entries
are the samples of one prompt (the order the buffer hands groups out in).
"""

from __future__ import annotations

from typing import Literal

import torch

AdvantageScale = Literal["group", "batch", "none"]
ADVANTAGE_SCALES: tuple[str, ...] = ("group", "batch", "none")


def _grouped(rewards_B: torch.Tensor, group_size: int) -> torch.Tensor:
    if rewards_B.ndim != 1:
        raise ValueError(f"rewards must be 1-D [B], got shape {tuple(rewards_B.shape)}")
    if group_size < 1 or rewards_B.numel() % group_size:
        raise ValueError(f"group_size {group_size} must divide the batch of {rewards_B.numel()} rewards")
    return rewards_B.reshape(-1, group_size)


def group_advantages(
    rewards_B: torch.Tensor,
    group_size: int,
    scale: AdvantageScale = "group",
    eps: float = 1e-6,
) -> torch.Tensor:
    """(r − group mean) / (std + eps), one advantage per sample, shape [B].

    scale="group": std of the sample's own group (GRPO, DeepSeekMath).
    scale="batch": std of the whole batch (more robust when groups are small; TRL's "batch").
    scale="none":  no division (Dr. GRPO: the std term biases towards easy/hard prompts).
    The std is the unbiased (Bessel-corrected) estimate, as in verl and TRL. A group whose
    rewards are all equal gets exactly zero advantage under every scale.
    """
    if scale not in ADVANTAGE_SCALES:
        raise ValueError(f"advantage scale {scale!r} is not one of {', '.join(ADVANTAGE_SCALES)}")
    rewards_GN = _grouped(rewards_B, group_size).to(torch.promote_types(rewards_B.dtype, torch.float32))
    centered_GN = rewards_GN - rewards_GN.mean(dim=1, keepdim=True)
    if scale == "group":
        # A group of one has no spread to measure; its centred reward is zero anyway.
        std_G1 = rewards_GN.std(dim=1, keepdim=True) if group_size > 1 else torch.zeros_like(centered_GN)
        centered_GN = centered_GN / (std_G1 + eps)
    elif scale == "batch":
        std = rewards_GN.std() if rewards_GN.numel() > 1 else torch.zeros((), dtype=rewards_GN.dtype)
        centered_GN = centered_GN / (std + eps)
    return centered_GN.reshape(-1)


def informative_groups(rewards_B: torch.Tensor, group_size: int) -> torch.Tensor:
    """Per group, True when its rewards are not all equal (DAPO dynamic sampling keeps these).

    A group of equal rewards has zero advantage for every sample: it costs a forward and
    backward pass and moves nothing but the KL term, so the trainer may drop it.
    """
    rewards_GN = _grouped(rewards_B, group_size)
    return (rewards_GN != rewards_GN[:, :1]).any(dim=1)
