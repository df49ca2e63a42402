"""The asynchronous RL loop both the planner and the simulator describe, in one set of numbers.

    LoopSpec.from_environment(env, rates)      job shape + hardware + measured rates
    spec.split(train_nodes, rollout_nodes)     what a split means: trainer GPUs, server replicas

The loop (payload.train.trainer, payload.rollout.worker, payload.queue):

- rollout workers keep `rollout.workers × rollout.worker_concurrency` groups in flight across
  the SGLang servers; a server decodes up to `server_slots` requests at once, each at the same
  speed, so a replica runs at its measured rate only while it holds that many requests; with
  fewer, each decodes faster (`decode`: a step reads the KV of fewer requests), not enough to
  make up the rate;
- a finished group enters the buffer (FIFO); workers stop claiming while the buffer holds
  `rollout.buffer_high_water_groups`;
- the trainer takes `batch.prompts_per_step` groups, dropping stale ones (more than
  `rollout.max_staleness` versions behind) and equal-reward ones (DAPO filter), trains, then
  publishes weights: the trainer and every server pause for `publish_s`, plus, where the pause
  retracts running requests, their re-prefill (`reprefill_s`, for the requests running);
- spot reclaims take a rollout replica down until a replacement node has started.

Work is counted in RESPONSE tokens on both sides (spec.signals explains why).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from statistics import NormalDist

import numpy as np

from spec.job import STALE_TOKENS

_NORMAL = NormalDist()


class BalanceError(ValueError):
    """A planner or simulator input that cannot work: one line naming the value."""


def _positive(name: str, value: float) -> float:
    if not value > 0 or not math.isfinite(value):
        raise BalanceError(f"{name} {value!r}: must be a number > 0")
    return value


@dataclass(frozen=True)
class ResponseLengths:
    """Response lengths: lognormal, cut at `max_tokens` (the generation limit).

    `mean` is the mean of the lengths as generated (after the cut), which is what a run measures.
    """

    mean: float
    sigma: float
    max_tokens: int
    mu: float = field(init=False)

    def __post_init__(self) -> None:
        _positive("response length sigma", self.sigma)
        if not 0 < self.mean < self.max_tokens:
            raise BalanceError(
                f"mean response length {self.mean!r}: must lie between 0 and batch.max_response_tokens {self.max_tokens}"
            )
        lo, hi = -20.0, math.log(self.max_tokens) + 10 * self.sigma
        for _ in range(200):  # the cut mean grows monotonically with mu
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if self._cut_mean(mid) < self.mean else (lo, mid)
        object.__setattr__(self, "mu", (lo + hi) / 2)

    def _cut_mean(self, mu: float) -> float:
        s, c = self.sigma, self.max_tokens
        z = (math.log(c) - mu) / s
        return math.exp(mu + s * s / 2) * _NORMAL.cdf(z - s) + c * (1 - _NORMAL.cdf(z))

    def cdf(self, x: np.ndarray) -> np.ndarray:
        z = (np.log(np.maximum(x, 1e-300)) - self.mu) / self.sigma
        values = 0.5 * (1 + _erf(z / math.sqrt(2)))
        return np.where(x >= self.max_tokens, 1.0, values)

    def quantiles(self, n: int) -> np.ndarray:
        """n equally likely lengths: the distribution at (i + 1/2) / n."""
        z = np.array([_NORMAL.inv_cdf((i + 0.5) / n) for i in range(n)])
        return np.minimum(np.exp(self.mu + self.sigma * z), self.max_tokens)

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return np.minimum(rng.lognormal(self.mu, self.sigma, size), self.max_tokens)

    def capped_share(self, n: int) -> float:
        """Share of groups of n whose longest response reaches the cap."""
        below = 0.5 * (1 + math.erf((math.log(self.max_tokens) - self.mu) / (self.sigma * math.sqrt(2))))
        return 1 - below**n

    def mean_max(self, n: int) -> float:
        """E[max of n lengths]: how long the longest response of a group takes to decode."""
        x = np.geomspace(self.max_tokens * 1e-7, self.max_tokens, 20001)
        tail = 1 - self.cdf(x) ** n
        return float(x[0] + np.sum((tail[1:] + tail[:-1]) / 2 * np.diff(x)))

    def group_tokens_given_max(self, longest: np.ndarray, n: int) -> np.ndarray:
        """E[sum of n lengths | their max is `longest`]: the others are drawn below it."""
        cut = longest < self.max_tokens
        log_m = np.log(np.where(cut, longest, self.max_tokens))
        below = 0.5 * (1 + _erf((log_m - self.mu) / (self.sigma * math.sqrt(2))))
        partial = math.exp(self.mu + self.sigma**2 / 2) * 0.5 * (
            1 + _erf((log_m - self.mu - self.sigma**2) / (self.sigma * math.sqrt(2)))
        )
        others = np.where(cut, partial / np.maximum(below, 1e-300), self.mean)
        return longest + (n - 1) * others

    def max_quantiles(self, n: int, points: int = 200) -> np.ndarray:
        """Equally likely values of the max of n lengths (for expectations over its distribution)."""
        u = (np.arange(points) + 0.5) / points
        z = np.array([_NORMAL.inv_cdf(p ** (1 / n)) for p in u])
        return np.minimum(np.exp(self.mu + self.sigma * z), self.max_tokens)


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[float])(x)


@dataclass(frozen=True)
class Spot:
    """Spot reclaims of rollout nodes."""

    reclaims_per_node_hour: float
    # From the reclaim until the replacement node's server serves again (launch, image, weights).
    replacement_s: float = 600.0
    # EC2's interruption notice: the pod gets SIGTERM this long before the node goes.
    notice_s: float = 120.0
    # True: on the notice workers stop claiming and hand unfinished tasks back at once
    # (payload.rollout.worker). False: tasks die with the node and are re-delivered only after
    # the queue's visibility timeout.
    hand_back: bool = True

    def __post_init__(self) -> None:
        if not self.reclaims_per_node_hour >= 0:
            raise BalanceError(f"reclaim rate {self.reclaims_per_node_hour!r}: must be ≥ 0 per node-hour")
        _positive("replacement time (s)", self.replacement_s)
        if not self.notice_s >= 0:
            raise BalanceError(f"interruption notice {self.notice_s!r} s: must be ≥ 0")


@dataclass(frozen=True)
class Rates:
    """Measured speeds, each of one node working flat out."""

    rollout_tokens_per_s_per_node: float
    trainer_tokens_per_s_per_node: float
    publish_s: float
    # Mean generated response length; None: half of batch.max_response_tokens.
    response_tokens_mean: float | None = None
    response_tokens_sigma: float = 0.8
    # Share of finished groups the trainer drops as equal-reward (DAPO filter).
    filtered_fraction: float = 0.0

    def __post_init__(self) -> None:
        _positive("rollout tokens/s per node", self.rollout_tokens_per_s_per_node)
        _positive("trainer tokens/s per node", self.trainer_tokens_per_s_per_node)
        if not self.publish_s >= 0:
            raise BalanceError(f"publish seconds {self.publish_s!r}: must be ≥ 0")
        if not 0 <= self.filtered_fraction < 1:
            raise BalanceError(f"filtered fraction {self.filtered_fraction!r}: must lie in [0, 1)")


@dataclass(frozen=True)
class DecodeSpeed:
    """One replica's decode step as a function of the requests it runs, B (estimate.throughput
    builds it from the model and the GPU): a step reads the dense weights, the experts the batch
    touches (a layer's E experts, each missed by a request with probability 1 - K/E) and every
    running request's KV cache, or computes B tokens if that takes longer, plus fixed per-step
    costs (scheduler, TP all-reduces) and, above SGLang's decode CUDA graph, eager launches. As a
    replica's batch drains (a group's tail, an under-fed server) each step reads less KV and
    fewer experts, so each remaining request decodes faster."""

    dense_s: float  # dense weights' read, seconds a step
    experts_s: float  # every expert's read, seconds a step
    expert_share: float  # K / E: the chance one request touches a given expert
    kv_s: float  # one running request's KV read at the mean context, seconds a step
    flops_s: float  # one request's FLOPs at the decode MFU, seconds a step
    fixed_s: float  # scheduler, sampling, TP all-reduces
    graph_max_bs: int = 1 << 30
    eager_s: float = 0.0

    def step_s(self, batch: float) -> float:
        b = max(batch, 1.0)
        read = self.dense_s + self.experts_s * (1 - (1 - self.expert_share) ** b) + b * self.kv_s
        return max(read, b * self.flops_s) + self.fixed_s + (self.eager_s if b > self.graph_max_bs else 0.0)


@dataclass(frozen=True)
class Split:
    train_nodes: int
    rollout_nodes: int
    replicas: int  # SGLang server replicas the rollout nodes hold
    train_gpus: int

    @property
    def label(self) -> str:
        return f"{self.train_nodes}:{self.rollout_nodes}"


@dataclass(frozen=True)
class LoopSpec:
    prompts_per_step: int
    group_size: int
    max_staleness: int
    high_water_groups: int
    groups_in_flight: int  # whole fleet: rollout.workers × rollout.worker_concurrency
    lengths: ResponseLengths
    rates: Rates
    # Requests one server decodes at once at its measured rate (SGLang --max-running-requests).
    server_slots: int = 256
    replica_gpus: int = 8
    # Trainer GPUs must be a multiple of this (FSDP2 × expert parallel mesh).
    train_gpu_multiple: int = 8
    train_gpus_per_node: int = 8
    rollout_gpus_per_node: int = 8
    spot: Spot | None = None
    # How a request's decode speed follows the replica's running batch; None: the same however
    # full the replica is (a measured rate with nothing to scale it by).
    decode: DecodeSpeed | None = None
    # Seconds a replica re-prefills a full batch of running requests after a publish that
    # retracted them (rollout.pause_mode retract: SGLang frees their KV); it re-prefills only the
    # requests it was running. 0 in place: their tails go on under the new weights from the KV
    # they have (partial rollouts: a response's tokens span versions, none is decoded twice).
    reprefill_s: float = 0.0
    # rollout.stale_tokens: drop_group drops a group once its oldest token is too stale; mask
    # keeps it while its newest is fresh enough and leaves its stale tokens out of the loss
    # (spec.job.drops_group). Tokens decoded after a publish are the new version's (the pause
    # keeps a request's tokens in either mode), so a long group's tail is fresher than its head.
    stale_tokens: str = "drop_group"
    # The dataset feeder's window (payload/data/feeder.py): at most (1 + max_staleness) batches
    # of tasks outstanding (issued, not yet trained or dropped), one more released at each
    # publish. False: an unlimited feed, a landed group re-claimed at once (for studying the loop
    # without the feeder; it is not how the job runs).
    feed_window: bool = True

    @classmethod
    def from_environment(cls, env, rates: Rates, server_slots: int = 256, spot: Spot | None = None) -> "LoopSpec":
        job = env.job
        mean = rates.response_tokens_mean or job.batch.max_response_tokens / 2
        return cls(
            prompts_per_step=job.batch.prompts_per_step,
            group_size=job.algorithm.group_size,
            max_staleness=job.rollout.max_staleness,
            high_water_groups=job.rollout.buffer_high_water_groups,
            groups_in_flight=job.rollout.workers * job.rollout.worker_concurrency,
            lengths=ResponseLengths(mean, rates.response_tokens_sigma, job.batch.max_response_tokens),
            rates=rates,
            server_slots=server_slots,
            # SGLang's expert-parallel group lives inside its tensor-parallel group.
            replica_gpus=max(env.layout.servers.tensor_parallel, env.layout.servers.expert_parallel),
            train_gpu_multiple=env.layout.trainer.gpu_multiple(),
            train_gpus_per_node=env.pools.train.spec.gpus,
            rollout_gpus_per_node=env.pools.rollout.spec.gpus,
            spot=spot,
            stale_tokens=job.rollout.stale_tokens,
        )

    def __post_init__(self) -> None:
        if self.server_slots < 1:
            raise BalanceError(f"server slots {self.server_slots!r}: must be at least 1")
        if self.train_gpus_per_node < 1 or self.rollout_gpus_per_node < 1:
            raise BalanceError("the train and rollout pools need GPU instance types")
        if self.stale_tokens not in STALE_TOKENS:
            raise BalanceError(f"rollout.stale_tokens {self.stale_tokens!r}: must be one of {', '.join(STALE_TOKENS)}")

    def with_(self, **changes) -> "LoopSpec":
        return replace(self, **changes)

    # -- what a split holds -------------------------------------------------------------------

    @property
    def replica_nodes(self) -> int:
        return math.ceil(self.replica_gpus / self.rollout_gpus_per_node)

    def replicas(self, rollout_nodes: int) -> int:
        if self.replica_gpus <= self.rollout_gpus_per_node:
            return rollout_nodes * (self.rollout_gpus_per_node // self.replica_gpus)
        return rollout_nodes // self.replica_nodes

    @property
    def min_train_nodes(self) -> int:
        """The fewest whole nodes whose GPUs are a multiple of the trainer's mesh."""
        g = self.train_gpus_per_node
        return self.train_gpu_multiple * g // math.gcd(self.train_gpu_multiple, g) // g

    def split(self, train_nodes: int, rollout_nodes: int) -> Split:
        if train_nodes < 1 or (train_nodes * self.train_gpus_per_node) % self.train_gpu_multiple:
            raise BalanceError(
                f"split {train_nodes}:{rollout_nodes}: the trainer needs whole nodes whose GPUs are a multiple of "
                f"the parallel layout's {self.train_gpu_multiple} GPUs (EP and HSDP shard groups; a multiple of {self.min_train_nodes} nodes)"
            )
        replicas = self.replicas(rollout_nodes)
        if replicas < 1:
            raise BalanceError(
                f"split {train_nodes}:{rollout_nodes}: one rollout replica needs {self.replica_gpus} GPUs "
                f"({self.replica_nodes} node(s)); {rollout_nodes} rollout node(s) hold none"
            )
        return Split(train_nodes, rollout_nodes, replicas, train_nodes * self.train_gpus_per_node)

    # -- derived quantities both models use ---------------------------------------------------

    @property
    def replica_tokens_per_s(self) -> float:
        """One replica decoding with every slot full."""
        return self.rates.rollout_tokens_per_s_per_node * self.replica_gpus / self.rollout_gpus_per_node

    @property
    def request_tokens_per_s(self) -> float:
        """Decode speed of one request (every running request advances at the same pace)."""
        return self.replica_tokens_per_s / self.server_slots

    def request_tokens_per_s_at(self, running: float) -> float:
        """Decode speed of one request while `running` requests share its replica: the full
        replica's speed scaled by decode's step time at the full batch over at `running`."""
        full = self.request_tokens_per_s
        if self.decode is None or running >= self.server_slots:
            return full
        return full * self.decode.step_s(self.server_slots) / self.decode.step_s(running)

    def publish_s_at(self, running: float) -> float:
        """A publish's pause while replicas run `running` requests each: the transfer and load
        (rates.publish_s), then the re-prefill of what was running, if the pause retracted it."""
        return self.rates.publish_s + self.reprefill_s * min(running, self.server_slots) / self.server_slots

    @property
    def group_tokens_mean(self) -> float:
        return self.group_size * self.lengths.mean

    @property
    def step_tokens(self) -> float:
        return self.prompts_per_step * self.group_tokens_mean

    @property
    def feed_window_groups(self) -> int | None:
        """Tasks outstanding at most (the feeder's window), None for an unlimited feed."""
        return (1 + self.max_staleness) * self.prompts_per_step if self.feed_window else None

    @property
    def groups_needed_per_step(self) -> float:
        """Finished groups a step uses up: the batch plus those the equal-reward filter drops."""
        return self.prompts_per_step / (1 - self.rates.filtered_fraction)
