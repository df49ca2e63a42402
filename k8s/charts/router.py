"""The SGLang model gateway in front of the rollout servers, on the `cpu` pool.

One replica: the sticky-session table (`--policy manual`) lives in process, and a second
router would split a conversation's turns; a restart costs only cache affinity, the workers retry.
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


# Created by the operator (README, deploy): key `key`, the router's control-plane admin key.
# sglang-router 0.3.2 serves /workers (list, add, DELETE a worker) on the port the rollout
# workers, which handle model output, call for /generate; without a key anyone who reaches it
# can empty the fleet (DELETE /workers/<id>: 202, then /generate 503). With
# --control-plane-api-keys those routes answer 401 without it and /generate stays open
# (measured against the released router: tests/sglang_release). Nothing of this job needs the
# control plane; an operator reads the workers with the key (kubectl port-forward).
ROUTER_ADMIN_SECRET = "rl-router-admin"
ROUTER_ADMIN_KEY_ENV = "ROUTER_ADMIN_KEY"
# What `python3 -m sglang_router.launch_router` runs (its RouterArgs parser, the Rust Router's
# start), with the admin key from the environment: 0.3.2 takes it only as an argument, and a
# Secret expanded into argv is readable in /proc (tests/k8s/test_k8s_access.py). It also skips
# launch_router's import of the mini load balancer, which loads all of SGLang and torch.
LAUNCH_ROUTER = f"""
import argparse, os, sys
from sglang_router.router import Router
from sglang_router.router_args import RouterArgs
parser = argparse.ArgumentParser()
RouterArgs.add_cli_args(parser, use_router_prefix=False)
args = RouterArgs.from_cli_args(parser.parse_args(sys.argv[1:]), use_router_prefix=False)
args.control_plane_api_keys = [("operator", "operator", os.environ["{ROUTER_ADMIN_KEY_ENV}"], "admin")]
args._validate_router_args()
Router.from_args(args).start()
"""
# Above the rollout servers' startup budget (1800 s) with room for a slow FSx read.
ROUTER_WORKER_STARTUP_TIMEOUT_S = 3600
# A session key (one task) outlives its episode's longest gap between turns (a tool call) by far;
# at 512 tasks a step and a step a minute, an hour of keys is ~30k entries of ~100 bytes.
ROUTER_SESSION_IDLE_S = 3600


class RouterChart(cdk8s.Chart):
    def __init__(self, scope: Construct, id: str, ctx: Context) -> None:
        super().__init__(scope, id, namespace=NAMESPACE)
        placement = Placement.of(ctx.environment, "cpu")
        service_account(self, ROUTER)
        container = k8s.Container(
            name=ROUTER,
            image=ctx.job.images.router,
            command=[
                "python3", "-c", LAUNCH_ROUTER,
                "--worker-urls", *server_urls(ctx.rollout.replicas),
                # Sticky sessions: a multi-turn conversation's requests carry its task id in
                # X-SMG-Routing-Key (payload.rollout.client), so every turn lands on the server
                # whose radix cache holds the turns before it; a new key goes to the least
                # loaded server. cache_aware would move a conversation to the shortest queue
                # whenever the servers' loads drift apart (its balance thresholds), losing the
                # cache mid-episode. Keys idle past --max-idle-secs are forgotten.
                "--policy", "manual",
                "--assignment-mode", "min_load",
                "--max-idle-secs", str(ROUTER_SESSION_IDLE_S),
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
            env=[k8s.EnvVar(name=ROUTER_ADMIN_KEY_ENV, value_from=k8s.EnvVarSource(
                secret_key_ref=k8s.SecretKeySelector(name=ROUTER_ADMIN_SECRET, key="key")))],
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
