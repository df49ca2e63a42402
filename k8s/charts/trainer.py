"""The policy trainer: a JobSet with one pod per `train` node running torchrun.

Why JobSet: one object for N pods that live and die together. Any pod failing fails the
Job (backoffLimit 0, a lost rank cannot rejoin a running NCCL communicator), and the JobSet
failure policy then recreates every pod, which resume from the last checkpoint on FSx, at
most `job.checkpoint.max_restarts` times.
"""

from __future__ import annotations

import cdk8s
from cdk8s_plus_33 import k8s
from constructs import Construct

from cluster.identities import CAPACITY_BLOCK_CONFIG_MAP, TRAINER_SERVICE_ACCOUNT
from estimate.checks import job_costs
from estimate.costs import Timeouts
from payload.train.deadline import STOP_AT_ENV
from payload.train.tracking import SERVER_PORT
from spec.environment import CapacityType
from k8s.charts.efa import efa_env
from k8s.context import Context
from k8s.imports.io.x_k8s import jobset as js
from k8s.netpol import allow, from_components, from_prometheus, to_components
from k8s.charts.rollout_servers import server_urls
from k8s.charts.tracking import tracking_url
from k8s.charts.queueing import TRAINER_WORKLOAD_PRIORITY, queue_labels, trainer_topology_annotations
from cluster.placement import Placement
from k8s.placement import gpu_resources
from k8s.pods import (
    BUFFER,
    METRICS_PORT,
    NAMESPACE,
    PRIORITY_TRAINER,
    REDIS_PORT,
    RENDEZVOUS_PORT,
    ROLLOUT_SERVER,
    TRACKING,
    TRAINER,
    env,
    fsx_mount,
    fsx_volume,
    gpu_security,
    headless_service,
    http_probe,
    indexed_jobset_spec,
    job_config_mount,
    job_config_volume,
    labels,
    payload_env,
    pod_template,
    port,
    queue_env,
    queue_mount,
    queue_volume,
    shm_mount,
    shm_volume,
    tmp_mount,
    tmp_volume,
)

REPLICATED_JOB = "node"
# NCCL buffers, CUDA IPC between the node's 8 ranks, DataLoader workers.
SHM_SIZE = "64Gi"


def rendezvous_host() -> str:
    # JobSet gives pod 0 of job 0 the stable DNS name <jobset>-<job>-0-0.<jobset>.
    return f"{TRAINER}-{REPLICATED_JOB}-0-0.{TRAINER}"


class TrainerChart(cdk8s.Chart):
    def __init__(self, scope: Construct, id: str, ctx: Context) -> None:
        super().__init__(scope, id, namespace=NAMESPACE)
        layout = ctx.trainer
        placement: Placement = layout.share.placement
        # Watchdog, probes and grace period follow from the modeled publish, checkpoint and export.
        timeouts = Timeouts.from_costs(job_costs(ctx.environment))
        command = [
            "torchrun",
            f"--nnodes={layout.nodes}",
            f"--nproc-per-node={layout.share.gpus}",
            "--rdzv-backend=c10d",
            f"--rdzv-endpoint={rendezvous_host()}:{RENDEZVOUS_PORT}",
            f"--rdzv-id={TRAINER}",
            # Restarts are the JobSet's: all nodes together, from the last checkpoint.
            "--max-restarts=0",
            "-m",
            "payload",
            "train",
            f"--stall-timeout-s={timeouts.stall_s}",
            # The fan-out groups' timeout, from the dead-server bound (estimate/costs.py).
            f"--publish-timeout-s={timeouts.publish_s}",
        ]
        tracking_server = ctx.job.tracking.server
        container = k8s.Container(
            name=TRAINER,
            image=ctx.job.images.payload,
            command=command,
            env=[
                *payload_env(),
                *queue_env("trainer"),
                *efa_env(deepep=ctx.environment.layout.trainer_deepep_needs_gin),
                # A Capacity Block's end, less the time to checkpoint: `make scale` writes it
                # (infra/scale.py); optional, so a pod started before that runs without it.
                *([k8s.EnvVar(name=STOP_AT_ENV, value_from=k8s.EnvVarSource(config_map_key_ref=k8s.ConfigMapKeySelector(
                    name=CAPACITY_BLOCK_CONFIG_MAP, key=STOP_AT_ENV, optional=True)))]
                  if ctx.environment.pools.train.capacity_type is CapacityType.CAPACITY_BLOCK else []),
                env("RL_WORLD_SIZE", str(layout.world_size)),
                # Where the trainer publishes weights (payload/train/cli.py reads it).
                env("RL_ROLLOUT_SERVERS", ",".join(server_urls(ctx.rollout.replicas))),
                # The cluster's tracking server (job.tracking.uri, where set, takes precedence).
                *([env("MLFLOW_TRACKING_URI", tracking_url())] if tracking_server else []),
            ],
            ports=[port("metrics", METRICS_PORT), port("rendezvous", RENDEZVOUS_PORT)],
            resources=gpu_resources(layout.share),
            security_context=gpu_security(read_only_root=True),
            volume_mounts=[fsx_mount(), job_config_mount(), shm_mount(), tmp_mount(), queue_mount()],
            # Loading a checkpoint from FSx and the first NCCL init take minutes.
            startup_probe=http_probe("/healthz", "metrics", period=10, failures=timeouts.startup_s // 10),
            # /healthz fails when no step progressed within the payload's stall timeout: a hung
            # collective kills the pod, and the JobSet restarts the whole job.
            liveness_probe=http_probe("/healthz", "metrics", period=30, failures=4),
        )
        template = pod_template(
            TRAINER,
            ctx.job_digest,
            placement,
            [container],
            service_account=TRAINER_SERVICE_ACCOUNT,
            priority_class=PRIORITY_TRAINER,
            volumes=[fsx_volume(), job_config_volume(), shm_volume(SHM_SIZE), tmp_volume(), queue_volume("trainer")],
            # Room for a SIGTERM checkpoint where FSx writes one in time (estimate/costs.py).
            grace_seconds=timeouts.grace_s,
            restart_policy="Never",
            needs_gdrdrv=ctx.environment.layout.trainer_deepep_needs_gin,
        )
        jobset = js.JobSet(
            self,
            "jobset",
            # Kueue admits the whole JobSet as one Workload (k8s/charts/queueing.py).
            metadata=cdk8s.ApiObjectMetadata(name=TRAINER, labels={**labels(TRAINER), **queue_labels(TRAINER_WORKLOAD_PRIORITY)}),
            spec=indexed_jobset_spec(
                REPLICATED_JOB,
                layout.nodes,
                template,
                failure_policy=js.JobSetSpecFailurePolicy(
                    max_restarts=ctx.job.checkpoint.max_restarts,
                    restart_strategy=js.JobSetSpecFailurePolicyRestartStrategy.RECREATE,
                ),
                success_policy=js.JobSetSpecSuccessPolicy(
                    operator=js.JobSetSpecSuccessPolicyOperator.ALL, target_replicated_jobs=[REPLICATED_JOB]
                ),
            ),
        )
        for key, value in trainer_topology_annotations(ctx.environment).items():
            jobset.add_json_patch(cdk8s.JsonPatch.add(
                f"/spec/replicatedJobs/0/template/spec/template/metadata/annotations/{key.replace('/', '~1')}", value
            ))
        # For the ServiceMonitor: JobSet's own headless Service has no ports to name.
        headless_service(self, "metrics", f"{TRAINER}-metrics", TRAINER, {"metrics": METRICS_PORT})
        allow(
            self,
            TRAINER,
            # Trainer pods reach each other on any port (c10d store, NCCL bootstrap, NCCL
            # socket fallback); rollout servers join the weight-broadcast group the trainer hosts.
            ingress=[from_components(TRAINER), from_components(ROLLOUT_SERVER), from_prometheus(METRICS_PORT)],
            egress=[
                to_components(TRAINER),
                to_components(ROLLOUT_SERVER),
                to_components(BUFFER, port_numbers=(REDIS_PORT,)),
                *([to_components(TRACKING, port_numbers=(SERVER_PORT,))] if tracking_server else []),
            ],
        )
