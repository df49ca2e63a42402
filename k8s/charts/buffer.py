"""The experience buffer and task queue: Redis (Streams) as a StatefulSet on the `memory` pool.

Durability over throughput: every write is in the append-only file and fsynced before Redis
answers (`appendfsync always`; a few thousand experience writes a second is far below what
gp3 sustains), so an acknowledged experience survives a crash of the pod or the node.
`noeviction`: a full buffer refuses writes (the workers back off) instead of silently
dropping experiences. One replica: Redis Streams' consumer groups are not replicated
synchronously, so a replica would not add durability; the PDB keeps drains from evicting it.
"""

from __future__ import annotations

import math

import cdk8s
from cdk8s_plus_33 import k8s
from constructs import Construct

from k8s.charts.base import GP3_STORAGE_CLASS
from k8s.context import Context
from k8s.netpol import allow, from_components, from_prometheus
from k8s.placement import Placement, cpu_resources
from payload.queue.base import redis_maxmemory_bytes
from k8s.pods import (
    BUFFER,
    FEEDER,
    NAMESPACE,
    PRIORITY_BUFFER,
    REDIS_EXPORTER_PORT,
    REDIS_PORT,
    ROLLOUT_SERVER,
    ROLLOUT_WORKER,
    TRAINER,
    VERIFIER,
    headless_service,
    http_probe,
    metadata,
    pod_template,
    port,
    redis_password_env,
    restricted_security,
    selector,
    service_account,
)

# Of the memory node: Redis's own limit, leaving the rest to the system and exporters.
MEMORY_SHARE = 0.6


class BufferChart(cdk8s.Chart):
    def __init__(self, scope: Construct, id: str, ctx: Context) -> None:
        super().__init__(scope, id, namespace=NAMESPACE)
        placement = Placement.of(ctx.environment, "memory")
        limit_gib = math.floor(placement.spec.memory_gib * MEMORY_SHARE)
        # Half of the limit (payload.queue.base, which the environment's buffer check reads too).
        maxmemory_mib = redis_maxmemory_bytes(placement.spec.memory_gib) // 2**20
        # The append-only file after a rewrite is about the data size; twice that covers the
        # file growing between rewrites.
        volume_gib = max(20, 2 * math.ceil(maxmemory_mib / 1024))

        service_account(self, BUFFER)
        redis = k8s.Container(
            name="redis",
            image=ctx.job.images.redis,
            command=["redis-server"],
            args=[
                "--port", str(REDIS_PORT),
                "--dir", "/data",
                "--appendonly", "yes",
                "--appendfsync", "always",
                "--save", "",
                "--maxmemory", f"{maxmemory_mib}mb",
                "--maxmemory-policy", "noeviction",
                "--requirepass", "$(REDIS_PASSWORD)",
            ],  # fmt: skip
            env=[redis_password_env("REDIS_PASSWORD"), redis_password_env("REDISCLI_AUTH")],
            ports=[port("redis", REDIS_PORT)],
            resources=cpu_resources("2", f"{limit_gib}Gi"),
            security_context=restricted_security(),
            volume_mounts=[k8s.VolumeMount(name="data", mount_path="/data")],
            # PING answers LOADING while the append-only file replays: not ready until done.
            readiness_probe=k8s.Probe(
                exec=k8s.ExecAction(command=["sh", "-c", "redis-cli ping | grep -q PONG"]),
                period_seconds=10,
                timeout_seconds=5,
                failure_threshold=3,
            ),
            liveness_probe=k8s.Probe(
                tcp_socket=k8s.TcpSocketAction(port=k8s.IntOrString.from_string("redis")),
                period_seconds=20,
                failure_threshold=6,
            ),
        )
        exporter = k8s.Container(
            name="exporter",
            image=ctx.job.images.redis_exporter,
            env=[k8s.EnvVar(name="REDIS_ADDR", value=f"redis://localhost:{REDIS_PORT}"), redis_password_env("REDIS_PASSWORD")],
            ports=[port("metrics", REDIS_EXPORTER_PORT)],
            resources=cpu_resources("100m", "128Mi"),
            security_context=restricted_security(),
            liveness_probe=http_probe("/health", "metrics", period=30, failures=3),
            readiness_probe=http_probe("/health", "metrics", period=10, failures=3),
        )
        k8s.KubeStatefulSet(
            self,
            "statefulset",
            metadata=metadata(BUFFER),
            spec=k8s.StatefulSetSpec(
                service_name=BUFFER,
                replicas=1,
                selector=selector(BUFFER),
                template=pod_template(
                    BUFFER,
                    ctx.job_digest,
                    placement,
                    [redis, exporter],
                    service_account=BUFFER,
                    priority_class=PRIORITY_BUFFER,
                    grace_seconds=60,
                ),
                volume_claim_templates=[
                    k8s.KubePersistentVolumeClaimProps(
                        metadata=k8s.ObjectMeta(name="data"),
                        spec=k8s.PersistentVolumeClaimSpec(
                            access_modes=["ReadWriteOnce"],
                            storage_class_name=GP3_STORAGE_CLASS,
                            resources=k8s.VolumeResourceRequirements(
                                requests={"storage": k8s.Quantity.from_string(f"{volume_gib}Gi")}
                            ),
                        ),
                    )
                ],
            ),
        )
        headless_service(self, "service", BUFFER, BUFFER, {"redis": REDIS_PORT, "metrics": REDIS_EXPORTER_PORT})
        # Never evicted by a drain or an upgrade: moving the buffer is an operator's decision.
        k8s.KubePodDisruptionBudget(
            self,
            "pdb",
            metadata=metadata(BUFFER),
            spec=k8s.PodDisruptionBudgetSpec(
                max_unavailable=k8s.IntOrString.from_number(0), selector=selector(BUFFER)
            ),
        )
        allow(
            self,
            BUFFER,
            ingress=[
                from_components(ROLLOUT_WORKER, VERIFIER, TRAINER, ROLLOUT_SERVER, FEEDER, port_numbers=(REDIS_PORT,)),
                from_prometheus(REDIS_EXPORTER_PORT),
            ],
        )
