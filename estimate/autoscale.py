"""The rollout autoscaling rule: how many SGLang replicas the loop's own signals ask for.

One rule, two renderings: `RolloutScaler.desired()` (the discrete-event simulator runs it, and
the tests) and `RolloutScaler.keda_formula()` (the KEDA ScaledObject in k8s/charts/autoscaling.py
evaluates the same expression over Prometheus queries of the same signals, spec.signals). Both
go through the HorizontalPodAutoscaler's own arithmetic (estimate.hpa): the formula emits
`RolloutScaler.metric_value()`, which the HPA turns into the rule's count.

Inputs: `asked`, the replicas the LeaderWorkerSet is asked for (its spec.replicas: what the fleet
holds, booting or not — the rule moves from there, so a group still booting or a server a spot
reclaim took is kept, never given up); `up`, the servers serving now (Prometheus can scrape them);
and, each over the last `window_s`:
- trainer idle: the trainer's share of time waiting for a batch. Above `idle_high` with less
  than one batch waiting in the buffer: rollout is the bottleneck: grow to what would have fed the
  trainer, up / (1 - idle), if that is more than is already asked for (servers still booting count
  as coming), by at least the HPA's smallest step (below) and at most `max_step` replicas (or that
  smallest step, when larger);
- buffer fill, in batches waiting (groups in the buffer / prompts per step): at least
  `batches_high` with the trainer below `idle_low`, or stale drops (groups the trainer discarded
  as over max_staleness, of those it looked at) above `stale_high`: rollout out-runs the
  trainer: a tenth fewer replicas (at least one);
- otherwise hold what is asked;
- no trainer series yet (`started` false: first apply, nothing has trained): the planner's split,
  `max_replicas`.
The result stays within [min_replicas, max_replicas]: at most the replicas of the planner's
split (`python -m payload plan` sizes pools.rollout.desired_size), never more than the pool holds.

The HPA's arithmetic (estimate.hpa): with metricType AverageValue and target 1 it proposes
ceil(value) when value / status.replicas leaves [0.9, 1.1], and status.replicas (the groups that
exist) inside it. So the formula emits the count itself when it grows (a grow is always more than
a tenth: `hpa_step`), and the count less 0.95 when it holds or shrinks: ceil gives the count back,
and a shrink by a tenth lands below 0.9 of what exists (so the HPA takes it; today's tolerance
cancelled it at 55 of 64 counts), while a hold lands inside the band (the HPA keeps what exists) or,
under 10 replicas or while groups drain, below it (the HPA takes the count). Per-HPA tolerance
(behavior.*.tolerance) would make the smallest step free, but it is alpha in Kubernetes 1.33 and
1.34 (feature gate HPAConfigurableTolerance), which EKS does not turn on.

A replica scaled down is drained first (payload.rollout.serve: the router stops sending it work,
its in-flight generations finish or go back to the queue), so scaling never loses a task.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from estimate.hpa import HPA, SYNC_S, TOLERANCE, default_scale_down, default_scale_up, keda_milli
from estimate.loop import BalanceError

# What a hold or shrink emits below the count: ceil() gives the count back, and a shrink by a
# tenth stays under 0.9 of status.replicas (the gap is at least 0.1 replica at every count).
HOLD_OFFSET = 0.95


@dataclass(frozen=True)
class Signals:
    trainer_idle_fraction: float
    buffer_batches: float  # groups waiting in the buffer / prompts per step
    stale_dropped_fraction: float


@dataclass(frozen=True)
class RolloutScaler:
    min_replicas: int
    max_replicas: int
    idle_high: float = 0.05
    idle_low: float = 0.02
    batches_high: float = 1.0
    stale_high: float = 0.05
    max_step: int = 4
    window_s: float = 300.0
    # KEDA's pollingInterval (activation only: the HPA asks KEDA's metrics server every sync_s).
    interval_s: float = 60.0
    # The HPA's sync period (kube-controller-manager's default, which EKS keeps).
    sync_s: float = SYNC_S
    # A scale-down takes the highest count the rule asked for over this window (the HPA's
    # scaleDown stabilizationWindowSeconds): no faster than a node can come back (~600 s to
    # boot, load weights and catch up), so capacity is not shed before the signals catch up.
    scale_down_stabilization_s: float = 180.0
    # A scale-up takes the lowest count asked for over this window (scaleUp
    # stabilizationWindowSeconds): longer than a removed group takes to drain (SPOT_GRACE_SECONDS,
    # 120 s). While the groups a shrink removed still terminate, status.replicas is above the spec
    # and within a tenth of it the HPA proposes status.replicas — a scale-up back to the groups on
    # their way out, without this window.
    scale_up_stabilization_s: float = 180.0
    tolerance: float = TOLERANCE

    def __post_init__(self) -> None:
        if not 1 <= self.min_replicas <= self.max_replicas:
            raise BalanceError(
                f"autoscaling bounds: min_replicas {self.min_replicas} must be at least 1 and at most "
                f"max_replicas {self.max_replicas}"
            )

    def hpa_step(self, asked: int) -> int:
        """The smallest grow the HPA takes from `asked` (ratio above 1 + tolerance): asked / 10 + 1."""
        return asked // 10 + 1

    def desired(self, asked: int, signals: Signals, up: int | None = None, started: bool = True) -> int:
        if not started:
            return self.max_replicas
        up = asked if up is None else up
        idle, batches, stale = signals.trainer_idle_fraction, signals.buffer_batches, signals.stale_dropped_fraction
        if idle > self.idle_high and batches < 1:
            fed = math.ceil(up / max(1.0 - idle, 1e-3))
            step = self.hpa_step(asked)
            want = min(max(fed, asked + step), asked + max(self.max_step, step)) if fed > asked else asked
        elif (batches >= self.batches_high and idle < self.idle_low) or stale > self.stale_high:
            want = asked - max(1, asked // 10)
        else:
            want = asked
        return max(self.min_replicas, min(self.max_replicas, want))

    def metric_value(self, asked: int, signals: Signals, up: int | None = None, started: bool = True) -> float:
        """What the formula hands the HPA (AverageValue, target 1) for the rule's count."""
        want = self.desired(asked, signals, up, started)
        # A grow clamped at max_replicas may be within a tenth of asked: emit at least the HPA's
        # smallest step, which the HPA takes and then clamps to maxReplicas itself.
        return float(max(want, asked + self.hpa_step(asked))) if want > asked else want - HOLD_OFFSET

    def hpa(self) -> HPA:
        """The HPA KEDA makes of the ScaledObject (k8s/charts/autoscaling.py sets the same fields)."""
        return HPA(
            min_replicas=self.min_replicas,
            max_replicas=self.max_replicas,
            target_milli=1000,
            scale_up=default_scale_up(self.scale_up_stabilization_s),
            scale_down=default_scale_down(self.scale_down_stabilization_s),
            tolerance=self.tolerance,
        )

    def keda_formula(self) -> str:
        """`metric_value` in KEDA's scalingModifiers formula language, over triggers named asked,
        up, started, idle, batches and stale. KEDA v2.20.2 compiles it with expr-lang/expr v1.17.8
        (its go.mod; pkg/scaling/modifiers/formula.go), whose builtins include ceil, floor, min and
        max (builtin/builtin.go) and whose `a ? b : c` and `&&`/`||` are the language's own."""
        step = "(floor(asked / 10) + 1)"
        fed = "ceil(up / max(1 - idle, 0.001))"
        grow = f"({fed} > asked ? min(max({fed}, asked + {step}), asked + max({self.max_step}, {step})) : asked)"
        shrink = "asked - max(1, floor(asked / 10))"
        rule = (
            f"(started < 1 ? {self.max_replicas} : (idle > {self.idle_high} && batches < 1 ? {grow} : "
            f"((batches >= {self.batches_high} && idle < {self.idle_low}) || stale > {self.stale_high} ? {shrink} : asked)))"
        )
        want = f"max({self.min_replicas}, min({self.max_replicas}, {rule}))"
        return f"{want} > asked ? max({want}, asked + {step}) : {want} - {HOLD_OFFSET}"


class SimulatedScaling:
    """The rule inside estimate.simulator: `Simulator.Config(controller=SimulatedScaling(...))`.

    The cluster's path, not a target of its own: every `sync_s` the HPA (estimate.hpa, the
    controller's arithmetic ported) reads the value the KEDA formula would compute from the
    signals the trainer and buffer export (`RolloutScaler.metric_value`, with the spec as `asked`
    and the routable replicas as `up`) and the LeaderWorkerSet's spec and status (status: the
    groups that exist, draining ones included), and writes a new spec. The simulator follows the
    spec: up by unparking replicas after `boot_s` (a node launching, loading weights, catching up),
    down by draining the least-loaded replica (the router stops sending it groups; its in-flight
    groups finish) and then parking it. It integrates the replicas that hold a node (serving,
    draining or booting) for GPU-hours.
    """

    def __init__(self, scaler: RolloutScaler, boot_s: float = 600.0) -> None:
        self.scaler = scaler
        self.boot_s = boot_s
        self.billed: list[tuple[float, int]] = []  # (time, replicas holding a node from then on)
        self.draining: set = set()
        self.decisions: list[tuple[float, int]] = []  # the spec the HPA wrote, each sync
        self.asked: list[tuple[float, int]] = []  # what the rule asked for, each sync
        self.hpa = scaler.hpa()

    def __call__(self, sim):
        self.sim = sim
        self.held = self.target = len(sim.replicas)
        self.billed.append((0.0, self.held))
        while True:
            yield sim.env.timeout(self.scaler.sync_s)
            now = sim.env.now
            signals, started = self._signals(), bool(sim.records)
            up = sum(r.routable for r in sim.replicas)
            self.asked.append((now, self.scaler.desired(self.target, signals, up, started)))
            value = self.scaler.metric_value(self.target, signals, up, started)
            want = self.hpa.reconcile(now, self.target, self.target + len(self.draining), keda_milli(value))
            self.decisions.append((now, want))
            if want > self.target:
                # Replicas still draining are kept first (no boot), then parked ones boot.
                for replica in [r for r in sim.replicas if r in self.draining or r.parked][: want - self.target]:
                    if replica in self.draining:
                        self.draining.discard(replica)
                        replica.draining = False
                    else:
                        sim.env.process(self._boot(replica))
            elif want < self.target:
                live = sorted((r for r in sim.replicas if r.routable), key=lambda r: r.outstanding)
                for replica in live[: self.target - want]:
                    sim.env.process(self._drain(replica))
            self.target = want

    def _hold(self, delta: int) -> None:
        self.held += delta
        self.billed.append((self.sim.env.now, self.held))

    def _boot(self, replica):
        replica.parked = False  # counted as held from now, routable only once up
        replica.up = False
        self._hold(+1)
        yield self.sim.env.timeout(self.boot_s)
        replica.up, replica.draining = True, False
        up, self.sim._replica_up = self.sim._replica_up, self.sim.env.event()
        up.succeed()

    def _drain(self, replica):
        """Stop routing to it, let its in-flight groups finish, then release its node."""
        replica.draining = True
        self.draining.add(replica)
        while replica.groups and replica.up and replica in self.draining:
            yield self.sim.env.timeout(1.0)
        if replica not in self.draining:
            return  # scaled back up before it was gone
        self.draining.discard(replica)
        replica.draining, replica.parked = False, True
        self._hold(-1)

    def _signals(self) -> Signals:
        sim, window = self.sim, self.scaler.window_s
        now = sim.env.now
        recent = [rec for rec, (end, _) in zip(sim.records, sim._marks) if end >= now - window] or sim.records[-1:]
        waited = sum(r[0] for r in recent)
        total = sum(r[0] + r[1] + r[2] for r in recent)
        looked = sum(r[5] for r in recent)
        return Signals(
            trainer_idle_fraction=waited / total if total else 0.0,
            buffer_batches=len(sim.buffer.items) / sim.spec.prompts_per_step,
            stale_dropped_fraction=sum(r[4] for r in recent) / looked if looked else 0.0,
        )

    def replica_hours(self, t0: float, t1: float) -> float:
        """Replica-hours held between t0 and t1 (serving, draining or booting)."""
        total = 0.0
        points = self.billed + [(t1, self.billed[-1][1])]
        for (start, held), (end, _) in zip(points, points[1:]):
            lo, hi = max(start, t0), min(end, t1)
            if hi > lo:
                total += held * (hi - lo)
        return total / 3600


@dataclass(frozen=True)
class Comparison:
    label: str
    step_time_s: float
    trainer_idle_fraction: float
    stale_dropped_fraction: float
    replica_hours: float
    gpu_hours: float
    trained_tokens: float
    reclaims: int

    @property
    def gpu_hours_per_million_tokens(self) -> float:
        return self.gpu_hours / (self.trained_tokens / 1e6)


def compare(spec, split, scaler: RolloutScaler, *, steps: int, seed: int, boot_s: float = 600.0) -> tuple[Comparison, Comparison]:
    """The fixed split against the same split under the rule, same seed: rollout GPU-hours over
    the measured steps (after the simulator's warm-up), trainer idle, step time."""
    from estimate.simulator import Simulator

    results = []
    for label, controller in (("fixed", None), ("autoscaled", SimulatedScaling(scaler, boot_s=boot_s))):
        sim = Simulator.Config(spec, split, steps=steps, seed=seed, controller=controller).build()
        result = sim.run()
        t0 = sim._marks[sim.config.warmup_steps - 1][0]
        t1 = sim._marks[-1][0]
        hours = controller.replica_hours(t0, t1) if controller else split.replicas * (t1 - t0) / 3600
        results.append(
            Comparison(
                label=label,
                step_time_s=result.step_time_s,
                trainer_idle_fraction=result.trainer_idle_fraction,
                stale_dropped_fraction=result.stale_dropped_fraction,
                replica_hours=hours,
                gpu_hours=hours * spec.replica_gpus,
                trained_tokens=result.trained_tokens_per_s * (t1 - t0),
                reclaims=result.reclaims,
            )
        )
    return results[0], results[1]
