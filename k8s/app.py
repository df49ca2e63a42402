"""Compose the charts into one cdk8s App for an environment."""

from __future__ import annotations

from pathlib import Path

import cdk8s

from spec.environment import Environment
from k8s.charts.acceptance import AcceptanceChart
from k8s.charts.autoscaling import AutoscalingChart
from k8s.charts.base import BaseChart
from k8s.charts.buffer import BufferChart
from k8s.charts.feeder import FeederChart
from k8s.charts.monitoring import MonitoringChart
from k8s.charts.queueing import QueueingChart
from k8s.charts.reward_servers import RewardServersChart
from k8s.charts.rollout_servers import RolloutServersChart
from k8s.charts.router import RouterChart
from k8s.charts.sandbox import SandboxChart
from k8s.charts.tracking import TrackingChart
from k8s.charts.trainer import TrainerChart
from k8s.charts.workers import WorkersChart
from k8s.context import Context
from cluster.gpu_pods import RolloutPods, TrainerPods
from cluster.outputs import DeployOutputs

WORKLOAD_CHARTS = (
    ("buffer", BufferChart),
    ("trainer", TrainerChart),
    ("rollout-servers", RolloutServersChart),
    ("router", RouterChart),
    ("workers", WorkersChart),
    ("feeder", FeederChart),
    ("monitoring", MonitoringChart),
    ("sandbox", SandboxChart),
    # After the workloads so no file before them is renumbered: Kueue suspends a labelled JobSet
    # or LWS group on creation and admits it once its LocalQueue and priority class exist. Read in
    # v0.19.2: the webhooks suspend (JobSet) or gate (LWS pods) on the queue-name label alone
    # (jobframework.WorkloadShouldBeSuspended); a Workload whose LocalQueue is missing stays
    # QuotaReserved=False "LocalQueue rl doesn't exist" (core/workload_controller.go), and
    # queue.Manager.AddLocalQueue takes in the Workloads already waiting for it; a missing
    # WorkloadPriorityClass fails the Workload's creation (jobframework.ExtractPriority), retried
    # while the job stays suspended.
    ("queueing", QueueingChart),
    ("autoscaling", AutoscalingChart),
    ("tracking", TrackingChart),
)
# Rendered only for a job that serves its own reward model (job.rewards.model without a url), and
# last, so a job without one keeps every file name above.
REWARD_CHARTS = (("reward-servers", RewardServersChart),)


def build_app(environment: Environment, outputs: DeployOutputs, outdir: Path) -> cdk8s.App:
    ctx = Context(environment, outputs)
    # Layout errors (one line naming the field) surface before any construct is made.
    TrainerPods.of(environment), RolloutPods.of(environment)
    app = cdk8s.App(outdir=str(outdir))
    base = BaseChart(app, "base", ctx)
    for name, chart_class in WORKLOAD_CHARTS + (REWARD_CHARTS if ctx.reward else ()):
        # The namespace, identities and volumes first: `kubectl apply -f dist/` takes the
        # files in name order, and cdk8s numbers them in dependency order.
        chart_class(app, name, ctx).add_dependency(base)
    return app


def build_acceptance_app(environment: Environment, outputs: DeployOutputs, outdir: Path) -> cdk8s.App:
    """The opt-in acceptance jobs (k8s/charts/acceptance.py), applied after dist/ itself."""
    app = cdk8s.App(outdir=str(outdir))
    AcceptanceChart(app, "acceptance", Context(environment, outputs))
    return app
