"""The records that travel through the queue: rollout tasks and experience groups.

This is the single schema shared by task producers, rollout workers, verifiers and the
trainer. A record is serialized as a 4-byte header (3-byte magic + format version) followed
by msgpack metadata and, for a group, the arrays as raw little-endian bytes back to back,
never JSON lists of floats: a G = 8 × 2048-token group is ~130 KB, written with one copy and
decoded with zero-copy `np.frombuffer` views.

The version byte makes mixed deployments fail loudly: a worker built against format 2
writing into a trainer that reads format 1 raises `RecordFormatError` naming both versions
instead of misreading the bytes.

Identity: a task's group is identified by its `task_id`; sample i of that group by
`f"{task_id}/{i}"` (`ExperienceGroup.experience_ids`). The queue uses the task id to make a
reclaimed-then-finished task unable to add a second group.

Shapes: T = response tokens of one sample, P = prompt tokens, S = P + T - 1 positions the
server ran through the model (every token but the last), L = MoE layers, K = experts per
token. Routed experts (SGLang's `return_routed_experts`, for routing replay in the trainer)
cover the prompt too, since the trainer's forward routes the prompt tokens as well.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import msgpack
import numpy as np

# 2: tasks name their environment; groups may carry a loss mask per sample (multi-turn).
# 3: tasks and groups carry their data source (job.rewards weighs verifier and model per source).
# 4: samples may carry the policy version of every response token, as spans (in-flight weight
#    updates: a generation that spans a publish is sampled by two or more versions).
FORMAT_VERSION = 4
_TASK_MAGIC = b"RLT"
_GROUP_MAGIC = b"RLX"

_TOKEN_DTYPE = np.dtype("<i4")
_FLOAT_DTYPE = np.dtype("<f4")
_MASK_DTYPE = np.dtype("u1")
_EXPERT_DTYPES = {"u1": np.dtype("u1"), "<i2": np.dtype("<i2"), "<i4": np.dtype("<i4")}

FINISH_REASONS = ("stop", "length", "abort")


class RecordFormatError(ValueError):
    """Bytes that are not a record of this build's format (wrong kind, version or layout)."""


def _spans(spans: object, length: int) -> tuple[tuple[int, int, int], ...]:
    """(version, start, end) spans that cover a response of `length` tokens exactly: in order,
    back to back from 0 to `length`, none empty; an empty response has none."""
    out = tuple((int(v), int(a), int(b)) for v, a, b in spans)
    at = 0
    for version, start, end in out:
        if start != at or end <= start or version < 0:
            raise ValueError(f"version_spans {list(out)} must cover the {length} response tokens back to back "
                             "from 0, each span non-empty with a version >= 0")
        at = end
    if at != length:
        raise ValueError(f"version_spans {list(out)} cover {at} tokens, the response has {length}")
    return out


def _tokens(values: object, what: str) -> np.ndarray:
    array = np.ascontiguousarray(values, dtype=_TOKEN_DTYPE)
    if array.ndim != 1:
        raise ValueError(f"{what} must be 1-D, got shape {array.shape}")
    return array


@dataclass(frozen=True)
class Task:
    """One prompt to roll out G times."""

    task_id: str
    prompt_id: str
    prompt_tokens_P: np.ndarray
    group_size: int
    # The trainer's policy version when the task was issued (for staleness accounting).
    policy_version: int = 0
    # What the verifier checks the response against (e.g. the reference answer).
    label: str = ""
    verifier: str = "math"
    # The environment of a multi-turn episode (payload.envs); "" is one turn, no tools.
    environment: str = ""
    # The row's data source: picks its reward weights (job.rewards.sources).
    data_source: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "prompt_tokens_P", _tokens(self.prompt_tokens_P, "prompt_tokens_P"))
        if self.group_size < 1:
            raise ValueError(f"group_size must be >= 1, got {self.group_size}")
        if not self.task_id or "/" in self.task_id:
            raise ValueError(f"task_id {self.task_id!r} must be non-empty and contain no '/'")


@dataclass
class Sample:
    """One response of a group, as the rollout server produced it."""

    token_ids_T: np.ndarray
    # Log-probabilities of the sampled tokens under the sampling distribution (rollout policy).
    logprobs_T: np.ndarray
    finish_reason: str
    text: str = ""
    # NaN until a verifier scored it.
    reward: float = math.nan
    # [S = P + T - 1, L, K] expert ids per position, prompt included (SGLang's layout).
    routed_experts_SLK: np.ndarray | None = None
    # Multi-turn: 1 where the policy generated the token (trained), 0 where the environment's
    # reply or the chat template's framing sits between turns (logprob 0, never trained).
    # None: every response token is the policy's (one turn).
    loss_mask_T: np.ndarray | None = None
    # The policy version that sampled each response token: (version, start, end) spans over
    # the response, in order, covering it exactly (SGLang's meta_info.weight_versions; two or
    # more when the generation ran across a weight publish). None: all of it by the group's
    # policy_version (a server that reports no integer version).
    version_spans: tuple[tuple[int, int, int], ...] | None = None

    def __post_init__(self) -> None:
        self.token_ids_T = _tokens(self.token_ids_T, "token_ids_T")
        self.logprobs_T = np.ascontiguousarray(self.logprobs_T, dtype=_FLOAT_DTYPE)
        if self.logprobs_T.shape != self.token_ids_T.shape:
            raise ValueError(f"logprobs_T shape {self.logprobs_T.shape} != token_ids_T shape {self.token_ids_T.shape}")
        if self.loss_mask_T is not None:
            self.loss_mask_T = np.ascontiguousarray(self.loss_mask_T, dtype=_MASK_DTYPE)
            if self.loss_mask_T.shape != self.token_ids_T.shape:
                raise ValueError(f"loss_mask_T shape {self.loss_mask_T.shape} != token_ids_T shape {self.token_ids_T.shape}")
        if self.version_spans is not None:
            self.version_spans = _spans(self.version_spans, len(self.token_ids_T))
        if self.finish_reason not in FINISH_REASONS:
            raise ValueError(f"finish_reason {self.finish_reason!r} is not one of {FINISH_REASONS}")
        if self.routed_experts_SLK is not None:
            experts = np.asarray(self.routed_experts_SLK)
            if experts.ndim != 3 or experts.dtype.kind not in "iu":
                raise ValueError(f"routed_experts_SLK must be integer [S, L, K], got {experts.dtype} {experts.shape}")
            self.routed_experts_SLK = experts


@dataclass
class ExperienceGroup:
    """The G samples of one task: what the trainer turns into one GRPO group."""

    task_id: str
    prompt_id: str
    # The weight version the samples were generated with: the oldest of any of its tokens (each
    # sample's version_spans say which version sampled which token).
    policy_version: int
    prompt_tokens_P: np.ndarray
    samples: list[Sample]
    label: str = ""
    verifier: str = "math"
    worker: str = ""
    generated_at: float = field(default_factory=time.time)
    data_source: str = ""

    def __post_init__(self) -> None:
        self.prompt_tokens_P = _tokens(self.prompt_tokens_P, "prompt_tokens_P")
        if not self.samples:
            raise ValueError("an experience group needs at least one sample")
        for i, s in enumerate(self.samples):
            positions = len(self.prompt_tokens_P) + len(s.token_ids_T) - 1
            if s.routed_experts_SLK is not None and s.routed_experts_SLK.shape[0] != positions:
                raise ValueError(
                    f"sample {i}: routed_experts_SLK has {s.routed_experts_SLK.shape[0]} positions, "
                    f"prompt + response - 1 = {positions}"
                )
            if s.version_spans and min(v for v, _, _ in s.version_spans) < self.policy_version:
                raise ValueError(f"sample {i}: a token of version {min(v for v, _, _ in s.version_spans)} is older than "
                                 f"the group's policy_version {self.policy_version} (its oldest token's)")

    def token_versions(self, sample: Sample) -> tuple[tuple[int, int, int], ...]:
        """`sample`'s (version, start, end) spans, the group's policy_version where it has none."""
        if sample.version_spans is not None:
            return sample.version_spans
        return ((self.policy_version, 0, len(sample.token_ids_T)),) if len(sample.token_ids_T) else ()

    @property
    def newest_version(self) -> int:
        """The newest version that sampled any of its tokens (policy_version is the oldest)."""
        return max((v for s in self.samples for v, _, _ in self.token_versions(s)), default=self.policy_version)

    @property
    def experience_ids(self) -> list[str]:
        return [f"{self.task_id}/{i}" for i in range(len(self.samples))]

    @property
    def rewards_G(self) -> np.ndarray:
        return np.array([s.reward for s in self.samples], dtype=np.float32)

    @property
    def verified(self) -> bool:
        return not bool(np.isnan(self.rewards_G).any())


def _header(magic: bytes) -> bytes:
    return magic + bytes([FORMAT_VERSION])


def _body(data: bytes | memoryview, magic: bytes, kind: str, offset: int = 4) -> dict:
    view = memoryview(data)
    if len(view) < 4 or bytes(view[:3]) != magic:
        raise RecordFormatError(f"not a record of kind {kind!r} (header {bytes(view[:4])!r})")
    version = view[3]
    if version != FORMAT_VERSION:
        raise RecordFormatError(
            f"{kind} record has format version {version}, this build reads version {FORMAT_VERSION}: "
            "run the same payload image on workers and trainer"
        )
    try:
        return msgpack.unpackb(view[offset:], raw=False)
    except (msgpack.UnpackException, ValueError) as exc:
        raise RecordFormatError(f"corrupt {kind} record: {exc}") from None


def encode_task(task: Task) -> bytes:
    return _header(_TASK_MAGIC) + msgpack.packb(
        {
            "task_id": task.task_id,
            "prompt_id": task.prompt_id,
            "prompt": task.prompt_tokens_P.tobytes(),
            "group_size": task.group_size,
            "policy_version": task.policy_version,
            "label": task.label,
            "verifier": task.verifier,
            "environment": task.environment,
            "data_source": task.data_source,
        }
    )


def decode_task(data: bytes | memoryview) -> Task:
    body = _body(data, _TASK_MAGIC, "task")
    try:
        return Task(
            task_id=body["task_id"],
            prompt_id=body["prompt_id"],
            prompt_tokens_P=np.frombuffer(body["prompt"], dtype=_TOKEN_DTYPE),
            group_size=body["group_size"],
            policy_version=body["policy_version"],
            label=body["label"],
            verifier=body["verifier"],
            environment=body["environment"],
            data_source=body["data_source"],
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordFormatError(f"malformed task record: {exc!r}") from None


def encode_group(group: ExperienceGroup) -> bytes:
    """Header + msgpack metadata + the arrays back to back (one copy of each, no re-packing)."""
    samples = group.samples
    lengths = [len(s.token_ids_T) for s in samples]
    with_experts = [s.routed_experts_SLK is not None for s in samples]
    arrays = [group.prompt_tokens_P, *(s.token_ids_T for s in samples), *(s.logprobs_T for s in samples),
              np.array([s.reward for s in samples], dtype=_FLOAT_DTYPE)]
    experts = None
    if any(with_experts):
        if not all(with_experts):
            raise ValueError("routed_experts_SLK must be given for every sample of a group or none")
        tails = {s.routed_experts_SLK.shape[1:] for s in samples}
        if len(tails) != 1:
            raise ValueError(f"routed_experts_SLK [L, K] differs between samples: {sorted(tails)}")
        # Expert ids fit a byte for up to 256 experts (Qwen3-30B-A3B has 128): 4x smaller than int32.
        top = max(int(s.routed_experts_SLK.max(initial=0)) for s in samples)
        name = "u1" if top < 256 else "<i2" if top < 32768 else "<i4"
        experts = {"dtype": name, "lk": list(tails.pop())}
        arrays += [np.ascontiguousarray(s.routed_experts_SLK, dtype=_EXPERT_DTYPES[name]) for s in samples]
    # One byte per response token, only for groups that have a mask (multi-turn).
    masked = any(s.loss_mask_T is not None for s in samples)
    if masked:
        arrays += [np.ones(len(s.token_ids_T), _MASK_DTYPE) if s.loss_mask_T is None else s.loss_mask_T for s in samples]
    meta = msgpack.packb(
        {
            "task_id": group.task_id,
            "prompt_id": group.prompt_id,
            "policy_version": group.policy_version,
            "prompt_len": len(group.prompt_tokens_P),
            "lengths": lengths,
            "finish": [s.finish_reason for s in samples],
            "text": [s.text for s in samples],
            "experts": experts,
            "masked": masked,
            # Per sample: None, or [version, end, version, end, ...] (each span starts where the
            # one before it ended, the first at 0): a few ints per sample, whatever its length.
            "spans": [None if s.version_spans is None else [x for v, _, e in s.version_spans for x in (v, e)]
                      for s in samples],
            "label": group.label,
            "verifier": group.verifier,
            "worker": group.worker,
            "generated_at": group.generated_at,
            "data_source": group.data_source,
        }
    )
    return b"".join([_header(_GROUP_MAGIC), len(meta).to_bytes(4, "little"), meta, *(memoryview(a).cast("B") for a in arrays)])


def decode_group(data: bytes | memoryview) -> ExperienceGroup:
    """Arrays are zero-copy read-only views into `data`."""
    view = memoryview(data)
    if len(view) < 8:
        raise RecordFormatError(f"not a record of kind 'experience' ({len(view)} bytes)")
    meta_len = int.from_bytes(view[4:8], "little")
    body = _body(view[: 8 + meta_len], _GROUP_MAGIC, "experience", offset=8)
    try:
        lengths = body["lengths"]
        prompt_len, total, n = body["prompt_len"], sum(lengths), len(lengths)
        cursor = 8 + meta_len

        def take(dtype: np.dtype, count: int) -> np.ndarray:
            nonlocal cursor
            array = np.frombuffer(view, dtype=dtype, count=count, offset=cursor)
            cursor += array.nbytes
            return array

        prompt = take(_TOKEN_DTYPE, prompt_len)
        tokens = take(_TOKEN_DTYPE, total)
        logprobs = take(_FLOAT_DTYPE, total)
        rewards = take(_FLOAT_DTYPE, n)
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(int)
        experts = body["experts"]
        per_sample_experts: list[np.ndarray | None] = [None] * n
        if experts is not None:
            layers, top_k = experts["lk"]
            positions = sum(prompt_len + k - 1 for k in lengths)
            experts_XLK = take(_EXPERT_DTYPES[experts["dtype"]], positions * layers * top_k).reshape(-1, layers, top_k)
            bounds = np.concatenate([[0], np.cumsum([prompt_len + k - 1 for k in lengths])]).astype(int)
            per_sample_experts = [experts_XLK[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
        masks: list[np.ndarray | None] = [None] * n
        if body["masked"]:
            mask = take(_MASK_DTYPE, total)
            masks = [mask[a:b] for a, b in zip(offsets[:-1], offsets[1:])]
        if cursor != len(view):
            raise ValueError(f"{len(view) - cursor} bytes left after the arrays")
        spans = [None if flat is None else _unflatten_spans(flat) for flat in body["spans"]]
        if len(spans) != n:
            raise ValueError(f"{len(spans)} span lists for {n} samples")
        samples = [
            Sample(
                token_ids_T=tokens[a:b],
                logprobs_T=logprobs[a:b],
                finish_reason=finish,
                text=text,
                reward=float(reward),
                routed_experts_SLK=routed,
                loss_mask_T=mask,
                version_spans=span,
            )
            for a, b, finish, text, reward, routed, mask, span in zip(
                offsets[:-1], offsets[1:], body["finish"], body["text"], rewards, per_sample_experts, masks, spans
            )
        ]
        return ExperienceGroup(
            task_id=body["task_id"],
            prompt_id=body["prompt_id"],
            policy_version=body["policy_version"],
            prompt_tokens_P=prompt,
            samples=samples,
            label=body["label"],
            verifier=body["verifier"],
            worker=body["worker"],
            generated_at=body["generated_at"],
            data_source=body["data_source"],
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordFormatError(f"malformed experience record: {exc!r}") from None


def _unflatten_spans(flat: list[int]) -> tuple[tuple[int, int, int], ...]:
    if len(flat) % 2:
        raise ValueError(f"spans {flat}: not (version, end) pairs")
    out, start = [], 0
    for version, end in zip(flat[::2], flat[1::2]):
        out.append((version, start, end))
        start = end
    return tuple(out)
