"""The task feeder: `python -m payload feed`, one pod on the `cpu` pool.

It reads `job.data.train` from FSx (read-only), checks every row, and submits tasks to the
Redis task queue as the trainer's progress allows; its cursor lives in Redis, committed with
each submission, so a restarted or rescheduled pod continues where the last one stopped.
One replica with the Recreate strategy: two feeders never run at once (a second one would
find the cursor moved under it and stop). After the end of the data it stays up, idle, so the
Deployment does not restart a finished feed.
"""

from __future__ import annotations

import cdk8s
from cdk8s_plus_33 import k8s
from constructs import Construct

from k8s.context import Context
from k8s.netpol import allow, from_prometheus, to_components
from cluster.placement import Placement
from k8s.placement import cpu_resources
from k8s.pods import (
    BUFFER,
    FEEDER,
    METRICS_PORT,
    NAMESPACE,
    PRIORITY_ROLLOUT,
    REDIS_PORT,
    env,
    fsx_mount,
    fsx_volume,
    headless_service,
    http_probe,
    job_config_mount,
    job_config_volume,
    metadata,
    payload_env,
    pod_template,
    port,
    queue_env,
    queue_mount,
    queue_volume,
    restricted_security,
    selector,
    service_account,
    tmp_mount,
    tmp_volume,
)

# Parquet / JSON Lines are converted once into memory-mapped Arrow here (about the size of
# the dataset); a save_to_disk directory is read where it lies.
DATASETS_CACHE = "/tmp/datasets"


class FeederChart(cdk8s.Chart):
    def __init__(self, scope: Construct, id: str, ctx: Context) -> None:
        super().__init__(scope, id, namespace=NAMESPACE)
        service_account(self, FEEDER)
        container = k8s.Container(
            name=FEEDER,
            image=ctx.job.images.payload,
            command=["python", "-m", "payload", "feed"],
            env=[*payload_env(), *queue_env("feeder"), env("HF_DATASETS_CACHE", DATASETS_CACHE)],
            ports=[port("metrics", METRICS_PORT)],
            resources=cpu_resources("2", "8Gi"),
            security_context=restricted_security(),
            volume_mounts=[fsx_mount(read_only=True), job_config_mount(), tmp_mount(), queue_mount()],
            readiness_probe=http_probe("/readyz", "metrics", period=10, failures=3),
            liveness_probe=http_probe("/healthz", "metrics", period=30, failures=4),
        )
        k8s.KubeDeployment(
            self,
            FEEDER,
            metadata=metadata(FEEDER),
            spec=k8s.DeploymentSpec(
                replicas=1,
                strategy=k8s.DeploymentStrategy(type="Recreate"),
                selector=selector(FEEDER),
                template=pod_template(
                    FEEDER,
                    ctx.job_digest,
                    Placement.of(ctx.environment, "cpu"),
                    [container],
                    service_account=FEEDER,
                    priority_class=PRIORITY_ROLLOUT,
                    volumes=[fsx_volume(), job_config_volume(), tmp_volume("50Gi"), queue_volume("feeder")],
                ),
            ),
        )
        headless_service(self, f"{FEEDER}-metrics", f"{FEEDER}-metrics", FEEDER, {"metrics": METRICS_PORT})
        allow(
            self,
            FEEDER,
            ingress=[from_prometheus(METRICS_PORT)],
            egress=[to_components(BUFFER, port_numbers=(REDIS_PORT,))],
        )
