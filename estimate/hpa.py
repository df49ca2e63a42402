"""The HorizontalPodAutoscaler's replica arithmetic for the one metric KEDA hands it, ported.

KEDA (v2.20.2) serves a ScaledObject's scalingModifiers formula to the HPA it manages as one
External metric: pkg/scaling/modifiers/formula.go `calculateScalingModifiersFormula` sets the value
with `ret.Value.SetMilli(int64(out * 1000))` (truncation), and the target is `target` as an
AverageValue (metricType AverageValue) or a Value. The HPA then (kube-controller-manager,
pkg/controller/podautoscaler, the functions below; ported from the kubernetes/kubernetes copy the
search tools hold, whose `Tolerances` type is the v1.33 one — this session could not fetch the
v1.33.x tag itself, so no line numbers; the arithmetic ported here is unchanged in substance since
v1.23, apart from the v1.33 split of the tolerance into scale-up/scale-down halves behind the alpha
gate HPAConfigurableTolerance, off on EKS, so both are the controller's 0.1):

- horizontal.go `reconcileAutoscaler`: currentReplicas = scale.spec.replicas;
  `recordInitialRecommendation(currentReplicas)` once per HPA; spec 0 with minReplicas != 0: scaling
  disabled; spec above max / below min: straight to the bound; otherwise the metric's proposal,
  normalized with the behavior (`normalizeDesiredReplicasWithBehaviors`), and a scale write when it
  differs from the spec;
- horizontal.go `computeStatusForExternalMetric`: an AverageValue target goes to
  `GetExternalPerPodMetricReplicas(statusReplicas, ...)` — scale.status.replicas, which for a
  LeaderWorkerSet (v0.7.0, pkg/controllers/leaderworkerset_controller.go `updateStatus`) is the
  leader StatefulSet's status.replicas: groups whose leader pod exists, pending, ready or terminating;
- replica_calculator.go `GetExternalPerPodMetricReplicas`: ratio = usage / (target * statusReplicas);
  outside [1 - 0.1, 1 + 0.1] (`Tolerances.isWithin`) the proposal is ceil(usage / target), inside it
  is statusReplicas;
- horizontal.go `stabilizeRecommendationWithBehaviors`: the recommendation kept is the current
  replicas raised to the lowest proposal of the scale-up window and lowered to the highest of the
  scale-down window; every proposal is recorded (old samples replaced);
- horizontal.go `convertDesiredReplicasWithBehaviorRate` with `calculateScaleUpLimitWithScalingRules`
  / `calculateScaleDownLimitWithBehaviors`: the policies' rate limits (the API server defaults
  scale-up to max(100 %, 4 pods) per 15 s and scale-down to 100 % per 15 s) and min/max replicas.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

TOLERANCE = 0.1  # kube-controller-manager --horizontal-pod-autoscaler-tolerance (EKS: the default)
SYNC_S = 15.0  # --horizontal-pod-autoscaler-sync-period (EKS: the default)


def keda_milli(value: float) -> int:
    """The formula's float as the HPA sees it: KEDA's `SetMilli(int64(out * 1000))`."""
    return int(value * 1000)


def external_per_pod_replicas(status_replicas: int, usage_milli: int, target_milli: int,
                              tolerance: float = TOLERANCE) -> int:
    """replica_calculator.go GetExternalPerPodMetricReplicas (AverageValue)."""
    replica_count = status_replicas
    ratio = usage_milli / (target_milli * replica_count) if replica_count else math.inf if usage_milli else math.nan
    within = (1.0 - tolerance) <= ratio <= (1.0 + tolerance)  # NaN compares false: not within
    if not within:
        replica_count = math.ceil(usage_milli / target_milli)
    return replica_count


@dataclass
class Policy:
    kind: str  # "Pods" or "Percent"
    value: int
    period_s: float


@dataclass
class Rules:
    stabilization_s: float
    policies: list[Policy]
    select: str = "Max"


def default_scale_up(stabilization_s: float = 0.0) -> Rules:
    """autoscaling/v2 defaults (pkg/apis/autoscaling/v2/defaults.go GenerateHPAScaleUpRules)."""
    return Rules(stabilization_s, [Policy("Percent", 100, 15.0), Policy("Pods", 4, 15.0)])


def default_scale_down(stabilization_s: float = 300.0) -> Rules:
    """autoscaling/v2 defaults (GenerateHPAScaleDownRules)."""
    return Rules(stabilization_s, [Policy("Percent", 100, 15.0)])


@dataclass
class HPA:
    """One HPA object's controller state: its recommendations and scale events (the controller
    keeps them in memory per HPA key), and the spec KEDA writes into it."""

    min_replicas: int
    max_replicas: int
    target_milli: int = 1000
    scale_up: Rules = field(default_factory=default_scale_up)
    scale_down: Rules = field(default_factory=default_scale_down)
    tolerance: float = TOLERANCE
    recommendations: list[list[float]] = field(default_factory=list)  # [replicas, time]
    up_events: list[tuple[float, int]] = field(default_factory=list)
    down_events: list[tuple[float, int]] = field(default_factory=list)
    proposals: list[tuple[float, int]] = field(default_factory=list)  # what the metric proposed, each sync

    def reconcile(self, now: float, spec: int, status: int, usage_milli: int | None) -> int:
        """One sync: the new scale.spec.replicas. usage_milli None: the metric failed (KEDA
        returned an error), which leaves the scale alone."""
        if not self.recommendations:
            self.recommendations.append([spec, now])  # recordInitialRecommendation
        if spec == 0 and self.min_replicas != 0:
            return spec
        if spec > self.max_replicas:
            desired = self.max_replicas
        elif spec < self.min_replicas:
            desired = self.min_replicas
        else:
            if usage_milli is None:
                return spec
            proposal = external_per_pod_replicas(status, usage_milli, self.target_milli, self.tolerance)
            self.proposals.append((now, proposal))
            stabilized = self._stabilize(now, spec, proposal)
            desired = self._rate(now, spec, stabilized)
        if desired != spec:
            (self.up_events if desired > spec else self.down_events).append((now, abs(desired - spec)))
        return desired

    def _stabilize(self, now: float, current: int, desired: int) -> int:
        up_cut, down_cut = now - self.scale_up.stabilization_s, now - self.scale_down.stabilization_s
        up_rec = down_rec = desired
        old = None
        for i, (rec, at) in enumerate(self.recommendations):
            if at > up_cut:
                up_rec = min(rec, up_rec)
            if at > down_cut:
                down_rec = max(rec, down_rec)
            if at < up_cut and at < down_cut:
                old = i
        recommendation = max(current, up_rec)
        recommendation = min(recommendation, down_rec)
        if old is not None:
            self.recommendations[old] = [desired, now]
        else:
            self.recommendations.append([desired, now])
        return recommendation

    @staticmethod
    def _changed(period_s: float, events: list[tuple[float, int]], now: float) -> int:
        return sum(n for at, n in events if at > now - period_s)

    def _rate(self, now: float, current: int, desired: int) -> int:
        if desired > current:
            pick = max if self.scale_up.select == "Max" else min
            limit = None
            for p in self.scale_up.policies:
                start = current - self._changed(p.period_s, self.up_events, now) + self._changed(p.period_s, self.down_events, now)
                proposed = start + p.value if p.kind == "Pods" else math.ceil(start * (1 + p.value / 100))
                limit = proposed if limit is None else pick(limit, proposed)
            limit = max(limit, current)
            return min(desired, self.max_replicas, limit)
        if desired < current:
            pick = min if self.scale_down.select == "Max" else max
            limit = None
            for p in self.scale_down.policies:
                start = current - self._changed(p.period_s, self.up_events, now) + self._changed(p.period_s, self.down_events, now)
                proposed = start - p.value if p.kind == "Pods" else int(start * (1 - p.value / 100))
                limit = proposed if limit is None else pick(limit, proposed)
            limit = min(limit, current)
            return max(desired, self.min_replicas, limit)
        return desired
