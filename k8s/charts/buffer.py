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

from k8s.charts.base import stateful_pod_with_volume
from k8s.context import Context
from k8s.netpol import allow, from_components, from_prometheus
from cluster.placement import Placement
from k8s.placement import cpu_resources
from estimate.buffer import redis_maxmemory_bytes
from payload.queue.access import ACL_FILE, CA_CERT, SERVER_CERT, SERVER_KEY, probe_command, server_args
from k8s.pods import (
    BUFFER,
    FEEDER,
    NAMESPACE,
    PRIORITY_BUFFER,
    REDIS_EXPORTER_PORT,
    REDIS_PORT,
    REDIS_SECRET,
    ROLLOUT_SERVER,
    ROLLOUT_WORKER,
    TRAINER,
    VERIFIER,
    headless_service,
    http_probe,
    metadata,
    pod_template,
    port,
    restricted_security,
    selector,
    service_account,
)

# Of the memory node: Redis's own limit, leaving the rest to the system and exporters.
MEMORY_SHARE = 0.6
# The operator's Secret (python -m payload redis-access): the ACL file, the server's certificate
# and key, and the monitor user's password for the probe; the exporter gets only the CA.
ACCESS_DIR = "/etc/redis/access"
EXPORTER_ACCESS_DIR = "/etc/redis/ca"


def access_volume(name: str, keys: list[str]) -> k8s.Volume:
    items = [k8s.KeyToPath(key=key, path=key) for key in keys]
    return k8s.Volume(name=name, secret=k8s.SecretVolumeSource(secret_name=REDIS_SECRET, items=items, default_mode=0o440))


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
                # TLS only, one ACL user per role, `default` off (payload/queue/access.py).
                *server_args(ACCESS_DIR, REDIS_PORT),
            ],  # fmt: skip
            ports=[port("redis", REDIS_PORT)],
            resources=cpu_resources("2", f"{limit_gib}Gi"),
            security_context=restricted_security(),
            volume_mounts=[
                k8s.VolumeMount(name="data", mount_path="/data"),
                k8s.VolumeMount(name="access", mount_path=ACCESS_DIR, read_only=True),
            ],
            readiness_probe=k8s.Probe(
                exec=k8s.ExecAction(command=probe_command(ACCESS_DIR, REDIS_PORT)),
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
            # The exporter reads its password from the environment (its password file is a JSON
            # map of addresses): the kubelet injects it from the Secret; it is in no argument.
            env=[
                k8s.EnvVar(name="REDIS_ADDR", value=f"rediss://localhost:{REDIS_PORT}"),
                k8s.EnvVar(name="REDIS_USER", value="monitor"),
                k8s.EnvVar(
                    name="REDIS_PASSWORD",
                    value_from=k8s.EnvVarSource(secret_key_ref=k8s.SecretKeySelector(name=REDIS_SECRET, key="monitor")),
                ),
                k8s.EnvVar(name="REDIS_EXPORTER_TLS_CA_CERT_FILE", value=f"{EXPORTER_ACCESS_DIR}/{CA_CERT}"),
            ],
            volume_mounts=[k8s.VolumeMount(name="exporter-access", mount_path=EXPORTER_ACCESS_DIR, read_only=True)],
            ports=[port("metrics", REDIS_EXPORTER_PORT)],
            resources=cpu_resources("100m", "128Mi"),
            security_context=restricted_security(),
            liveness_probe=http_probe("/health", "metrics", period=30, failures=3),
            readiness_probe=http_probe("/health", "metrics", period=10, failures=3),
        )
        stateful_pod_with_volume(
            self,
            "statefulset",
            BUFFER,
            pod_template(
                BUFFER,
                ctx.job_digest,
                placement,
                [redis, exporter],
                service_account=BUFFER,
                priority_class=PRIORITY_BUFFER,
                grace_seconds=60,
                volumes=[
                    access_volume("access", [ACL_FILE, SERVER_CERT, SERVER_KEY, CA_CERT, "monitor"]),
                    access_volume("exporter-access", [CA_CERT]),
                ],
            ),
            volume_gib,
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
