"""From sampled responses to padded training tensors, split over data-parallel ranks.

A `Sample` is one response of one prompt: the prompt and response token ids, the rollout
engine's logprob of every response token, the reward, and (routing replay) the experts the
engine used for every token. The logprob of token t+1 is computed at position t, so every
per-token tensor here lives in that shifted frame: `[B, T-1]`, position t for token t+1.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class Sample:
    prompt_ids: list[int]
    response_ids: list[int]
    rollout_logprobs: list[float]  # one per response token
    reward: float
    advantage: float = 0.0
    # Routing replay: the experts the engine used at every position it ran, [P + R - 1, L, K]
    # (SGLang's return_routed_experts; the last token is sampled, never run).
    routed_experts: torch.Tensor | None = None

    def __post_init__(self) -> None:
        if len(self.rollout_logprobs) != len(self.response_ids):
            raise ValueError(
                f"{len(self.rollout_logprobs)} rollout logprobs for {len(self.response_ids)} response tokens"
            )


@dataclass
class MicroBatch:
    input_ids_BT: torch.Tensor
    attention_mask_BT: torch.Tensor
    loss_mask_BT1: torch.Tensor  # bool: response tokens (shifted frame)
    rollout_logprobs_BT1: torch.Tensor
    advantages_B: torch.Tensor
    routed_experts_BTLK: torch.Tensor | None

    @property
    def num_tokens(self) -> int:
        return int(self.attention_mask_BT.sum())

    def to(self, device: torch.device) -> "MicroBatch":
        move = lambda t: None if t is None else t.to(device, non_blocking=True)  # noqa: E731
        return MicroBatch(*(move(getattr(self, f)) for f in self.__dataclass_fields__))


def collate(samples: list[Sample], pad_id: int = 0, pad_to: int = 1) -> MicroBatch:
    """Right-pad `samples` into one micro-batch (T rounded up to a multiple of `pad_to`).

    An empty list gives one all-padding row: ranks with fewer samples still take part in
    every expert-parallel collective, and the row contributes nothing to the loss."""
    rows = samples or [Sample([pad_id], [], [], 0.0)]
    length = max(len(s.prompt_ids) + len(s.response_ids) for s in rows)
    length = max(2, -(-length // pad_to) * pad_to)
    b = len(rows)
    input_ids = torch.full((b, length), pad_id, dtype=torch.long)
    attention = torch.zeros(b, length, dtype=torch.long)
    loss_mask = torch.zeros(b, length - 1, dtype=torch.bool)
    rollout = torch.zeros(b, length - 1, dtype=torch.float32)
    with_routes = [s.routed_experts for s in samples if s.routed_experts is not None]
    routed = None
    if with_routes:
        if len(with_routes) != len(samples):
            raise ValueError("routing replay needs routed experts for every sample of a batch or none")
        routed = torch.zeros(b, length, *with_routes[0].shape[1:], dtype=torch.long)
    for i, s in enumerate(samples):
        p, r = len(s.prompt_ids), len(s.response_ids)
        input_ids[i, : p + r] = torch.tensor(s.prompt_ids + s.response_ids)
        attention[i, : p + r] = 1
        # Token p+j (response token j) is predicted at position p+j-1.
        loss_mask[i, p - 1 : p - 1 + r] = True
        rollout[i, p - 1 : p - 1 + r] = torch.tensor(s.rollout_logprobs, dtype=torch.float32)
        if routed is not None:
            if s.routed_experts.shape[0] != p + r - 1:
                raise ValueError(f"routed experts cover {s.routed_experts.shape[0]} positions, expected {p + r - 1}")
            # The last position's route is never used: its logits predict nothing we train on.
            routed[i, : p + r - 1] = s.routed_experts
    advantages = torch.tensor([s.advantage for s in samples] or [0.0], dtype=torch.float32)
    return MicroBatch(input_ids, attention, loss_mask, rollout, advantages, routed)


def shard_for_rank(samples: list[Sample], rank: int, world_size: int) -> list[Sample]:
    """This rank's contiguous share; shares differ by at most one sample."""
    per, extra = divmod(len(samples), world_size)
    start = rank * per + min(rank, extra)
    return samples[start : start + per + (rank < extra)]


def micro_batches(samples: list[Sample], micro_batch_size: int, num_micro_batches: int, pad_id: int = 0) -> list[MicroBatch]:
    """Exactly `num_micro_batches` micro-batches (the same count on every rank, so expert
    collectives pair up); the trailing ones may be padding only. Samples are sorted by length
    first so each micro-batch pads little."""
    ordered = sorted(samples, key=lambda s: len(s.prompt_ids) + len(s.response_ids))
    chunks = [ordered[i : i + micro_batch_size] for i in range(0, len(ordered), micro_batch_size)]
    if len(chunks) > num_micro_batches:
        raise ValueError(f"{len(samples)} samples need {len(chunks)} micro-batches of {micro_batch_size}, not {num_micro_batches}")
    chunks += [[] for _ in range(num_micro_batches - len(chunks))]
    return [collate(c, pad_id) for c in chunks]
