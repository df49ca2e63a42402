"""SGLang rollout servers: a LeaderWorkerSet, one group of pods per model replica.

`python -m payload serve --engine sglang -- <SGLang server args>` wraps SGLang's server (it
adds the payload's metrics and weight-sync hooks); everything after `--` goes to SGLang.
A group spans several nodes when a replica's tensor-parallel size exceeds one node's GPUs;
LeaderWorkerSet restarts the whole group when one pod fails (a replica cannot lose a rank).
"""

from __future__ import annotations

import cdk8s
from cdk8s_plus_33 import k8s
from constructs import Construct

from cluster.identities import ROLLOUT_SERVICE_ACCOUNT
from cluster.placement import NOT_SAFE_TO_EVICT
from k8s.charts.efa import efa_env, sglang_deepep_env
from k8s.context import Context
from k8s.imports.io.x_k8s import leaderworkerset as lws
from k8s.charts.queueing import ROLLOUT_WORKLOAD_PRIORITY, queue_labels
from k8s.charts.reward_servers import rollout_server_affinity
from k8s.netpol import allow, from_components, from_prometheus, to_components
from k8s.placement import gpu_resources
from estimate.throughput import server_flags
from payload.rollout.sglang_args import server_args
from k8s.pods import (
    ACCEPTANCE,
    BUFFER,
    METRICS_PORT,
    REDIS_PORT,
    NAMESPACE,
    PRIORITY_ROLLOUT,
    ROLLOUT_SERVER,
    ROUTER,
    SGLANG_DIST_INIT_PORT,
    SGLANG_PORT,
    SPOT_GRACE_SECONDS,
    TRAINER,
    custom_resource_pod_template,
    fsx_mount,
    fsx_volume,
    gpu_security,
    headless_service,
    http_probe,
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

SHM_SIZE = "64Gi"
# LeaderWorkerSet labels every pod with its index in the group; the leader is 0.
WORKER_INDEX_LABEL = "leaderworkerset.sigs.k8s.io/worker-index"


# The split's replica count on the LeaderWorkerSet, for people and tests: the HPA owns spec.replicas.
PLANNED_REPLICAS_ANNOTATION = "rl.aws/planned-replicas"


def server_urls(replicas: int) -> list[str]:
    """The leaders' stable addresses: pod <lws>-<i> in the LWS's headless Service <lws>."""
    return [f"http://{ROLLOUT_SERVER}-{i}.{ROLLOUT_SERVER}.{NAMESPACE}.svc:{SGLANG_PORT}" for i in range(replicas)]


class RolloutServersChart(cdk8s.Chart):
    def __init__(self, scope: Construct, id: str, ctx: Context) -> None:
        super().__init__(scope, id, namespace=NAMESPACE)
        layout = ctx.rollout
        placement = layout.share.placement
        # The planner's fit of this replica layout (batch, decode graph, memory share) as flags.
        sglang_args = server_args(
            ctx.job, model_path=ctx.job.rollout_model_path, host="0.0.0.0", port=SGLANG_PORT, nodes=layout.group_size,
            flags=server_flags(ctx.environment),
        )
        if layout.group_size > 1:
            # LeaderWorkerSet injects the leader's address and each pod's index in the group.
            sglang_args += [
                "--nnodes", str(layout.group_size),
                "--node-rank", "$(LWS_WORKER_INDEX)",
                "--dist-init-addr", f"$(LWS_LEADER_ADDRESS):{SGLANG_DIST_INIT_PORT}",
            ]  # fmt: skip

        def pod(leader: bool) -> k8s.PodTemplateSpec:
            probes = {}
            if leader:
                probes = dict(
                    # Weights from FSx, DeepEP buffers and CUDA graph capture: up to 30 minutes.
                    # SGLang's /health answers 503 until then and never generates under `serve`.
                    startup_probe=http_probe("/health", "http", period=10, failures=180, timeout=10),
                    # `serve`'s supervisor: ready = caught up with the newest policy and
                    # /health_generate answered (able to serve a rollout now).
                    readiness_probe=http_probe("/readyz", "metrics", period=15, failures=2),
                    # Its watchdog: beaten while /health answers, so a weight publish (generation
                    # paused for minutes) never kills a server; a hang past 30 min does.
                    liveness_probe=http_probe("/healthz", "metrics", period=30, failures=4),
                )
            deepep = "--moe-a2a-backend" in sglang_args
            container = k8s.Container(
                name="sglang",
                image=ctx.job.images.payload,
                command=["python", "-m", "payload", "serve", "--engine", "sglang", "--", *sglang_args],
                # The queue URL: a restarted server reads the newest exported policy pointer from it.
                env=[*payload_env(), *queue_env("server"), *efa_env(deepep=deepep),
                     *(sglang_deepep_env() if deepep else [])],
                ports=[
                    port("http", SGLANG_PORT),
                    port("metrics", METRICS_PORT),
                    port("dist-init", SGLANG_DIST_INIT_PORT),
                ],
                resources=gpu_resources(layout.share),
                # SGLang's kernel libraries (FlashInfer, DeepGEMM, Triton) JIT-compile into
                # cache directories spread over the image; a read-only root breaks them.
                security_context=gpu_security(read_only_root=False),
                volume_mounts=[fsx_mount(read_only=True), job_config_mount(), shm_mount(), tmp_mount(), queue_mount()],
                **probes,
            )
            return pod_template(
                ROLLOUT_SERVER,
                ctx.job_digest,
                placement,
                [container],
                service_account=ROLLOUT_SERVICE_ACCOUNT,
                priority_class=PRIORITY_ROLLOUT,
                volumes=[fsx_volume(), job_config_volume(), shm_volume(SHM_SIZE), tmp_volume(), queue_volume("server")],
                needs_gdrdrv=deepep,  # deepep_v2: a replica across nodes, GIN over EFA
                # Long enough for in-flight generations to finish on a spot notice, so the
                # rollout workers get their answers instead of retrying the whole group.
                grace_seconds=SPOT_GRACE_SECONDS,
                # The Cluster Autoscaler removes a rollout node only once it is empty: a server
                # leaves through KEDA's scale-down and its drain, never one pod of a group
                # evicted to consolidate nodes (infra/node_autoscaler.py).
                annotations=NOT_SAFE_TO_EVICT,
                affinity=rollout_server_affinity(ctx),  # whole nodes apart from the reward tier
            )

        leader_template = None
        if layout.group_size > 1:
            # Only the leader serves SGLang's API and takes the probes; the other nodes answer
            # placeholder health routes and run `serve` as followers (payload.rollout.serve).
            leader_template = custom_resource_pod_template(lws.LeaderWorkerSetSpecLeaderWorkerTemplateLeaderTemplate, pod(leader=True))
        lws.LeaderWorkerSet(
            self,
            "leaderworkerset",
            # Each group is its own Kueue Workload, below the trainer (k8s/charts/queueing.py).
            metadata=cdk8s.ApiObjectMetadata(
                name=ROLLOUT_SERVER,
                labels={**labels(ROLLOUT_SERVER), **queue_labels(ROLLOUT_WORKLOAD_PRIORITY)},
                annotations={PLANNED_REPLICAS_ANNOTATION: str(layout.replicas)},
            ),
            # No spec.replicas: the HPA KEDA manages owns it (k8s/charts/autoscaling.py), and a
            # server-side apply that sets it would conflict with kube-controller-manager or, forced,
            # reset the fleet. A new LWS starts at its CRD default, 1; the ScaledObject's formula
            # asks for the split (layout.replicas) until the trainer reports.
            spec=lws.LeaderWorkerSetSpec(
                leader_worker_template=lws.LeaderWorkerSetSpecLeaderWorkerTemplate(
                    size=layout.group_size,
                    restart_policy=lws.LeaderWorkerSetSpecLeaderWorkerTemplateRestartPolicy.RECREATE_GROUP_ON_POD_RESTART,
                    worker_template=custom_resource_pod_template(
                        lws.LeaderWorkerSetSpecLeaderWorkerTemplateWorkerTemplate, pod(leader=layout.group_size == 1)
                    ),
                    leader_template=leader_template,
                ),
            ),
        )
        # Leaders only: their supervisor serves its own /metrics and SGLang's.
        headless_service(
            self,
            "metrics",
            f"{ROLLOUT_SERVER}-metrics",
            ROLLOUT_SERVER,
            {"metrics": METRICS_PORT},
            extra_selector={WORKER_INDEX_LABEL: "0"},
        )
        allow(
            self,
            ROLLOUT_SERVER,
            ingress=[
                from_components(ROUTER, port_numbers=(SGLANG_PORT,)),
                # Weight updates: HTTP control calls and the NCCL broadcast group (the trainer's,
                # and the SGLang smoke test's of dist/acceptance/).
                from_components(TRAINER, ACCEPTANCE),
                # Ranks of one multi-node replica, on any port (NCCL bootstrap, dist-init).
                from_components(ROLLOUT_SERVER),
                # Only the metrics port: SGLang's API port has admin routes (weight updates).
                from_prometheus(METRICS_PORT),
            ],
            egress=[
                to_components(ROLLOUT_SERVER),
                to_components(TRAINER, ACCEPTANCE),
                to_components(BUFFER, port_numbers=(REDIS_PORT,)),
            ],
        )
