"""A simulated day of the rollout fleet under KEDA + the HPA's real arithmetic (estimate.hpa, ported
from kube-controller-manager's replica calculator and behavior normalization): first apply,
Cluster Autoscaler node boots, weights loading, servers becoming ready, spot reclaims, the trainer's
demand changing (idle and buffer fill follow). Today's formula (servers up as the base, the rule's
count emitted as is, spec.replicas 64 in the manifest) collapses the fleet; the new one holds and
moves by the rule's steps.

The cluster model, every HPA sync (15 s):
- LeaderWorkerSet: spec.replicas groups of one pod each on 4 GPUs, two to a p5en node; lowering
  the spec terminates the highest groups (`DRAIN_S` to drain, counted in status.replicas meanwhile,
  as the leader StatefulSet counts a terminating pod); a group whose node is reclaimed is recreated
  pending at once;
- Cluster Autoscaler: pending groups that fit no node start nodes (`BOOT_S` to join, at most the
  pool's 32), an empty node goes after 10 minutes; a group on a node loads weights (`LOAD_S`) and
  then serves;
- Prometheus scrapes `up`, kube-state-metrics and the trainer every 30 s (the formula reads values
  30 s old); the trainer needs `demand` servers to never wait: with fewer it idles 1 - up/demand of
  the time once the buffer is empty, with more the buffer fills (to 2.5 batches, the high-water mark);
  its idle share is averaged over the rule's 300 s window.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from estimate.autoscale import RolloutScaler, Signals
from estimate.hpa import HPA, SYNC_S, default_scale_down, default_scale_up, keda_milli

PLAN = 64  # the split's replicas (p5en-48: 32 rollout nodes x 2 four-GPU servers)
PER_NODE, GROUP_GPUS, NODE_GPUS, POOL_NODES = 2, 4, 8, 32
TRAINER_GPUS = 128
BOOT_S, LOAD_S, DRAIN_S, CA_UNNEEDED_S, SCRAPE_S = 480.0, 300.0, 120.0, 600.0, 30.0
TRAINER_START_S = 900.0
STEP_S = 120.0  # a training step when fed
DAY_S = 24 * 3600.0
# (from, servers the trainer needs): responses grow at 6 h, the trainer slows at 14 h, back at 20 h.
DEMAND = [(0.0, 56), (6 * 3600.0, 64), (14 * 3600.0, 40), (20 * 3600.0, 60)]
RECLAIMS = {9 * 3600.0: 3, 18 * 3600.0: 4}  # spot: nodes taken back


def demand(t: float) -> int:
    return [d for start, d in DEMAND if start <= t][-1]


@dataclass
class Node:
    ready_at: float
    groups: list = field(default_factory=list)  # Group objects placed on it
    empty_since: float | None = None


@dataclass
class Group:
    state: str  # pending, loading, ready, terminating
    until: float = 0.0
    node: Node | None = None


@dataclass
class Day:
    timeline: list[tuple[float, int, int, int]]  # (t, spec, status, up)
    rollout_gpu_hours: float
    rollout_idle_gpu_hours: float
    trainer_idle_gpu_hours: float

    def spec_at(self, t: float) -> int:
        return [s for at, s, _, _ in self.timeline if at <= t][-1]

    def up_at(self, t: float) -> int:
        return [u for at, _, _, u in self.timeline if at <= t][-1]

    def min_spec(self, t0: float, t1: float) -> int:
        return min(s for at, s, _, _ in self.timeline if t0 <= at <= t1)

    def hourly(self) -> str:
        return " ".join(f"{int(h)}h:{self.spec_at(h * 3600.0)}/{self.up_at(h * 3600.0)}" for h in
                        (0.05, 0.1, 0.25, 0.5, 1, 2, 4, 6, 7, 8, 9, 9.5, 10, 12, 14, 15, 16, 18, 18.5, 20, 21, 22, 24))


def simulate(formula: str, scaler: RolloutScaler, initial_spec: int) -> Day:
    """formula: "today" (servers up as `replicas`, the count emitted as is, no scale-up window) or
    "new" (estimate.autoscale's metric_value over the LWS's spec as kube-state-metrics has it)."""
    if formula == "today":
        hpa = HPA(scaler.min_replicas, scaler.max_replicas, 1000, default_scale_up(0),
                  default_scale_down(scaler.scale_down_stabilization_s))
    else:
        hpa = scaler.hpa()
    spec = initial_spec
    groups: dict[int, Group] = {}
    leaving: list[Group] = []
    nodes: list[Node] = []
    buffer = 0.0
    idle_log: list[tuple[float, float]] = []
    seen: list[tuple[float, dict]] = []  # what Prometheus holds, scraped every SCRAPE_S
    timeline, node_s, useful_s, trainer_idle_s = [], 0.0, 0.0, 0.0
    t, next_scrape = 0.0, 0.0
    while t <= DAY_S:
        # Spot reclaims: the nodes go, their groups are recreated pending.
        for at, count in RECLAIMS.items():
            if at <= t < at + SYNC_S:
                for node in [n for n in nodes if n.groups][:count]:
                    nodes.remove(node)
                    for i in [i for i, g in groups.items() if g.node is node]:
                        groups[i] = Group("pending")
                    leaving[:] = [g for g in leaving if g.node is not node]
        # The LWS follows its spec.
        for i in [i for i in groups if i >= spec]:
            group = groups.pop(i)
            group.state, group.until = "terminating", t + DRAIN_S
            leaving.append(group)
        for group in [g for g in leaving if g.until <= t]:
            leaving.remove(group)
            if group.node:
                group.node.groups.remove(group)
        for i in range(spec):
            groups.setdefault(i, Group("pending"))
        # Scheduling, loading, Cluster Autoscaler.
        for i, group in groups.items():
            if group.state == "loading" and group.until <= t:
                group.state = "ready"
            if group.state == "pending":
                node = next((n for n in nodes if n.ready_at <= t and len(n.groups) < PER_NODE), None)
                if node:
                    node.groups.append(group)
                    group.state, group.until, group.node = "loading", t + LOAD_S, node
        pending = sum(g.state == "pending" for g in groups.values())
        room = sum(PER_NODE - len(n.groups) for n in nodes)
        if pending > room:
            for _ in range(min(math.ceil((pending - room) / PER_NODE), POOL_NODES - len(nodes))):
                nodes.append(Node(ready_at=t + BOOT_S))
        for node in list(nodes):
            if node.groups or node.ready_at > t:
                node.empty_since = None
            elif node.empty_since is None:
                node.empty_since = t
            elif t - node.empty_since >= CA_UNNEEDED_S:
                nodes.remove(node)
        up = sum(g.state == "ready" for g in groups.values())
        status = len(groups) + len(leaving)
        # The trainer and the buffer.
        need = demand(t)
        started = t >= TRAINER_START_S
        if started:
            rate = up / need
            if buffer > 0.05:
                idle = 0.0
                buffer += (rate - 1) * SYNC_S / STEP_S
            else:
                idle = max(0.0, 1 - rate)
                buffer += max(0.0, rate - 1) * SYNC_S / STEP_S
            buffer = min(max(buffer, 0.0), 2.5)
            idle_log.append((t, idle))
            trainer_idle_s += idle * SYNC_S
        if t >= next_scrape:
            window = [i for at, i in idle_log if at > t - scaler.window_s]
            seen.append((t, {"spec": spec, "up": up, "started": started,
                             "idle": sum(window) / len(window) if window else 0.0, "batches": buffer if started else 0.0}))
            next_scrape = t + SCRAPE_S
        # The HPA's sync, over what Prometheus held SCRAPE_S ago.
        old = [s for at, s in seen if at <= t - SCRAPE_S]
        if old:
            m = old[-1]
            signals = Signals(m["idle"], m["batches"], 0.0)
            if formula == "today":
                value = float(scaler_today_desired(scaler, m["up"], signals))
            else:
                value = scaler.metric_value(m["spec"], signals, m["up"], m["started"])
            spec = hpa.reconcile(t, spec, status, keda_milli(value))
        node_s += len(nodes) * SYNC_S
        useful_s += min(up, need) * SYNC_S
        timeline.append((t, spec, status, up))
        t += SYNC_S
    return Day(timeline, node_s * NODE_GPUS / 3600, (node_s * NODE_GPUS - useful_s * GROUP_GPUS) / 3600,
               trainer_idle_s * TRAINER_GPUS / 3600)


def scaler_today_desired(scaler: RolloutScaler, replicas: int, signals: Signals) -> int:
    """The rule as today's formula had it: the servers up as `replicas`, grown/shrunk/held from there
    (the keda_formula before this change: `replicas` was count(up{...} == 1))."""
    idle, batches, stale = signals.trainer_idle_fraction, signals.buffer_batches, signals.stale_dropped_fraction
    if idle > scaler.idle_high and batches < 1:
        want = min(math.ceil(replicas / max(1.0 - idle, 1e-3)), replicas + scaler.max_step)
    elif (batches >= scaler.batches_high and idle < scaler.idle_low) or stale > scaler.stale_high:
        want = replicas - max(1, replicas // 10)
    else:
        want = replicas
    return max(scaler.min_replicas, min(scaler.max_replicas, want))


SCALER = RolloutScaler(min_replicas=1, max_replicas=PLAN)


def test_todays_formula_collapses_the_fleet_on_first_apply_and_after_a_reclaim():
    day = simulate("today", SCALER, initial_spec=PLAN)
    print("today", day.hourly(), f"rollout GPU-h {day.rollout_gpu_hours:.0f} idle {day.rollout_idle_gpu_hours:.0f}"
          f" trainer idle GPU-h {day.trainer_idle_gpu_hours:.0f}")
    # 64 asked, nothing up: after the 180 s scale-down window the HPA takes the fleet to the floor.
    assert day.min_spec(0, 600) <= 2
    # ... and it creeps back: far from the split an hour in.
    assert day.up_at(3600.0) < 0.5 * demand(3600.0)


def test_the_new_formula_holds_the_fleet_and_moves_by_the_rules_steps():
    day = simulate("new", SCALER, initial_spec=1)  # no spec.replicas in dist/: the LWS default
    today = simulate("today", SCALER, initial_spec=PLAN)
    print("new  ", day.hourly(), f"rollout GPU-h {day.rollout_gpu_hours:.0f} idle {day.rollout_idle_gpu_hours:.0f}"
          f" trainer idle GPU-h {day.trainer_idle_gpu_hours:.0f}")
    # First apply: the split asked within the scale-up window and the HPA's ramp, never collapsed.
    assert day.spec_at(SCALER.scale_up_stabilization_s + 120) == PLAN
    assert day.min_spec(SCALER.scale_up_stabilization_s + 120, DAY_S) >= 0.5 * min(d for _, d in DEMAND)
    # Servers up once nodes boot and weights load: the trainer fed within half an hour.
    assert day.up_at(1800.0) >= demand(1800.0)
    # Spot reclaims: what was asked is held while the replacements boot.
    for at in RECLAIMS:
        assert day.min_spec(at, at + BOOT_S + LOAD_S) >= day.spec_at(at - SYNC_S)
        assert day.up_at(at + BOOT_S + LOAD_S + 120) >= day.up_at(at - SYNC_S)
    # The trainer slows at 14 h: the fleet sheds by the rule's tenths, not stuck by the tolerance.
    assert day.spec_at(16 * 3600.0) <= 0.8 * day.spec_at(14 * 3600.0)
    # It needs more at 20 h: grows back.
    assert max(s for at, s, _, _ in day.timeline if 20 * 3600.0 <= at <= 22 * 3600.0) >= demand(21 * 3600.0)
    assert day.trainer_idle_gpu_hours < 0.25 * today.trainer_idle_gpu_hours
