"""From sampled responses to training micro-batches: packed by a token budget, or right-padded.

A `Sample` is one response of one prompt: the prompt and response token ids, the rollout
engine's logprob of every response token, the reward, the advantage, and (routing replay) the
experts the engine used at every position. Everything stays in numpy arrays of compact dtypes
(int32 tokens, float32 logprobs, uint8/int16 expert ids) from the buffer to the device; the
routes become int64 only on the device, where the router gathers with them.

The logprob of token t+1 is computed at position t, so every per-token loss tensor lives in
that shifted frame: `[B, T-1]`, position t for token t+1.

Packed micro-batches (`pack`) are one row of every sample's tokens back to back, with no
padding: positions restart at each sample, attention stays inside each sample
(`cu_seqlens`, payload.model), and no pad token reaches an expert. The loss still sees the
`[B, L-1]` per-sample layout: `unpack_BT1` gathers each sample's logprobs out of the packed row.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np
import torch

from estimate.partition import balanced_partition, first_fit_bins
from spec.job import too_stale


def route_dtype(num_experts: int) -> np.dtype:
    return np.dtype(np.uint8) if num_experts <= 256 else np.dtype(np.int16)


@dataclass
class Sample:
    prompt_ids: np.ndarray  # int32 [P]
    response_ids: np.ndarray  # int32 [R]
    rollout_logprobs: np.ndarray  # float32 [R], one per response token
    reward: float
    advantage: float = 0.0
    # Routing replay: the experts the engine used at every position it ran, [P + R - 1, L, K]
    # (SGLang's return_routed_experts; the last token is sampled, never run). Integer ids.
    routed_experts: np.ndarray | None = None
    # Multi-turn: which response tokens the policy generated ([R], bool); the environment's
    # replies between turns are in the sequence (the policy attends to them) but not trained.
    # None: the whole response is trained.
    response_mask: np.ndarray | None = None
    # The policy version that sampled each response token: (version, start, end) spans covering
    # the response (payload.queue.experience; in-flight weight updates split a response).
    version_spans: tuple[tuple[int, int, int], ...] = ()

    def __post_init__(self) -> None:
        self.prompt_ids = np.asarray(self.prompt_ids, dtype=np.int32)
        self.response_ids = np.asarray(self.response_ids, dtype=np.int32)
        self.rollout_logprobs = np.asarray(self.rollout_logprobs, dtype=np.float32)
        if len(self.rollout_logprobs) != len(self.response_ids):
            raise ValueError(
                f"{len(self.rollout_logprobs)} rollout logprobs for {len(self.response_ids)} response tokens"
            )
        if self.version_spans and (self.version_spans[0][1] != 0 or self.version_spans[-1][2] != len(self.response_ids)):
            raise ValueError(f"version spans {self.version_spans} do not cover the {len(self.response_ids)} response tokens")
        if self.response_mask is not None:
            self.response_mask = np.asarray(self.response_mask, dtype=bool)
            if self.response_mask.shape != self.response_ids.shape:
                raise ValueError(f"response mask of {self.response_mask.shape} for {len(self.response_ids)} response tokens")
        if self.routed_experts is not None:
            routes = np.asarray(self.routed_experts)
            if routes.dtype.kind not in "iu":
                raise ValueError(f"routed experts must be integer ids, got {routes.dtype}")
            self.routed_experts = routes.astype(route_dtype(int(routes.max(initial=0)) + 1), copy=False)

    @property
    def num_tokens(self) -> int:
        return len(self.prompt_ids) + len(self.response_ids)


@dataclass
class MicroBatch:
    input_ids_BT: torch.Tensor  # int32
    attention_mask_BT: torch.Tensor  # bool: real tokens
    loss_mask_BT1: torch.Tensor  # bool: response tokens (shifted frame)
    rollout_logprobs_BT1: torch.Tensor
    advantages_B: torch.Tensor
    routed_experts_BTLK: torch.Tensor | None  # uint8 / int16 expert ids
    # Packed (B = 1 row of N tokens): each sample's start (int32 [n + 1]), positions restarting
    # per sample, and where each sample's shifted-frame logprob sits in the packed row.
    cu_seqlens: torch.Tensor | None = None
    position_ids_BT: torch.Tensor | None = None
    unpack_BT1: torch.Tensor | None = None

    @property
    def num_tokens(self) -> int:
        return int(self.attention_mask_BT.sum())

    @property
    def packed(self) -> bool:
        return self.cu_seqlens is not None

    def to(self, device: torch.device) -> "MicroBatch":
        """On `device`, except `cu_seqlens`: the model reads the longest sample from it on the
        host (payload.model.packed) and moves it itself."""
        move = lambda t: None if t is None else t.to(device, non_blocking=True)  # noqa: E731
        return MicroBatch(*(getattr(self, f.name) if f.name == "cu_seqlens" else move(getattr(self, f.name))
                            for f in fields(self)))


@dataclass(frozen=True)
class TokenVersions:
    """Where a step's policy tokens (response tokens the loss trains, before staleness) came
    from: `older` sampled by a version before the one trained, `stale` more than max_staleness
    behind it (masked out of the loss under rollout.stale_tokens mask)."""

    policy: int = 0
    older: int = 0
    stale: int = 0

    def __add__(self, other: "TokenVersions") -> "TokenVersions":
        return TokenVersions(self.policy + other.policy, self.older + other.older, self.stale + other.stale)

    @property
    def older_fraction(self) -> float:
        """Of the tokens trained (stale ones masked), the share sampled by an older version."""
        return (self.older - self.stale) / max(self.policy - self.stale, 1)

    @property
    def stale_fraction(self) -> float:
        return self.stale / max(self.policy, 1)


def mask_stale_tokens(sample: Sample, current_version: int, max_staleness: int, mask: bool = True) -> tuple[Sample, TokenVersions]:
    """`sample` with the tokens too stale for the trainer at `current_version` (spec.job's rule,
    per version span) out of its response mask when `mask` (rollout.stale_tokens mask), and the
    count of its policy tokens by age. The rest keep their off-policy correction (payload.train.loss:
    their rollout logprobs are still the ones the version that sampled them gave)."""
    n = len(sample.response_ids)
    policy = np.ones(n, dtype=bool) if sample.response_mask is None else sample.response_mask
    older = np.zeros(n, dtype=bool)
    stale = np.zeros(n, dtype=bool)
    for version, start, end in sample.version_spans:
        older[start:end] = version < current_version
        stale[start:end] = too_stale(version, current_version, max_staleness)
    counts = TokenVersions(int(policy.sum()), int((policy & older).sum()), int((policy & stale).sum()) if mask else 0)
    if not mask or not counts.stale:
        return sample, counts
    return replace(sample, response_mask=policy & ~stale), counts


def _routes(samples: list[Sample]) -> list[np.ndarray] | None:
    with_routes = [s.routed_experts for s in samples if s.routed_experts is not None]
    if not with_routes:
        return None
    if len(with_routes) != len(samples):
        raise ValueError("routing replay needs routed experts for every sample of a batch or none")
    for s in samples:
        if s.routed_experts.shape[0] != s.num_tokens - 1:
            raise ValueError(f"routed experts cover {s.routed_experts.shape[0]} positions, expected {s.num_tokens - 1}")
    return with_routes


def _loss_rows(samples: list[Sample], width: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The per-sample loss layout: loss mask (the policy's response tokens), rollout logprobs
    ([B, width]) and advantages."""
    b = max(len(samples), 1)
    loss_mask = np.zeros((b, width), dtype=bool)
    rollout = np.zeros((b, width), dtype=np.float32)
    for i, s in enumerate(samples):
        p, r = len(s.prompt_ids), len(s.response_ids)
        # Token p+j (response token j) is predicted at position p+j-1.
        loss_mask[i, p - 1 : p - 1 + r] = True if s.response_mask is None else s.response_mask
        rollout[i, p - 1 : p - 1 + r] = s.rollout_logprobs
    advantages = np.array([s.advantage for s in samples] or [0.0], dtype=np.float32)
    return torch.from_numpy(loss_mask), torch.from_numpy(rollout), torch.from_numpy(advantages)


def collate(samples: list[Sample], pad_id: int = 0, pad_to: int = 1) -> MicroBatch:
    """Right-pad `samples` into one micro-batch (T rounded up to a multiple of `pad_to`).

    An empty list gives one all-padding row: ranks with fewer samples still take part in
    every expert-parallel collective, and the row contributes nothing to the loss."""
    rows = samples or [Sample([pad_id], [], [], 0.0)]
    length = max(s.num_tokens for s in rows)
    length = max(2, -(-length // pad_to) * pad_to)
    b = len(rows)
    input_ids = np.full((b, length), pad_id, dtype=np.int32)
    attention = np.zeros((b, length), dtype=bool)
    routes = _routes(samples)
    routed = None if routes is None else np.zeros((b, length, *routes[0].shape[1:]), dtype=np.result_type(*routes))
    for i, s in enumerate(samples):
        n = s.num_tokens
        input_ids[i, :n] = np.concatenate([s.prompt_ids, s.response_ids])
        attention[i, :n] = True
        if routed is not None:
            # The last position's route is never used: its logits predict nothing we train on.
            routed[i, : n - 1] = s.routed_experts
    loss_mask, rollout, advantages = _loss_rows(samples, length - 1)
    return MicroBatch(torch.from_numpy(input_ids), torch.from_numpy(attention), loss_mask, rollout, advantages,
                      None if routed is None else torch.from_numpy(routed))


def pack(samples: list[Sample], pad_id: int = 0) -> MicroBatch:
    """`samples` back to back in one row, no padding (an empty list: a 2-token filler row that
    keeps this rank in step with the others' expert collectives and adds nothing to the loss)."""
    if not samples:
        return collate([], pad_id)
    lengths = np.array([s.num_tokens for s in samples], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)])
    n = int(starts[-1])
    input_ids = np.concatenate([np.concatenate([s.prompt_ids, s.response_ids]) for s in samples])[None]
    positions = (np.arange(n) - np.repeat(starts[:-1], lengths)).astype(np.int32)[None]
    width = int(lengths.max()) - 1
    # Sample i's shifted-frame position t is packed position starts[i] + t; past its end the
    # index is clamped and masked (the loss never reads it).
    unpack = np.minimum(starts[:-1, None] + np.arange(width)[None], n - 2)
    routes = _routes(samples)
    routed = None
    if routes is not None:
        # Each sample's last token predicts nothing trained; it reuses the previous route
        # rather than sending a real token to expert 0.
        routed = np.concatenate([np.concatenate([r, r[-1:]]) for r in routes])[None]
    loss_mask, rollout, advantages = _loss_rows(samples, width)
    return MicroBatch(
        torch.from_numpy(input_ids),
        torch.ones(1, n, dtype=torch.bool),
        loss_mask,
        rollout,
        advantages,
        None if routed is None else torch.from_numpy(routed),
        cu_seqlens=torch.from_numpy(starts.astype(np.int32)),
        position_ids_BT=torch.from_numpy(positions),
        unpack_BT1=torch.from_numpy(unpack),
    )


def packed_micro_batch_count(samples: list[Sample], token_budget: int) -> int:
    """Micro-batches of at most `token_budget` tokens that `samples` need (first-fit
    decreasing; a sample longer than the budget gets one of its own)."""
    return first_fit_bins([s.num_tokens for s in samples], token_budget)


def pack_micro_batches(samples: list[Sample], num_micro_batches: int, pad_id: int = 0) -> list[MicroBatch]:
    """Exactly `num_micro_batches` packed micro-batches of near-equal token counts (the same
    count on every rank, so expert collectives pair up)."""
    tokens = np.array([s.num_tokens for s in samples], dtype=np.int64)
    parts = balanced_partition(tokens, num_micro_batches)
    return [pack([samples[i] for i in sorted(part)], pad_id) for part in parts]


def shard_for_rank(samples: list[Sample], rank: int, world_size: int) -> list[Sample]:
    """This rank's contiguous share; shares differ by at most one sample."""
    per, extra = divmod(len(samples), world_size)
    start = rank * per + min(rank, extra)
    return samples[start : start + per + (rank < extra)]


def micro_batches(samples: list[Sample], micro_batch_size: int, num_micro_batches: int, pad_id: int = 0) -> list[MicroBatch]:
    """Exactly `num_micro_batches` right-padded micro-batches (the same count on every rank, so
    expert collectives pair up); the trailing ones may be padding only. Samples are sorted by
    length first so each micro-batch pads little."""
    ordered = sorted(samples, key=lambda s: s.num_tokens)
    chunks = [ordered[i : i + micro_batch_size] for i in range(0, len(ordered), micro_batch_size)]
    if len(chunks) > num_micro_batches:
        raise ValueError(f"{len(samples)} samples need {len(chunks)} micro-batches of {micro_batch_size}, not {num_micro_batches}")
    chunks += [[] for _ in range(num_micro_batches - len(chunks))]
    return [collate(c, pad_id) for c in chunks]


def split_for_ranks(samples: list[Sample], world_size: int) -> list[list[Sample]]:
    """Every data-parallel rank's samples, balanced by token count (estimate.partition).
    Samples travel alone: their group's advantage is computed before the split, and the loss's
    global denominators are all-reduced (loss.py), so nothing else ties a group to one rank."""
    tokens = np.array([s.num_tokens for s in samples], dtype=np.int64)
    return [[samples[i] for i in sorted(part)] for part in balanced_partition(tokens, world_size)]


def packed_for_rank(
    samples: list[Sample], token_budget: int, group=None, device: torch.device = torch.device("cpu"), pad_id: int = 0,
    min_count: int = 1,
) -> list[MicroBatch]:
    """This rank's samples packed into micro-batches of about `token_budget` tokens, as many as
    the rank of `group` that needs the most (expert collectives pair up micro-batch by
    micro-batch) and at least `min_count` (a pipeline's stages: 1F1B needs one micro-batch
    per stage); collective over `group` when it is given."""
    count = torch.tensor([max(packed_micro_batch_count(samples, token_budget), min_count)], device=device)
    if group is not None:
        torch.distributed.all_reduce(count, op=torch.distributed.ReduceOp.MAX, group=group)
    return pack_micro_batches(samples, int(count.item()), pad_id)
