"""The job's own reward tier: SGLang serving job.rewards.model (a Bradley-Terry
sequence-classification model) on the rollout pool, one LeaderWorkerSet group per replica,
behind a Service that the rollout workers and verifiers call ($RL_REWARD_URL, /classify).

Rendered only when the job weighs a reward model of its own: with `rewards.model.url` the
job scores with a server shared by several jobs and renders none (its workers call the url).

A reward replica is dense and small (a few billion parameters): tensor parallel inside one
node over NVLink, so its pods ask for no EFA devices (GpuShare.uses_efa) and no multi-node
rendezvous; LeaderWorkerSet keeps one shape for every SGLang tier (the rollout servers' too),
and Kueue admits its groups like theirs. The tier takes whole rollout nodes; the rollout
servers get the rest (cluster.gpu_pods.RewardLayout), and the scheduler is held to it
(k8s.placement.whole_nodes_affinity): no reward pod on a node running a rollout server and the
reverse, the tier's pods packed onto as few nodes as they fill. A ClusterIP Service spreads connections
over the replicas; a /classify call is one group, stateless, so any replica may answer it.
"""

from __future__ import annotations

import cdk8s
from cdk8s_plus_33 import k8s
from constructs import Construct

from k8s.charts.efa import EFA_ENV
from k8s.charts.queueing import ROLLOUT_WORKLOAD_PRIORITY, queue_labels
from k8s.context import Context
from k8s.imports.io.x_k8s import leaderworkerset as lws
from k8s.netpol import allow, from_components
from k8s.placement import gpu_resources, whole_nodes_affinity
from k8s.pods import (
    NAMESPACE,
    PRIORITY_ROLLOUT,
    REWARD_SERVER,
    ROLLOUT_SERVER,
    ROLLOUT_WORKER,
    SGLANG_PORT,
    SPOT_GRACE_SECONDS,
    VERIFIER,
    custom_resource_pod_template,
    env,
    fsx_mount,
    fsx_volume,
    gpu_security,
    http_probe,
    job_config_mount,
    job_config_volume,
    labels,
    metadata,
    payload_env,
    pod_template,
    port,
    service_account,
    service_port,
    shm_mount,
    shm_volume,
    tmp_mount,
    tmp_volume,
)
from payload.rollout.sglang_args import reward_server_args

SHM_SIZE = "16Gi"


def reward_url() -> str:
    return f"http://{REWARD_SERVER}.{NAMESPACE}.svc:{SGLANG_PORT}"


def reward_command(ctx: Context) -> list[str]:
    args = reward_server_args(ctx.job, host="0.0.0.0", port=SGLANG_PORT)
    return ["python", "-m", "payload", "reward-serve", "--engine", "sglang", "--", *args]


def rollout_server_affinity(ctx: Context) -> k8s.Affinity | None:
    """The rollout servers' side of the split (k8s/charts/rollout_servers.py): with the job's own
    reward tier on, never on a reward node, and packed when several servers fit a node (TP 4 on
    8 GPUs: two a node), so the nodes left to the tier stay whole. None without the tier: the
    servers have the pool to themselves."""
    if ctx.reward is None:
        return None
    layout = ctx.rollout
    return whole_nodes_affinity(ROLLOUT_SERVER, never_with=REWARD_SERVER,
                                pack=layout.group_size == 1 and layout.pods_per_node > 1)


class RewardServersChart(cdk8s.Chart):
    def __init__(self, scope: Construct, id: str, ctx: Context) -> None:
        super().__init__(scope, id, namespace=NAMESPACE)
        layout = ctx.reward
        service_account(self, REWARD_SERVER)
        # Only the bootstrap interface rule of EFA_ENV: tensor-parallel NCCL stays on NVLink,
        # and its out-of-band TCP must not pick loopback or a bridge.
        socket_ifname = next(value for name, value, _ in EFA_ENV if name == "NCCL_SOCKET_IFNAME")
        container = k8s.Container(
            name="sglang",
            image=ctx.job.images.payload,
            command=reward_command(ctx),
            env=[*payload_env(), env("NCCL_SOCKET_IFNAME", socket_ifname)],
            ports=[port("http", SGLANG_PORT)],
            resources=gpu_resources(layout.share),
            # SGLang's kernel libraries JIT-compile into cache directories spread over the image.
            security_context=gpu_security(read_only_root=False),
            volume_mounts=[fsx_mount(read_only=True), job_config_mount(), shm_mount(), tmp_mount()],
            # The weights from FSx and CUDA graph capture: up to 30 minutes before /health answers.
            startup_probe=http_probe("/health", "http", period=10, failures=180, timeout=10),
            readiness_probe=http_probe("/health", "http", period=15, failures=2, timeout=10),
            liveness_probe=http_probe("/health", "http", period=30, failures=4, timeout=10),
        )
        template = pod_template(
            REWARD_SERVER,
            ctx.job_digest,
            layout.share.placement,
            [container],
            service_account=REWARD_SERVER,
            priority_class=PRIORITY_ROLLOUT,
            volumes=[fsx_volume(), job_config_volume(), shm_volume(SHM_SIZE), tmp_volume()],
            # SGLang drains on SIGTERM: the groups being scored finish before a spot node goes.
            grace_seconds=SPOT_GRACE_SECONDS,
            # Whole nodes, never shared with a rollout server, filled before another is taken.
            affinity=whole_nodes_affinity(REWARD_SERVER, never_with=ROLLOUT_SERVER, pack=layout.pods_per_node > 1),
        )
        lws.LeaderWorkerSet(
            self,
            "leaderworkerset",
            metadata=cdk8s.ApiObjectMetadata(
                name=REWARD_SERVER, labels={**labels(REWARD_SERVER), **queue_labels(ROLLOUT_WORKLOAD_PRIORITY)}
            ),
            spec=lws.LeaderWorkerSetSpec(
                replicas=layout.replicas,
                leader_worker_template=lws.LeaderWorkerSetSpecLeaderWorkerTemplate(
                    size=1,
                    restart_policy=lws.LeaderWorkerSetSpecLeaderWorkerTemplateRestartPolicy.RECREATE_GROUP_ON_POD_RESTART,
                    worker_template=custom_resource_pod_template(
                        lws.LeaderWorkerSetSpecLeaderWorkerTemplateWorkerTemplate, template
                    ),
                ),
            ),
        )
        k8s.KubeService(
            self,
            f"{REWARD_SERVER}-service",
            metadata=metadata(REWARD_SERVER),
            spec=k8s.ServiceSpec(selector=labels(REWARD_SERVER), ports=[service_port("http", SGLANG_PORT)]),
        )
        # Scored by whoever scores (inline in rollout workers, or verifiers); it calls nobody.
        allow(self, REWARD_SERVER, ingress=[from_components(ROLLOUT_WORKER, VERIFIER, port_numbers=(SGLANG_PORT,))])
