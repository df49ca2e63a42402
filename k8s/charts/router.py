"""The SGLang model gateway in front of the rollout servers, on the `cpu` pool.

One replica: cache-aware routing keeps its prefix tree in process, and a second router
would halve every prefix hit; a restart costs only cache affinity, the workers retry.
The servers are listed statically: LeaderWorkerSet leader names are stable and the count
comes from the environment, so no Kubernetes API access (and no RBAC) is needed. Readiness is
the gateway's own /readiness, which answers 503 until some worker is healthy: ready means it
can route.
"""

from __future__ import annotations

import cdk8s
from cdk8s_plus_33 import k8s
from constructs import Construct

from k8s.charts.rollout_servers import server_urls
from k8s.context import Context
from k8s.netpol import allow, from_components, from_prometheus, to_components
from cluster.placement import Placement
from k8s.placement import cpu_resources
from k8s.pods import (
    NAMESPACE,
    PRIORITY_ROLLOUT,
    ROLLOUT_SERVER,
    ROLLOUT_WORKER,
    ROUTER,
    ROUTER_METRICS_PORT,
    ROUTER_PORT,
    SGLANG_PORT,
    http_probe,
    labels,
    metadata,
    pod_template,
    port,
    restricted_security,
    selector,
    service_account,
    service_port,
    tmp_mount,
    tmp_volume,
)


# Above the rollout servers' startup budget (1800 s) with room for a slow FSx read.
ROUTER_WORKER_STARTUP_TIMEOUT_S = 3600


class RouterChart(cdk8s.Chart):
    def __init__(self, scope: Construct, id: str, ctx: Context) -> None:
        super().__init__(scope, id, namespace=NAMESPACE)
        placement = Placement.of(ctx.environment, "cpu")
        service_account(self, ROUTER)
        container = k8s.Container(
            name=ROUTER,
            image=ctx.job.images.router,
            command=[
                "python3", "-m", "sglang_router.launch_router",
                "--worker-urls", *server_urls(ctx.rollout.replicas),
                "--policy", "cache_aware",
                # Static workers are registered by a background job that polls each one until this
                # timeout: longer than a server's start (weights from FSx + CUDA graphs, the
                # rollout servers' startup probe allows 30 minutes), so a late server still joins.
                "--worker-startup-timeout-secs", str(ROUTER_WORKER_STARTUP_TIMEOUT_S),
                # SGLang's /health does not generate (the servers set
                # SGLANG_ENABLE_HEALTH_ENDPOINT_GENERATION=0): a server paused for a weight
                # publish stays routable and its requests wait instead of failing over.
                "--health-check-endpoint", "/health",
                "--host", "0.0.0.0",
                "--port", str(ROUTER_PORT),
                "--prometheus-host", "0.0.0.0",
                "--prometheus-port", str(ROUTER_METRICS_PORT),
            ],  # fmt: skip
            ports=[port("http", ROUTER_PORT), port("metrics", ROUTER_METRICS_PORT)],
            resources=cpu_resources("4", "8Gi"),
            security_context=restricted_security(),
            volume_mounts=[tmp_mount()],
            readiness_probe=http_probe("/readiness", "http", period=10, failures=3),
            liveness_probe=http_probe("/liveness", "http", period=15, failures=4),
        )
        k8s.KubeDeployment(
            self,
            "deployment",
            metadata=metadata(ROUTER),
            spec=k8s.DeploymentSpec(
                replicas=1,
                selector=selector(ROUTER),
                template=pod_template(
                    ROUTER,
                    ctx.job_digest,
                    placement,
                    [container],
                    service_account=ROUTER,
                    priority_class=PRIORITY_ROLLOUT,
                    volumes=[tmp_volume("1Gi")],
                ),
            ),
        )
        k8s.KubeService(
            self,
            "service",
            metadata=metadata(ROUTER),
            spec=k8s.ServiceSpec(
                selector=labels(ROUTER),
                ports=[service_port("http", ROUTER_PORT), service_port("metrics", ROUTER_METRICS_PORT)],
            ),
        )
        allow(
            self,
            ROUTER,
            ingress=[from_components(ROLLOUT_WORKER, port_numbers=(ROUTER_PORT,)), from_prometheus(ROUTER_METRICS_PORT)],
            egress=[to_components(ROLLOUT_SERVER, port_numbers=(SGLANG_PORT,))],
        )
