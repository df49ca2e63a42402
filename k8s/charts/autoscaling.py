"""Rollout autoscaling: a KEDA ScaledObject on the rollout LeaderWorkerSet (its scale subresource).

Why KEDA over an HPA on external metrics: an HPA needs a metrics adapter (prometheus-adapter)
configured with a rule per series, and combines several metrics only by taking the largest
proposal; the rule here (estimate.autoscale) is a conditional over three signals and
the current replica count, which KEDA's scalingModifiers evaluate as one formula over
Prometheus queries, and KEDA serves the result to the HPA it manages itself.

The formula returns what the HPA needs to arrive at the rule's count (estimate.autoscale says how:
metricType AverageValue, target 1; the HPA proposes ceil(value) outside its 10% tolerance band
around status.replicas and status.replicas inside it; estimate.hpa ports that arithmetic and the
tests run it over a simulated day). Its base is `asked`, the LeaderWorkerSet's spec.replicas as
kube-state-metrics exports it for the leader StatefulSet (LWS v0.7.0 keeps that StatefulSet's
replicas at the LWS's and copies its status.replicas into the LWS's own), not the servers
Prometheus can scrape: with those as the base, "hold" meant "scale to what is up", which took a
fresh fleet of 64 groups with 0-2 up down to 1-2. The `asked` query has ignoreNullValues off: with
no series KEDA's metric fails and the HPA leaves the scale alone, rather than reading 0.
minReplicaCount/maxReplicaCount bound it: at most the split's replicas (the planner's
recommendation, which the router and the publisher list), never more than the pool holds.

The LeaderWorkerSet leaves spec.replicas out (k8s/charts/rollout_servers.py): the HPA owns it.
A fresh one starts at the CRD's default of 1, and with no trainer series yet (`started` 0) the
formula asks for the split, so the first apply still brings the planned fleet up.

Scale-down removes the highest-index LWS group: its pods get SIGTERM and `serve` drains them
(payload.rollout.serve: SGLang 0.5.23 answers /health 503 once shutting down, so the router stops
routing to it; in-flight generations finish within the grace period, what is left is aborted and
the rollout workers hand those tasks back to the queue uncharged). With Kueue each new group is a Workload admitted (or queued) on its own.
"""

from __future__ import annotations

import cdk8s
from constructs import Construct

from cluster.monitoring import MONITORING_NAMESPACE, PROMETHEUS_RELEASE
from k8s.context import Context
from k8s.imports.sh import keda
from k8s.pods import NAMESPACE, ROLLOUT_SERVER
from spec import signals
from estimate.autoscale import RolloutScaler

PROMETHEUS_URL = f"http://{PROMETHEUS_RELEASE}-prometheus.{MONITORING_NAMESPACE}.svc:9090"


def queries(window: str) -> dict[str, str]:
    """The rule's inputs as PromQL, named as the formula names them."""
    trainer_time = (
        f"rate({signals.TRAINER_BUSY_SECONDS}[{window}]) + rate({signals.TRAINER_IDLE_SECONDS}[{window}])"
        f" + rate({signals.TRAINER_PUBLISH_SECONDS}[{window}])"
    )
    return {
        # The leader StatefulSet is named as the LWS; its spec.replicas is the LWS's.
        "asked": f'max(kube_statefulset_replicas{{namespace="{NAMESPACE}",statefulset="{ROLLOUT_SERVER}"}})',
        "up": f'count(up{{namespace="{NAMESPACE}",service="{ROLLOUT_SERVER}-metrics"}} == 1)',
        # The trainer has reported within the hour: a restart does not read as a fresh start.
        "started": f"count(max_over_time({signals.TRAINER_BUSY_SECONDS}[1h]))",
        "idle": f"sum(rate({signals.TRAINER_IDLE_SECONDS}[{window}])) / sum({trainer_time})",
        "batches": f"max({signals.BUFFER_GROUPS}) / {{prompts_per_step}}",
        "stale": (
            f'sum(rate({signals.ROLLOUT_GROUPS_DROPPED}{{reason="stale"}}[{window}])) / '
            f"(sum(rate({signals.TRAINER_GROUPS_CONSUMED}[{window}])) + "
            f'sum(rate({signals.ROLLOUT_GROUPS_DROPPED}{{reason="stale"}}[{window}])))'
        ),
    }


def pool_replicas(ctx: Context) -> int:
    """SGLang replicas the rollout pool's max_size nodes hold, less the reward tier's nodes."""
    layout = ctx.rollout
    nodes = ctx.environment.pools.rollout.max_size - (ctx.reward.nodes if ctx.reward else 0)
    return nodes * layout.pods_per_node // layout.group_size


class AutoscalingChart(cdk8s.Chart):
    def __init__(self, scope: Construct, id: str, ctx: Context) -> None:
        super().__init__(scope, id, namespace=NAMESPACE)
        # The router and the trainer's publisher list the split's replicas (server_urls), so the
        # split (the planner's recommendation, pools.rollout.desired_size) is the ceiling.
        scaler = RolloutScaler(min_replicas=1, max_replicas=min(pool_replicas(ctx), ctx.rollout.replicas))
        prompts_per_step = ctx.job.batch.prompts_per_step
        window = f"{int(scaler.window_s)}s"
        triggers = [
            keda.ScaledObjectSpecTriggers(
                type="prometheus",
                name=name,
                metadata={
                    "serverAddress": PROMETHEUS_URL,
                    "query": query.replace("{prompts_per_step}", str(prompts_per_step)),
                    "threshold": "1",
                    # No series yet (trainer not started, no server up): 0, which the rule reads
                    # as no signal. Not for `asked`: without it the metric fails and the HPA holds.
                    "ignoreNullValues": "false" if name == "asked" else "true",
                },
            )
            for name, query in queries(window).items()
        ]
        keda.ScaledObject(
            self,
            "rollout-scaler",
            metadata=cdk8s.ApiObjectMetadata(name=ROLLOUT_SERVER),
            spec=keda.ScaledObjectSpec(
                scale_target_ref=keda.ScaledObjectSpecScaleTargetRef(
                    api_version="leaderworkerset.x-k8s.io/v1", kind="LeaderWorkerSet", name=ROLLOUT_SERVER
                ),
                min_replica_count=scaler.min_replicas,
                max_replica_count=scaler.max_replicas,
                polling_interval=int(scaler.interval_s),
                advanced=keda.ScaledObjectSpecAdvanced(
                    # The rule's stabilization windows (estimate.autoscale says why); the policies
                    # stay the API server's defaults, which estimate.hpa models.
                    horizontal_pod_autoscaler_config=keda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig(
                        behavior=keda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior(
                            scale_down=keda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown(
                                stabilization_window_seconds=int(scaler.scale_down_stabilization_s)
                            ),
                            scale_up=keda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp(
                                stabilization_window_seconds=int(scaler.scale_up_stabilization_s)
                            ),
                        )
                    ),
                    scaling_modifiers=keda.ScaledObjectSpecAdvancedScalingModifiers(
                        formula=scaler.keda_formula(),
                        target="1",
                        metric_type=keda.ScaledObjectSpecAdvancedScalingModifiersMetricType.AVERAGE_VALUE,
                    )
                ),
                triggers=triggers,
            ),
        )
