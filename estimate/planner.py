"""The planner: steady-state step time, idle fractions and staleness of a split, in closed form.

    prediction = predict(spec, spec.split(16, 32))
    plan = make_plan(spec, budget=48, current=(16, 32), train_limits=(16, 16), rollout_limits=(32, 32))

The model (the simulator checks it; bench/balance_validation.py shows by how much):

    W    = prompts_per_step · group_size · mean length          tokens a step trains
    C_t  = W / (train nodes · trainer tokens/s per node)        trainer busy time
    P    = publish seconds: the trainer and every server pause
    rollout: a group holds its slots until its longest response ends, so a replica with N
         groups in flight runs B = N·G·mean / E[longest] requests, decodes min(full rate,
         B · speed(B)) and a group takes D = max(E[longest] / speed(B), N·G·mean / full rate)
         (Little's law); speed(B) rises as B falls below the slots (estimate.loop.DecodeSpeed:
         a step reads B requests' KV and the experts they touch)

A group's staleness is the number of publishes between its claim and the step that consumes
it; above `max_staleness` it is dropped (under rollout.stale_tokens mask: once its newest tokens
are; its tokens decoded before the bump that made them too stale are masked, `_masked`, from
each group's token profile, `_profile`). Two steady states:

- the trainer waits: step τ = P + max(C_t, decoding time of the groups a step uses up / (1 − d)),
  where the drop share d follows from each group's latency (the spread of its longest
  response) and where in the step it finishes; drops favour long groups, so the trained
  tokens (and C_t) shrink as d grows. τ is the fixed point, found by bisection;
- the trainer never waits: τ = P + C_t. Workers fill the buffer to its high-water mark (plus
  the burst of claims each dip below it releases); if that much buffer is older than the
  staleness bound, the trainer sweeps it in finish order, dropping the stale head, and the
  workers run flat out or until the leftovers fill the buffer again.

The dataset feeder's window (LoopSpec.feed_window: at most 1 + s batches of tasks outstanding,
one released at each publish) changes when groups are claimed. Where the workers hold fewer
groups than it leaves room for, claims that would fall while the trainer trains wait for the
publish once the window's slack is used (`_kept_when_trainer_waits`). Where they would hold
more, the window binds: every task is claimed at the publish that releases it, and the groups
in flight are the window less those finished and not yet replaced (predict); a group is then
trained about s versions after its claim. Where a released batch queues on the replicas and
the trainer waits for its last group, the step is set by that batch's drain
(`_release_waves`); where the trainer never waits, the buffer holds what the window leaves and
groups slower than most land a version later (`_kept_from_released`). The simulator runs the
feeder's rule; tests/estimate/test_waves.py, test_stale_tokens_mask.py and test_simulator.py
check the closed form against it with and without the window.

Both assume groups finish at a uniform phase of the step. They do not when most groups last
the same time, a response of theirs reaching the cap: then the N groups in flight, claimed
together, finish together for ever after (`_waves`). A wave decodes for T (its requests start
together and speed up as the short ones end), lands, and its workers claim the next one at
once; meanwhile the trainer trains the last wave's k batches. Batch j of a wave is then k + j
versions old by its first tokens and j by its last: under drop_group kept batches
k = min(b, s + 1 − k') alternate around min(b, (s + 1)/2), under rollout.stale_tokens mask
k = min(b, s + 1) and batch j's tokens decoded before bump k + j − s are masked; b = N / the
groups a step needs, and the step is (T + k·P) / k. The simulator shows the waves
(tests/estimate/test_waves.py); they hold only while the wave's requests all fit the
replicas' slots (a long queue dephases them), most groups reach the cap, the trainer waits for
each wave, and a landed wave does not hold the buffer over its high-water mark (claims that
wait for room dephase them too). The feeder's window keeps them only where it holds two waves
(a landed wave's groups stay outstanding until trained, and the rest come a batch a publish).
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from dataclasses import asdict, dataclass, replace

import numpy as np

from estimate.loop import BalanceError, LoopSpec, Split


@dataclass(frozen=True)
class Prediction:
    split: Split
    step_time_s: float
    trainer_idle_fraction: float  # waiting for a batch
    trainer_publish_fraction: float
    rollout_idle_fraction: float  # server slots not decoding
    staleness_mean: float
    stale_dropped_fraction: float  # of the groups the trainer looks at
    trained_tokens_per_s: float
    bound: str  # "trainer", "rollout" or "staleness": what sets the step time
    group_latency_s: float
    replica_utilisation: float  # of a replica's full rate its in-flight requests allow
    # Of the trained groups' tokens, those left out of the loss as too stale (rollout.stale_tokens
    # mask); trained_tokens_per_s counts the rest, the trainer computes them all.
    stale_masked_fraction: float = 0.0

    @property
    def slots_fed(self) -> float:
        """Share of the replicas' slot-seconds spent decoding (as the simulator counts it)."""
        return 1 - self.rollout_idle_fraction

    def as_dict(self) -> dict:
        d = asdict(self)
        d["split"] = {"train_nodes": self.split.train_nodes, "rollout_nodes": self.split.rollout_nodes,
                      "replicas": self.split.replicas, "train_gpus": self.split.train_gpus}
        return d


@dataclass(frozen=True)
class _Groups:
    """Groups as equally likely quantiles of their longest response: decode latency and tokens."""

    latency_s: np.ndarray  # claim to finish, decoding seconds (pauses excluded)
    tokens: np.ndarray
    # For per-token versions (rollout.stale_tokens mask): the queue wait before a group's first
    # token, its longest response's decoding seconds, and `profile[q, i]`, the share of its
    # tokens decoded once its longest is i / (len - 1) of the way.
    queued_s: float = 0.0
    decode_s: np.ndarray | None = None
    profile: np.ndarray | None = None

    def share_decoded(self, decoding_s: np.ndarray) -> np.ndarray:
        """Share of each quantile's tokens decoded `decoding_s` seconds after its claim
        (decoding seconds, pauses excluded; shape (…, quantiles))."""
        u = np.clip((decoding_s - self.queued_s) / self.decode_s, 0.0, 1.0) * (self.profile.shape[1] - 1)
        lo = np.minimum(np.floor(u).astype(int), self.profile.shape[1] - 2)
        q = np.broadcast_to(np.arange(self.profile.shape[0]), u.shape)
        return self.profile[q, lo] + (u - lo) * (self.profile[q, lo + 1] - self.profile[q, lo])


def _profile(lengths, longest: np.ndarray, g: int, points: int = 33) -> np.ndarray:
    """Share of a group's tokens decoded while its longest response (`longest` tokens) is a
    fraction u of the way, its requests decoding together: u·L of the longest's, and
    E[min(r, u·L) | r ≤ L] = ∫₀^{u·L} (F(L) − F(x)) / F(L) dx of each other's."""
    u = np.linspace(0.0, 1.0, points)
    x = longest[:, None] * u[None, :]
    below = lengths.cdf(longest)[:, None]  # 1 at the cap: a capped longest bounds nothing below it
    density = np.clip(below - lengths.cdf(x), 0.0, None) / np.maximum(below, 1e-300)
    others = np.concatenate([np.zeros((len(longest), 1)),
                             np.cumsum((density[:, 1:] + density[:, :-1]) / 2 * np.diff(x, axis=1), axis=1)], axis=1)
    decoded = x + (g - 1) * others
    return decoded / decoded[:, -1:]


def _masked(groups: _Groups, claim: np.ndarray, versions: np.ndarray, limit: int, step: float,
            stretch: float) -> np.ndarray:
    """Share of each group's tokens more than `limit` versions old when it is trained: those
    decoded before the (versions − limit)-th bump after its claim. Bumps fall on whole
    multiples of `step` (wall seconds, `claim` on the same clock); decoding runs 1/stretch of
    the wall time (it stops while weights are published)."""
    behind = versions - limit
    bump = (np.ceil(claim / step - 1e-12) + behind - 1) * step
    share = groups.share_decoded((bump - claim) / stretch)
    return np.where(behind >= 1, share, 0.0)


@dataclass(frozen=True)
class _Kept:
    weight: np.ndarray  # per quantile: probability the trainer trains it (not dropped stale)
    staleness: np.ndarray  # per quantile: mean staleness when trained
    masked: np.ndarray | float = 0.0  # per quantile: share of its tokens masked as too stale
    # Steps a group's task stays out of the feeder's window once it finished: from its finish to
    # the publish after its consumption, over every group the trainer looks at (predict). One
    # where the trainer never waits: it takes its batch at the step's start.
    unreplaced: float = 1.0

    @property
    def dropped(self) -> float:
        return 1 - float(np.mean(self.weight))

    def mean_staleness(self) -> float:
        total = float(np.sum(self.weight))
        return float(np.sum(self.weight * self.staleness)) / total if total > 0 else float("nan")

    def trained_tokens(self, groups: _Groups) -> float:
        """Mean tokens of a trained group: long groups are older when they finish, so drops favour short ones."""
        total = float(np.sum(self.weight))
        return float(np.sum(self.weight * groups.tokens)) / total if total > 0 else float(np.mean(groups.tokens))

    def loss_tokens(self, groups: _Groups) -> float:
        """Mean tokens of a trained group that stay in the loss (the stale ones masked out)."""
        total = float(np.sum(self.weight))
        return float(np.sum(self.weight * groups.tokens * (1 - self.masked))) / total if total > 0 else 0.0

    def masked_fraction(self, groups: _Groups) -> float:
        computed = self.trained_tokens(groups)
        return 1 - self.loss_tokens(groups) / computed if computed > 0 else 0.0


_PHASES = (np.arange(64) + 0.5) / 64


def _kept_when_trainer_waits(latency_s: np.ndarray, decoding: float, wait: float, limit: int,
                             groups: _Groups | None = None, defer_from: float = math.inf,
                             queued_s: float = 0.0) -> _Kept:
    """The trainer waits `wait` of each step's `decoding` seconds (the clock here stops while
    weights are published, so versions bump every `decoding` seconds), then trains. Groups are
    claimed at a uniform phase of it, except that the feeder's window defers the claims falling
    after `defer_from` to the next bump (their tasks come with its publish). One finishing while
    the trainer waits is consumed at once, one finishing later after the next bump. Staleness
    = bumps between the claim and the consumption. `groups` (rollout.stale_tokens mask): a group
    is dropped only if its newest tokens (its finish) are too stale, and its tokens decoded
    before the bump that made them so are masked. The deferred claims arrive together, so their
    queue wait (`queued_s` on average) spreads evenly from none to twice that (FIFO)."""
    claim = _PHASES[:, None] * decoding
    deferred = claim >= defer_from
    finish = np.where(deferred, decoding + (2 * _PHASES[:, None] - 1) * queued_s, claim) + latency_s[None, :]
    claim = np.where(deferred, decoding, claim)
    phase = finish - np.floor(finish / decoding) * decoding
    later = phase >= wait
    versions = np.floor(finish / decoding) - np.floor(claim / decoding) + later
    unreplaced = float(np.mean(1 - phase / decoding + later))
    kept = (later if groups is not None else versions) <= limit
    weight = kept.mean(axis=0)
    staleness = np.where(weight > 0, (versions * kept).sum(axis=0) / np.maximum(kept.sum(axis=0), 1), limit)
    if groups is None:
        return _Kept(weight, staleness, unreplaced=unreplaced)
    masked = _masked(groups, claim, versions, limit, decoding, 1.0)
    return _Kept(weight, staleness, (masked * kept).sum(axis=0) / np.maximum(kept.sum(axis=0), 1), unreplaced)


def _kept_from_deep_buffer(wall_s: np.ndarray, step: float, fresh_share: float, limit: int,
                           groups: _Groups | None = None, stretch: float = 1.0) -> tuple[_Kept, float] | None:
    """Workers outrun the trainer and the buffer holds more than the staleness bound lets it
    train: the trainer sweeps the buffer in finish order, dropping stale groups, until it has a
    batch, at the start of each step. In steady state the sweep covers one step of finishes,
    [kτ − sτ + y − τ, kτ − sτ + y] for a group claimed after the bump (k − s)τ; y is set by the
    share of those finishes the batch needs. Returns (kept, y); None: even the freshest
    finishes fall short. `groups` (rollout.stale_tokens mask): freshness is its newest tokens',
    its finish, and the tokens decoded before the bump that made them too stale are masked."""
    offsets = _PHASES * step
    age = np.zeros_like(wall_s) if groups is not None else wall_s  # claim or finish to the group's newest

    def weight(y: float) -> np.ndarray:
        return np.clip((y - age) / step, 0.0, 1.0)

    lo, hi = 0.0, limit * step
    if np.mean(weight(hi)) < fresh_share:
        return None
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if np.mean(weight(mid)) < fresh_share else (lo, mid)
    u = hi - step + offsets[:, None]  # finish − (k − s)τ, over the swept step
    fresh = u >= age[None, :]
    versions = np.ceil(limit - (u - wall_s[None, :]) / step - 1e-12)
    staleness = (versions * fresh).sum(axis=0) / np.maximum(fresh.sum(axis=0), 1)
    staleness = np.where(fresh.any(axis=0), staleness, limit)
    if groups is None:
        return _Kept(weight(hi), staleness), hi
    masked = _masked(groups, u - wall_s[None, :], versions, limit, step, stretch)
    return _Kept(weight(hi), staleness, (masked * fresh).sum(axis=0) / np.maximum(fresh.sum(axis=0), 1)), hi


# A wave forms when at least this share of groups has a response that reaches the cap, and
# holds while its requests need at most this many times a replica's slots: the few that queue
# start as its short responses end. Set between what the simulator shows (tests/estimate/
# test_waves.py): 1.08 times the slots still in lock-step, 2 times dephased.
_WAVE_CAPPED_SHARE = 0.5
_WAVE_QUEUE = 1.25


def _waves(spec: LoopSpec, split: Split) -> Prediction | None:
    """The loop in lock-step waves (module docstring), or None where they do not form."""
    g, n_flight = spec.group_size, spec.groups_in_flight
    needed = spec.groups_needed_per_step
    lengths = spec.lengths
    per_replica = n_flight / split.replicas
    window = spec.feed_window_groups
    if ((spec.spot is not None and spec.spot.reclaims_per_node_hour > 0) or lengths.capped_share(g) < _WAVE_CAPPED_SHARE
            or per_replica * g > _WAVE_QUEUE * spec.server_slots
            or n_flight < needed or n_flight > spec.high_water_groups + needed
            or (window is not None and window < 2 * n_flight)):
        # The last: a landed wave is still outstanding, so the feeder's window leaves fewer
        # tasks than its groups to re-claim; the rest come a batch a publish, dephased.
        return None
    # A wave's requests start together; while the longest is at x tokens, those longer than x
    # still run, each at the speed that batch allows.
    x = np.linspace(0.0, lengths.max_tokens, 401)
    running = per_replica * g * (1 - lengths.cdf(x[:-1]))
    seconds = np.diff(x) / np.array([spec.request_tokens_per_s_at(b) for b in running])
    decoding = float(np.sum(seconds))
    slot_seconds = float(np.sum(running * seconds))
    b = n_flight / needed
    mask = spec.stale_tokens == "mask"
    # Batches of a wave trained: batch j is consumed j versions after the wave's last tokens,
    # k' + j after its first (k' the last wave's batches, trained while this one decoded).
    # drop_group drops it past s by its first, mask past s by its last.
    k = min(b, spec.max_staleness + 1) if mask else min(b, (spec.max_staleness + 1) / 2)
    publish = spec.publish_s_at(slot_seconds / decoding)
    period = decoding + k * publish  # decoding stops while weights are published
    trainer_rate = split.train_nodes * spec.rates.trainer_tokens_per_s_per_node
    busy = spec.prompts_per_step * spec.group_tokens_mean / trainer_rate
    if k * (busy + publish) >= period:
        return None  # the trainer is the bound: claims follow its takes and the waves dissolve
    dropped = 1 - k / b
    masked = 0.0
    if mask:
        # Batch j's tokens decoded before bump k + j − s of the wave are too stale; the trainer
        # trains the last wave's batches back to back from the wave's start, so bump i comes
        # after i·busy seconds of decoding.
        decoded = np.concatenate([[0.0], np.cumsum(running * np.diff(x))])
        clock = np.concatenate([[0.0], np.cumsum(seconds)])
        behind = k + np.arange(math.ceil(k)) - spec.max_staleness
        shares = np.interp(behind * busy, clock, decoded) / decoded[-1]
        masked = float(np.mean(np.where(behind >= 1, shares, 0.0)))
    step = period / k
    return Prediction(
        split=split,
        step_time_s=step,
        trainer_idle_fraction=(period - k * (busy + publish)) / period,
        trainer_publish_fraction=publish / step,
        rollout_idle_fraction=1 - slot_seconds / (spec.server_slots * period),
        staleness_mean=k + (k - 1) / 2,  # batch j of a wave is k + j versions old
        stale_dropped_fraction=dropped,
        trained_tokens_per_s=spec.prompts_per_step * spec.group_tokens_mean * (1 - masked) / step,
        bound="staleness" if dropped > 0.05 or masked > 0.05 else "rollout",
        group_latency_s=period,
        replica_utilisation=per_replica * g * lengths.mean / period / spec.replica_tokens_per_s,
        stale_masked_fraction=masked,
    )


def predict(spec: LoopSpec, split: Split) -> Prediction:
    if (waves := _waves(spec, split)) is not None:
        return waves
    window, needed, workers = spec.feed_window_groups, spec.groups_needed_per_step, spec.groups_in_flight
    free, unreplaced = _steady(spec, split, workers)
    if window is None or workers + needed * unreplaced <= window:
        return free
    # The feeder's window binds: a task is back in it only at the publish after its group is
    # consumed, so the groups in flight are the window less those finished and not yet
    # replaced (`needed` a step, each out for `unreplaced` steps); the workers find no task
    # between publishes and claim each batch as it is released.
    def over(n: float) -> float:
        return n + needed * _steady(spec, split, n, at_release=True)[1] - window

    lo, hi = 1e-3 * workers, float(workers)
    if over(hi) <= 0:
        lo = hi
    while hi - lo > 0.005 * hi:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if over(mid) <= 0 else (lo, mid)
    steady = _steady(spec, split, lo, at_release=True)[0]
    released = _release_waves(spec, split)
    return released if released is not None and released.step_time_s > steady.step_time_s else steady


def _kept_from_released(wall_s: np.ndarray, queued_s: float, step: float, limit: int, groups: _Groups | None = None,
                        stretch: float = 1.0) -> _Kept:
    """The trainer never waits and the feeder's window binds: each batch is claimed at the
    publish that releases it, its groups finishing at their latency (the queue wait spread
    evenly from none to twice `queued_s`, a burst queued FIFO), and the trainer takes the
    oldest finishes at each step's start. A group is consumed k = ⌈(finish + δ) / step⌉ bumps
    after its claim, δ the buffer's delay: the window keeps the mean k at `limit` (a task
    released at a publish is trained 1 + limit batches on). Groups slower than most land a
    bump later: dropped under drop_group (past `limit`), their oldest tokens masked under
    mask."""
    finish = wall_s[None, :] + (2 * _PHASES[:, None] - 1) * queued_s

    def versions(delay: float) -> np.ndarray:
        return np.maximum(np.ceil((finish + delay) / step - 1e-12), 1.0)

    lo, hi = 0.0, (limit + 1) * step
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if versions(mid).mean() < limit else (lo, mid)
    k = versions(lo)
    newest = k - np.floor(finish / step)  # bumps between its last token and its consumption
    kept = (newest if groups is not None else k) <= limit
    weight = kept.mean(axis=0)
    staleness = np.where(weight > 0, (k * kept).sum(axis=0) / np.maximum(kept.sum(axis=0), 1), limit)
    if groups is None:
        return _Kept(weight, staleness)
    masked = _masked(groups, np.full_like(k, 1e-9 * step), k, limit, step, stretch)
    return _Kept(weight, staleness, (masked * kept).sum(axis=0) / np.maximum(kept.sum(axis=0), 1))


# Replica batch orders averaged in _release_waves.
_RELEASE_ORDERS = 2


def _release_waves(spec: LoopSpec, split: Split) -> Prediction | None:
    """The window-bound loop as the batches it releases: each publish hands every replica its
    share of the next batch's requests at once, queued behind what it still runs (FIFO), and a
    batch released at one publish is trained s publishes later, the trainer waiting for its
    last group: step = (T + train + publish) / (s + 1), T the batch's drain from its release.

    T comes from replaying one replica through s + 4 releases (the second-to-last timed, so
    the ones after it load its tail as they would), every request at the speed its
    running batch allows, with the requests at equally likely lengths in a few seeded orders.
    The loop waits for the slowest replica: where the fleet has enough queued requests for one
    to be cut at the cap, one replica starts such a request last, so it goes last here. The
    fixed point in the step is found by bisection (a longer step overlaps batches less)."""
    g, s = spec.group_size, spec.max_staleness
    requests = max(1, round(spec.groups_needed_per_step * g / split.replicas))
    slots = spec.server_slots
    lengths = spec.lengths.quantiles(requests)
    queued = max(0, requests - slots)
    capped_last = queued * split.replicas * spec.lengths.capped_share(1) >= 1
    orders = []
    rng = np.random.default_rng(0)
    for _ in range(_RELEASE_ORDERS):
        order = rng.permutation(lengths)
        if capped_last:
            order = np.append(np.delete(order, int(np.argmax(order))), spec.lengths.max_tokens)
        orders.append(order)
    waves = s + 4  # the second-to-last is measured: the releases after it load its tail
    trainer_rate = split.train_nodes * spec.rates.trainer_tokens_per_s_per_node
    busy = spec.prompts_per_step * spec.group_tokens_mean / trainer_rate
    publish = spec.publish_s_at(min(requests, slots))

    def drain(period: float) -> tuple[float, float]:
        """(the last release's drain seconds, slot-seconds decoding a period), over the orders."""
        spans, areas = [], []
        for order in orders:
            arrivals = deque((k * period, k, float(x)) for k in range(waves) for x in order)
            queue, running = deque(), []  # running: (token clock at its end, release)
            clock = t = area = last = 0.0
            while arrivals or queue or running:
                speed = spec.request_tokens_per_s_at(len(running)) if running else 0.0
                finish = t + (running[0][0] - clock) / speed if running else math.inf
                arrive = arrivals[0][0] if arrivals else math.inf
                step_to = min(finish, arrive)
                clock += (step_to - t) * speed
                area += len(running) * (step_to - t)
                t = step_to
                if arrive <= finish:
                    while arrivals and arrivals[0][0] <= t:
                        queue.append(arrivals.popleft())
                else:
                    clock, k = heapq.heappop(running)
                    if k == waves - 2:
                        last = t
                while queue and len(running) < slots:
                    _, k, x = queue.popleft()
                    heapq.heappush(running, (clock + x, k))
            spans.append(last - (waves - 2) * period)
            areas.append(area / waves)
        return float(np.mean(spans)), float(np.mean(areas))

    lo = busy + publish
    if (drain(lo)[0] + busy + publish) / (s + 1) <= lo:
        return None  # the trainer is the bound
    hi = 2 * lo
    while (drain(hi)[0] + busy + publish) / (s + 1) > hi:
        hi *= 2
    while hi - lo > 1e-3 * hi:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if (drain(mid)[0] + busy + publish) / (s + 1) > mid else (lo, mid)
    span, area = drain(hi)
    step = hi
    return Prediction(
        split=split,
        step_time_s=step,
        trainer_idle_fraction=(step - busy - publish) / step,
        trainer_publish_fraction=publish / step,
        rollout_idle_fraction=1 - area / (slots * step),
        staleness_mean=float(s),
        stale_dropped_fraction=0.0,
        trained_tokens_per_s=spec.prompts_per_step * spec.group_tokens_mean / step,
        bound="rollout",
        group_latency_s=span,
        replica_utilisation=area / step * spec.request_tokens_per_s / spec.replica_tokens_per_s,
    )


def _steady(spec: LoopSpec, split: Split, in_flight: float, at_release: bool = False) -> tuple[Prediction, float]:
    """The steady state with `in_flight` groups claimed (module docstring), and the steps a
    finished group's task stays out of the feeder's window (_Kept.unreplaced). Groups are
    claimed at a uniform phase of the step (a worker claims as soon as it is free), or
    `at_release`: all at the publish that releases their tasks (the feeder's window binds)."""
    rates = spec.rates
    g, mean = spec.group_size, spec.lengths.mean
    s = spec.max_staleness
    replicas, lost = float(split.replicas), 0.0
    needed = spec.groups_needed_per_step
    if spec.spot is not None and spec.spot.reclaims_per_node_hour > 0:
        spot = spec.spot
        reclaims = spot.reclaims_per_node_hour * spec.replica_nodes / 3600  # per replica-second while up
        replicas /= 1 + reclaims * (spot.notice_s + spot.replacement_s)  # serving on average
    window = spec.feed_window_groups
    per_replica = in_flight / replicas
    # A group holds a request of each of its G responses decoding, the i-th for r_i of the
    # E[longest] tokens the group lasts: a replica with N groups runs N·G·mean / E[longest]
    # requests on average, at most its slots. With fewer a step reads less KV: each runs faster.
    longest_tokens = spec.lengths.mean_max(g)
    running = per_replica * g * mean / longest_tokens
    speed = spec.request_tokens_per_s_at(running)
    publish = spec.publish_s_at(running)  # a retracting pause re-prefills what was running
    longest = longest_tokens / speed  # seconds the longest response of a group decodes
    full = spec.replica_tokens_per_s
    replica_rate = min(full, per_replica * g * mean / longest)
    latency = max(longest, per_replica * g * mean / full)  # Little's law when slots are full
    if spec.spot is not None and spec.spot.reclaims_per_node_hour > 0:
        # A reclaim throws away what the replica's unfinished groups had decoded, about half a
        # latency of its work (the notice lets the short ones finish but idles their slots).
        lost = min(1.0, reclaims * latency / 2)
    fleet = replicas * replica_rate * (1 - lost)
    fleet_groups = fleet / (g * mean)  # groups per second of decoding
    produce = needed / fleet_groups  # decoding seconds the step's groups take, no drops
    trainer_rate = split.train_nodes * rates.trainer_tokens_per_s_per_node
    # The queue wait is the same for every group; the longest response is not.
    longest_q = spec.lengths.max_quantiles(g)
    tokens_q = spec.lengths.group_tokens_given_max(longest_q, g)
    groups = _Groups(latency - longest + longest_q / speed, tokens_q * (g * mean) / np.mean(tokens_q))
    mask = spec.stale_tokens == "mask"
    if mask:
        groups = replace(groups, queued_s=latency - longest, decode_s=longest_q / speed,
                         profile=_profile(spec.lengths, longest_q, g))
    per_token = groups if mask else None

    def stretch(step: float) -> float:
        return step / (step - publish)  # decoding stops while weights are published

    def waiting(step: float) -> tuple[float, float, _Kept]:
        """(step the rollout side allows, train seconds, kept) if the trainer waits for groups."""
        busy = spec.prompts_per_step * mean * g / trainer_rate
        for _ in range(3):  # the trained tokens depend on which groups survive, which depends on the wait
            wait = max(0.0, step - publish - busy)
            # The window: groups finishing while the trainer trains are replaced from the slack
            # (window − needed − in flight) first; the claims past it wait for the publish.
            if at_release:
                defer = 0.0
            else:
                defer = math.inf if window is None else wait + (window - needed - in_flight) * (step - publish) / needed
            kept = _kept_when_trainer_waits(groups.latency_s, step - publish, wait, s, per_token, defer, latency - longest)
            busy = spec.prompts_per_step * kept.trained_tokens(groups) / trainer_rate
        return publish + max(busy, produce / max(1 - kept.dropped, 1e-9)), busy, kept

    lo = publish + 1e-6 * (produce + 1)
    hi = max(publish + produce, publish + spec.step_tokens / trainer_rate) * 2
    while waiting(hi)[0] > hi:
        hi *= 2
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if waiting(mid)[0] > mid else (lo, mid)
    step = hi
    _, train_busy, kept = waiting(step)
    if step - publish - train_busy > 1e-6 * step:
        bound = "staleness" if kept.dropped > 0.05 else "rollout"
        rollout_busy = step - publish  # flat out
    else:
        bound = "trainer"
        # Workers outrun the trainer and fill the buffer up to about `cap`: they stop at the
        # high-water mark, but every stopped one claims again as soon as the trainer takes a
        # group, so a burst of up to all groups in flight lands on top of it, which the trainer
        # then drains a batch a step: on average half of it.
        cap = spec.high_water_groups + max(0.0, in_flight - needed) / 2
        step = publish + spec.step_tokens / trainer_rate
        # The feeder's window holds the buffer to what the groups in flight leave of it: by
        # Little's law `needed` · latency / decoding seconds a step are in flight.
        windowed = window is not None and window - needed - needed * latency / (step - publish) < cap
        if windowed:
            cap = max(0.0, window - needed - needed * latency / (step - publish))
        buffer_age = cap / needed + latency / (step - publish)  # in steps, for a FIFO drained `needed` a step
        n = len(groups.tokens)
        kept, rollout_busy = _Kept(np.ones(n), np.full(n, buffer_age)), produce
        if windowed:
            kept = _kept_from_released(groups.latency_s * stretch(step), (latency - longest) * stretch(step), step, s,
                                       per_token, stretch(step))
            rollout_busy = min(step - publish, produce / max(1 - kept.dropped, 1e-9))  # dropped ones are redone
        elif buffer_age > s:
            # A full buffer would be older than the staleness bound: the trainer sweeps it in
            # finish order, dropping stale groups, and workers produce ρ' a step, flat out
            # unless the groups the sweep leaves behind still fill the buffer to `cap`.
            for _ in range(20):
                flat_out = fleet_groups * (step - publish)
                wall = groups.latency_s * stretch(step)

                def sweep(produced: float):
                    return _kept_from_deep_buffer(wall, step, needed / produced, s, per_token, stretch(step))

                def level(produced: float, swept) -> float:
                    return produced * (1 + s - swept[1] / step)

                if (flat := sweep(flat_out)) is None:
                    break  # even flat out too few groups are fresh: the trainer would wait
                produced = flat_out
                if level(flat_out, flat) > cap:
                    lo, hi = needed, flat_out
                    for _ in range(30):
                        mid = (lo + hi) / 2
                        swept = sweep(mid)
                        lo, hi = (mid, hi) if swept is None or level(mid, swept) < cap else (lo, mid)
                    produced = hi
                kept = sweep(produced)[0]
                rollout_busy = (step - publish) * produced / flat_out
                new_step = publish + spec.prompts_per_step * kept.trained_tokens(groups) / trainer_rate
                if abs(new_step - step) < 1e-6 * step:
                    break
                step = new_step
        train_busy = step - publish
    # Slot-seconds decoding (as the simulator counts them): the requests a serving replica runs.
    slots_busy = rollout_busy * replicas * (1 - lost) * min(running, spec.server_slots) / (
        split.replicas * spec.server_slots)
    return Prediction(
        split=split,
        step_time_s=step,
        trainer_idle_fraction=(step - publish - train_busy) / step,
        trainer_publish_fraction=publish / step,
        rollout_idle_fraction=1 - slots_busy / step,
        staleness_mean=kept.mean_staleness(),
        stale_dropped_fraction=kept.dropped,
        trained_tokens_per_s=spec.prompts_per_step * kept.loss_tokens(groups) / step,
        bound=bound,
        group_latency_s=latency,
        replica_utilisation=replica_rate / full,
        stale_masked_fraction=kept.masked_fraction(groups),
    ), kept.unreplaced


@dataclass(frozen=True)
class Plan:
    budget: int
    current: Prediction | None
    recommended: Prediction
    # Best split when the pools' min/max sizes are ignored, if it differs from `recommended`.
    unconstrained: Prediction | None
    candidates: list[Prediction]


def make_plan(
    spec: LoopSpec,
    budget: int,
    current: tuple[int, int] | None,
    train_limits: tuple[int, int],
    rollout_limits: tuple[int, int],
) -> Plan:
    """Every feasible split of `budget` nodes, the best one inside the pool limits, and `current`."""
    if budget < spec.min_train_nodes + spec.replica_nodes:
        raise BalanceError(
            f"node budget {budget}: smaller than one trainer ({spec.min_train_nodes} node(s) for "
            f"the parallel layout's {spec.train_gpu_multiple} GPUs) plus one rollout replica ({spec.replica_nodes} node(s))"
        )
    if current is not None:
        _check_limits(current, train_limits, rollout_limits)
    candidates = []
    for train in range(spec.min_train_nodes, budget, spec.min_train_nodes):
        rollout = budget - train
        if spec.replicas(rollout) >= 1:
            candidates.append(predict(spec, spec.split(train, rollout)))
    inside = [p for p in candidates if _within(p.split, train_limits, rollout_limits)]
    if not inside:
        raise BalanceError(
            f"no split of {budget} nodes fits the pools: train {train_limits[0]}..{train_limits[1]} nodes "
            f"(a multiple of {spec.min_train_nodes}), rollout {rollout_limits[0]}..{rollout_limits[1]} "
            f"(pools.<pool>.min_size/max_size)"
        )
    recommended = _best(inside, current)
    best = _best(candidates, current)
    now = predict(spec, spec.split(*current)) if current is not None else None
    faster = best.step_time_s < recommended.step_time_s * (1 - _TIE)
    return Plan(budget, now, recommended, best if faster else None, candidates)


# Steps closer than this are a tie: the model is not that exact, and moving nodes has a cost.
_TIE = 0.005


def _best(predictions: list[Prediction], current: tuple[int, int] | None) -> Prediction:
    """The shortest step; among ties the current split, then the fewest stale drops, then the smallest move."""
    fastest = min(p.step_time_s for p in predictions)
    close = [p for p in predictions if p.step_time_s <= fastest * (1 + _TIE)]
    here = current[0] if current else 0
    return min(close, key=lambda p: ((p.split.train_nodes, p.split.rollout_nodes) != current,
                                     round(p.stale_dropped_fraction, 3), abs(p.split.train_nodes - here)))


def _within(split: Split, train_limits: tuple[int, int], rollout_limits: tuple[int, int]) -> bool:
    return train_limits[0] <= split.train_nodes <= train_limits[1] and rollout_limits[0] <= split.rollout_nodes <= rollout_limits[1]


def _check_limits(split: tuple[int, int], train_limits: tuple[int, int], rollout_limits: tuple[int, int]) -> None:
    for pool, nodes, (lo, hi) in (("train", split[0], train_limits), ("rollout", split[1], rollout_limits)):
        if not lo <= nodes <= hi:
            raise BalanceError(
                f"split {split[0]}:{split[1]}: {nodes} {pool} nodes is outside pools.{pool} min_size..max_size {lo}..{hi}"
            )


@dataclass(frozen=True)
class RewardTier:
    """The reward tier a split's rollout needs (job.rewards.model served by the job itself):
    every sample's prompt + response is scored once, at the rate the rollout servers decode."""

    scored_tokens_per_s: float
    replicas: int
    tensor_parallel: int
    nodes: int

    def as_dict(self) -> dict:
        return asdict(self)


def size_reward_tier(prediction: Prediction, spec: LoopSpec, prefill_tokens_per_s: float, prompt_tokens: float,
                     tensor_parallel: int, gpus_per_node: int) -> RewardTier:
    """Replicas of `prefill_tokens_per_s` (one replica's measured /classify rate) that keep up
    with the split's rollout: its response tokens/s decoded, plus each response's prompt.
    Slots fed times the full rate is the decoded rate only at one decode speed (spec.decode
    None: the measured rates `plan --reward-prefill-tokens-per-s` takes)."""
    decoded = prediction.split.rollout_nodes * spec.rates.rollout_tokens_per_s_per_node * prediction.slots_fed
    scored = decoded * (1 + prompt_tokens / spec.lengths.mean)
    replicas = max(1, math.ceil(scored / prefill_tokens_per_s))
    return RewardTier(scored, replicas, tensor_parallel, -(-replicas // (gpus_per_node // tensor_parallel)))
