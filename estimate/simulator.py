"""A discrete-event (SimPy) model of the asynchronous RL loop at cluster scale.

    result = Simulator.Config(spec, spec.split(16, 32), steps=40, seed=0).build().run()

What is modelled, one object per real thing (estimate.loop has the numbers):

- rollout workers: `spec.groups_in_flight` slots; each waits for room below the buffer's
  high-water mark, claims a task, sends its `group_size` requests through the router to the
  replica with the fewest outstanding requests, and writes the finished group to the buffer
  tagged with the policy version it started under;
- a replica: `server_slots` requests decode at once, each at the same speed, the rest queue
  (SGLang continuous batching); that speed follows how many run (spec.decode: fewer requests,
  less KV a step, faster each); response lengths are drawn from the lognormal of the spec;
- the trainer: takes groups FIFO, drops stale (spec.job.drops_group: by a group's claim
  version, or under rollout.stale_tokens mask by its finish version) and equal-reward ones,
  trains the batch at the trainer's token rate, publishes (the trainer and every replica
  pause), bumps the version. Every token keeps the version that decoded it: each replica notes
  its token clock at every bump, each request where on that clock it started, so under mask
  the trainer leaves out of the count exactly the tokens decoded more than max_staleness
  versions ago (it still computes them);
- spot: each rollout node is reclaimed at a Poisson rate; after the interruption notice (the
  router stops sending new groups) the replica dies, its unfinished groups fail, and it serves
  again after the replacement delay. Failed tasks return to the queue at once (hand-back) or
  after the visibility timeout;
- autoscaling (optional, estimate.autoscale): a controller parks and unparks replicas
  on the loop's signals, draining a replica (no new groups, in-flight ones finish) before it goes;
- the prompt feed: the dataset feeder's window (spec.feed_window_groups, payload/data/feeder.py):
  after each publish the trainer tops the tasks outstanding (issued, not yet trained or
  dropped) back up to it; `Config.feed_window_groups` overrides it, spec.feed_window False
  makes the feed unlimited (workers always find a task). A window of one batch with
  max_staleness 0 is a synchronous loop.

Everything random comes from one seeded generator and SimPy orders simultaneous events
deterministically, so a seed reproduces a run exactly.
"""

from __future__ import annotations

import heapq
from collections import deque
from dataclasses import dataclass

import numpy as np
import simpy

from estimate.loop import BalanceError, LoopSpec, Split
from spec.job import drops_group


@dataclass(frozen=True)
class SimResult:
    steps: int  # steps measured (after the warm-up)
    step_time_s: float
    trainer_idle_fraction: float  # waiting for a batch
    trainer_publish_fraction: float
    rollout_idle_fraction: float  # server slots not decoding (paused, backpressured, under-fed, down)
    staleness_mean: float  # over trained groups, in policy versions
    group_latency_s: float  # claim to finished, trained groups
    group_age_s: float  # claim to consumed, trained groups
    stale_dropped_fraction: float  # of the groups the trainer looked at
    trained_tokens_per_s: float  # in the loss: masked stale tokens (rollout.stale_tokens mask) left out
    stale_masked_fraction: float  # of the trained groups' tokens, masked as too stale
    wasted_tokens_fraction: float  # decoded tokens that never reached an optimizer step
    reclaims: int


@dataclass
class _Group:
    version: int  # at the claim: its oldest tokens'
    tokens: float
    claimed_s: float
    finished_s: float
    finish_version: int  # its newest tokens'
    replica: "_Replica"
    starts: list  # (the replica's token clock when a request started, its tokens)

    def tokens_before(self, bump: int) -> float:
        """Tokens decoded before the replica's `bump`-th version bump (1-based): older versions'."""
        if bump < 1:
            return 0.0
        clock = self.replica.bumps[bump - 1]
        return sum(min(max(clock - start, 0.0), n) for start, n in self.starts)


class _Pauses:
    """Weight publishing: every replica stops decoding while the trainer publishes."""

    def __init__(self, env: simpy.Environment) -> None:
        self.env = env
        self.since: float | None = None
        self._total = 0.0
        self.resumed = env.event()

    def decoding_clock(self) -> float:
        """Seconds so far not spent paused."""
        return self.env.now - self._total - (self.env.now - self.since if self.since is not None else 0.0)

    def start(self) -> None:
        self.since = self.env.now

    def end(self) -> None:
        self._total += self.env.now - self.since
        self.since = None
        resumed, self.resumed = self.resumed, self.env.event()
        resumed.succeed()


class _Decoding:
    """∫ (requests decoding) dt over time not paused: the slot-seconds the fleet did work."""

    def __init__(self, env: simpy.Environment, pauses: _Pauses) -> None:
        self.env, self.pauses = env, pauses
        self.running = 0
        self.area = 0.0
        self._last = 0.0

    def touch(self) -> None:
        if self.pauses.since is None:
            self.area += self.running * (self.env.now - self._last)
        self._last = self.env.now

    def add(self, n: int) -> None:
        self.touch()
        self.running += n


class _InFlight:
    """One group on a replica: done fires True when its last response ends, False if the replica dies."""

    __slots__ = ("left", "running", "done", "alive", "starts")

    def __init__(self, env: simpy.Environment, requests: int) -> None:
        self.left = requests
        self.running = 0
        self.done = env.event()
        self.alive = True
        self.starts: list[tuple[float, float]] = []


class _Replica:
    """One SGLang server at a fixed decode speed (spec.decode None): `slots` requests decode at
    once at the same speed, the rest wait in arrival order (continuous batching). Each request
    is its own event, as _SharedReplica's cannot be (its end moves whenever the batch does):
    many requests ending together (a cap reached) then finish in the order they started. Requests are callbacks, not processes: a cluster holds
    tens of thousands of them."""

    def __init__(self, sim: "Simulator", slots: int) -> None:
        self.sim = sim
        self.free = slots
        self.waiting: deque[tuple[_InFlight, float]] = deque()
        self.outstanding = 0  # requests routed here and not finished
        self.up = True
        self.draining = False
        self.parked = False  # scaled down by the autoscaler: no node
        self.groups: set[_InFlight] = set()
        self.bumps: list[float] = []  # token_clock() at each version bump

    def token_clock(self) -> float:
        """Tokens a request running since the start would have decoded here (one speed for all)."""
        return self.sim.pauses.decoding_clock() * self.sim.spec.request_tokens_per_s

    @property
    def routable(self) -> bool:
        return self.up and not self.draining and not self.parked

    def submit(self, group: _InFlight, lengths: np.ndarray) -> None:
        self.groups.add(group)
        self.outstanding += len(lengths)
        speed = self.sim.spec.request_tokens_per_s
        self.waiting.extend((group, float(n) / speed) for n in lengths)
        self._admit()

    def _admit(self) -> None:
        while self.free and self.waiting:
            group, need = self.waiting.popleft()
            self.free -= 1
            group.running += 1
            group.starts.append((self.token_clock(), need * self.sim.spec.request_tokens_per_s))
            self.sim.decoding.add(1)
            self._wake(group, self.sim.pauses.decoding_clock() + need)

    def _wake(self, group: _InFlight, finish: float) -> None:
        """`finish` is on the decoding clock, which stops while weights are published."""
        if not group.alive:
            return
        pauses = self.sim.pauses
        remaining = finish - pauses.decoding_clock()
        if remaining <= 1e-9:
            self._finish(group)
            return
        event = pauses.resumed if pauses.since is not None else self.sim.env.timeout(remaining)
        event.callbacks.append(lambda _: self._wake(group, finish))

    def _finish(self, group: _InFlight) -> None:
        self._release(group)
        self._admit()

    def _release(self, group: _InFlight) -> None:
        """One of `group`'s requests has ended here: its slot is free, the group done if last."""
        self.free += 1
        self.outstanding -= 1
        self.sim.decoding.add(-1)
        group.running -= 1
        group.left -= 1
        if group.left == 0:
            self.groups.discard(group)
            group.done.succeed(True)

    def kill(self) -> None:
        """The node is gone: every group on it fails, what it had decoded is lost."""
        for group in self.groups:
            group.alive = False
            self.free += group.running
            self.outstanding -= group.left
            self.sim.decoding.add(-group.running)
            group.done.succeed(False)
        self.groups.clear()
        self.waiting.clear()
        self.up = False


class _SharedReplica(_Replica):
    """One SGLang server whose decode speed follows its batch (spec.decode): `slots` requests
    decode at once, the rest wait in arrival order (continuous batching). Every running request
    advances at the same speed, which depends on how many run (spec.request_tokens_per_s_at: a step reads their KV): the replica keeps one
    token clock `v` (tokens each running request has decoded here) and a heap of the clock
    readings at which its requests end, and re-plans its next finish whenever the batch changes.
    Requests are entries, not processes: a cluster holds tens of thousands of them."""

    def __init__(self, sim: "Simulator", slots: int) -> None:
        super().__init__(sim, slots)
        self._ends: list[tuple[float, int, _InFlight]] = []  # (token clock at its end, order, group)
        self._order = 0
        self.v = 0.0
        self._clock = 0.0  # the decoding clock (pauses excluded) when v was last brought up to date
        self._plan = 0  # the current wake-up; older ones are ignored

    def _speed(self) -> float:
        return self.sim.spec.request_tokens_per_s_at(len(self._ends))

    def token_clock(self) -> float:
        self._advance()
        return self.v

    def _advance(self) -> None:
        now = self.sim.pauses.decoding_clock()
        if self._ends:
            step = (now - self._clock) * self._speed()
            self.v += step
            self.sim.decoded_tokens += step * len(self._ends)
        self._clock = now

    def submit(self, group: _InFlight, lengths: np.ndarray) -> None:
        self.groups.add(group)
        self.outstanding += len(lengths)
        self.waiting.extend((group, float(n)) for n in lengths)
        self._advance()
        self._admit()

    def _admit(self) -> None:
        """Start waiting requests on free slots (v is up to date), then plan the next finish."""
        while self.free and self.waiting:
            group, tokens = self.waiting.popleft()
            self.free -= 1
            group.running += 1
            group.starts.append((self.v, tokens))
            self.sim.decoding.add(1)
            self._order += 1
            heapq.heappush(self._ends, (self.v + tokens, self._order, group))
        self._plan += 1
        if not self._ends:
            return
        plan, pauses = self._plan, self.sim.pauses
        # `finish` is on the decoding clock, which stops while weights are published.
        event = pauses.resumed if pauses.since is not None else self.sim.env.timeout(
            max(0.0, (self._ends[0][0] - self.v) / self._speed()))
        event.callbacks.append(lambda _: self._wake(plan))

    def _wake(self, plan: int) -> None:
        if plan != self._plan:
            return
        self._advance()
        # One request a wake-up, as if each had its own event: requests ending together (a cap
        # reached by many) then finish one by one, the workers they free claiming and routing in
        # between, not all of a replica's at once (which would herd the claims onto it).
        if self._ends and self._ends[0][0] <= self.v + 1e-6:
            _, _, group = heapq.heappop(self._ends)
            self._release(group)
        self._admit()

    def kill(self) -> None:
        self._advance()
        super().kill()
        self._ends.clear()
        self._plan += 1


class Simulator:
    @dataclass
    class Config:
        spec: LoopSpec
        split: Split
        steps: int = 40
        # Steps left out of the figures while the buffer fills and the versions spread.
        warmup_steps: int = 5
        seed: int = 0
        # Tasks outstanding after each publish (issued, not yet trained or dropped); None: the
        # spec's (the feeder's window, or unlimited where spec.feed_window is False).
        feed_window_groups: int | None = None
        visibility_timeout_s: float = 600.0
        # A process factory `controller(simulator)` run beside the loop (estimate.autoscale).
        controller: object | None = None

        def __post_init__(self) -> None:
            if self.feed_window_groups is None:
                self.feed_window_groups = self.spec.feed_window_groups
            if self.steps <= self.warmup_steps or self.warmup_steps < 0:
                raise BalanceError(f"simulate {self.steps} steps: must exceed the {self.warmup_steps} warm-up steps")
            if self.feed_window_groups is not None and self.feed_window_groups < self.spec.prompts_per_step:
                raise BalanceError(
                    f"feed window {self.feed_window_groups} groups: must hold at least one batch "
                    f"({self.spec.prompts_per_step} prompts)"
                )

        def build(self) -> "Simulator":
            return Simulator(self)

    def __init__(self, config: Config) -> None:
        self.config = config
        spec = self.spec = config.spec
        self.env = simpy.Environment()
        self.rng = np.random.default_rng(config.seed)
        self.pauses = _Pauses(self.env)
        self.decoding = _Decoding(self.env, self.pauses)
        replica = _Replica if spec.decode is None else _SharedReplica
        self.replicas = [replica(self, spec.server_slots) for _ in range(config.split.replicas)]
        self.buffer = simpy.Store(self.env)
        self.version = 0
        self._room = self.env.event()
        self._replica_up = self.env.event()
        self.tasks: simpy.Store | None = None
        if config.feed_window_groups is not None:
            self.tasks = simpy.Store(self.env)
            self.tasks.items.extend(range(config.feed_window_groups))
        self._outstanding = config.feed_window_groups or 0
        self._issued = self._outstanding
        self.decoded_tokens = 0.0  # every request's decoded tokens so far, on every replica
        self._trainer_rate = spec.rates.trainer_tokens_per_s_per_node * config.split.train_nodes
        self.reclaims = 0
        # Per step: (wait s, busy s, publish s, staleness of each trained group, stale drops,
        # groups looked at, tokens trained, latency and age of each trained group); and at each
        # step's end: (time, decoding slot-seconds).
        self.records: list[tuple] = []
        self._marks: list[tuple[float, float]] = []
        self._tokens: list[float] = []  # decoded tokens at each step's end

    # -- rollout ------------------------------------------------------------------------------

    def _route(self) -> _Replica | None:
        live = [r for r in self.replicas if r.routable]
        return min(live, key=lambda r: r.outstanding) if live else None

    def _worker_slot(self):
        spec = self.spec
        while True:
            while len(self.buffer.items) >= spec.high_water_groups:
                yield self._room
            task = None
            if self.tasks is not None:
                task = yield self.tasks.get()
            while (replica := self._route()) is None:
                yield self._replica_up
            version, claimed = self.version, self.env.now
            lengths = spec.lengths.sample(self.rng, spec.group_size)
            group = _InFlight(self.env, spec.group_size)
            replica.submit(group, lengths)
            finished = yield group.done
            if finished:
                yield self.buffer.put(_Group(version, float(lengths.sum()), claimed, self.env.now, self.version,
                                             replica, group.starts))
            elif self.tasks is not None:
                self._return_task(task)

    def _return_task(self, task: int) -> None:
        spot = self.spec.spot
        if spot is not None and not spot.hand_back:
            def later():
                yield self.env.timeout(self.config.visibility_timeout_s)
                yield self.tasks.put(task)

            self.env.process(later())
        else:
            self.tasks.put(task)

    def _spot(self, replica: _Replica):
        spot = self.spec.spot
        rate = spot.reclaims_per_node_hour * self.spec.replica_nodes / 3600
        while True:
            yield self.env.timeout(self.rng.exponential(1 / rate))
            if replica.parked:
                continue
            replica.draining = True
            yield self.env.timeout(spot.notice_s)
            replica.kill()
            self.reclaims += 1
            yield self.env.timeout(spot.replacement_s)
            replica.up, replica.draining = True, False
            up, self._replica_up = self._replica_up, self.env.event()
            up.succeed()

    # -- trainer ------------------------------------------------------------------------------

    def _trainer(self):
        spec, rates = self.spec, self.spec.rates
        for _ in range(self.config.steps):
            started = self.env.now
            batch: list[_Group] = []
            staleness: list[int] = []
            latency: list[float] = []
            age: list[float] = []
            stale = looked = 0
            masked = 0.0
            while len(batch) < spec.prompts_per_step:
                group = yield self.buffer.get()
                looked += 1
                room, self._room = self._room, self.env.event()
                room.succeed()
                self._outstanding -= 1
                # spec.job's rule, as the queues apply it: a group decoded across publishes has
                # its claim's version as its oldest tokens' and its finish's as its newest.
                if drops_group(group.version, group.finish_version, self.version, spec.max_staleness,
                               spec.stale_tokens):
                    stale += 1
                elif self.rng.random() >= rates.filtered_fraction:
                    batch.append(group)
                    # Tokens older than max_staleness versions: none unless mask kept the group.
                    masked += group.tokens_before(self.version - spec.max_staleness)
                    staleness.append(self.version - group.version)
                    latency.append(group.finished_s - group.claimed_s)
                    age.append(self.env.now - group.claimed_s)
            waited = self.env.now - started
            tokens = sum(g.tokens for g in batch)
            busy = tokens / self._trainer_rate
            yield self.env.timeout(busy)
            self.decoding.touch()
            self.pauses.start()
            # A retracting pause re-prefills the requests the replicas were running.
            running = sum(spec.server_slots - r.free for r in self.replicas) / max(len(self.replicas), 1)
            publish_s = spec.publish_s_at(running)
            yield self.env.timeout(publish_s)
            self.decoding.touch()
            self.pauses.end()
            self.version += 1
            for replica in self.replicas:
                replica.bumps.append(replica.token_clock())
            if self.tasks is not None:
                for _ in range(self.config.feed_window_groups - self._outstanding):
                    self.tasks.put(self._issued)
                    self._issued += 1
                self._outstanding = self.config.feed_window_groups
            self.records.append((waited, busy, publish_s, staleness, stale, looked, tokens, latency, age, masked))
            self._marks.append((self.env.now, self.decoding.area))
            self._tokens.append(self.decoded_tokens)

    def run(self) -> SimResult:
        config, spec = self.config, self.spec
        for _ in range(spec.groups_in_flight):
            self.env.process(self._worker_slot())
        if spec.spot is not None and spec.spot.reclaims_per_node_hour > 0:
            for replica in self.replicas:
                self.env.process(self._spot(replica))
        if config.controller is not None:
            self.env.process(config.controller(self))
        trainer = self.env.process(self._trainer())
        self.env.run(until=trainer)
        measured = self.records[config.warmup_steps:]
        t0, area0 = self._marks[config.warmup_steps - 1] if config.warmup_steps else (0.0, 0.0)
        t1, area1 = self._marks[-1]
        if spec.decode is None:  # one speed: decoded tokens are the decoding slot-seconds at it
            tokens0, tokens1 = area0 * spec.request_tokens_per_s, area1 * spec.request_tokens_per_s
        else:
            tokens0 = self._tokens[config.warmup_steps - 1] if config.warmup_steps else 0.0
            tokens1 = self._tokens[-1]
        wall = t1 - t0
        n = len(measured)
        trained = sum(r[6] for r in measured)
        masked = sum(r[9] for r in measured)
        staleness = [s for r in measured for s in r[3]]
        decoded = area1 - area0
        slots = len(self.replicas) * spec.server_slots
        return SimResult(
            steps=n,
            step_time_s=wall / n,
            trainer_idle_fraction=sum(r[0] for r in measured) / wall,
            trainer_publish_fraction=sum(r[2] for r in measured) / wall,
            rollout_idle_fraction=1 - decoded / (slots * wall),
            staleness_mean=float(np.mean(staleness)),
            group_latency_s=float(np.mean([x for r in measured for x in r[7]])),
            group_age_s=float(np.mean([x for r in measured for x in r[8]])),
            stale_dropped_fraction=sum(r[4] for r in measured) / sum(r[5] for r in measured),
            trained_tokens_per_s=(trained - masked) / wall,
            stale_masked_fraction=masked / trained if trained > 0 else 0.0,
            wasted_tokens_fraction=max(0.0, 1 - (trained - masked) / (tokens1 - tokens0)) if tokens1 > tokens0 else 0.0,
            reclaims=self.reclaims,
        )
