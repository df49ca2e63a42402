"""Rollout workers and verifiers: stateless Deployments on the `cpu` pool.

Workers take prompts from the task queue, generate through the router, and write scored
groups to the experience buffer; verifiers score the responses a worker does not score
inline. Both acknowledge a task only once its result is in Redis, so a pod killed by a
spot reclaim loses nothing: its unacknowledged tasks return to the queue.
"""

from __future__ import annotations

import cdk8s
from cdk8s_plus_33 import k8s
from constructs import Construct

from urllib.parse import urlsplit

from k8s.charts.reward_servers import reward_url
from k8s.charts.sandbox import sandbox_url
from k8s.context import Context
from k8s.netpol import allow, from_prometheus, ports, to_components
from cluster.placement import Placement
from k8s.placement import cpu_resources
from payload.queue.access import worker_role
from payload.rewards.model import REWARD_URL_ENV
from payload.sandbox.client import SANDBOX_URL_ENV
from k8s.pods import (
    BUFFER,
    METRICS_PORT,
    NAMESPACE,
    PRIORITY_ROLLOUT,
    REDIS_PORT,
    REWARD_SERVER,
    ROLLOUT_WORKER,
    ROUTER,
    ROUTER_PORT,
    SANDBOX,
    SANDBOX_PORT,
    SGLANG_PORT,
    SPOT_GRACE_SECONDS,
    VERIFIER,
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


class WorkersChart(cdk8s.Chart):
    def __init__(self, scope: Construct, id: str, ctx: Context) -> None:
        super().__init__(scope, id, namespace=NAMESPACE)
        # Their own identities, not the servers' `rollout`: these pods handle model output.
        service_account(self, ROLLOUT_WORKER)
        service_account(self, VERIFIER)
        router_url = f"http://{ROUTER}.{NAMESPACE}.svc:{ROUTER_PORT}"
        # Whoever scores (inline in a worker, or a verifier) may call the reward model.
        reward_env, reward_egress = self._reward_model(ctx)
        self._deployment(
            ctx,
            ROLLOUT_WORKER,
            command="rollout",
            replicas=ctx.job.rollout.workers,
            identity=ROLLOUT_WORKER,
            # `worker` may not write the buffer unless this job's workers score (payload/queue/access.py).
            redis_user=worker_role(ctx.job),
            extra_env=[env("RL_ROUTER_URL", router_url), env(SANDBOX_URL_ENV, sandbox_url()), *reward_env],
            # Multi-turn tasks frame the tools' replies with the policy's tokenizer and chat
            # template, read from job.model.path (read-only; single-turn jobs never open it).
            model_files=True,
        )
        self._deployment(
            ctx,
            VERIFIER,
            command="verify",
            replicas=ctx.job.rollout.verifiers,
            identity=VERIFIER,
            redis_user="verifier",
            extra_env=[env(SANDBOX_URL_ENV, sandbox_url()), *reward_env],
        )
        allow(
            self,
            ROLLOUT_WORKER,
            ingress=[from_prometheus(METRICS_PORT)],
            egress=[
                to_components(ROUTER, port_numbers=(ROUTER_PORT,)),
                to_components(BUFFER, port_numbers=(REDIS_PORT,)),
                to_components(SANDBOX, port_numbers=(SANDBOX_PORT,)),
                *reward_egress,
            ],
        )
        allow(
            self,
            VERIFIER,
            ingress=[from_prometheus(METRICS_PORT)],
            egress=[
                to_components(BUFFER, port_numbers=(REDIS_PORT,)),
                to_components(SANDBOX, port_numbers=(SANDBOX_PORT,)),
                *reward_egress,
            ],
        )

    @staticmethod
    def _reward_model(ctx: Context) -> tuple[list[k8s.EnvVar], list[k8s.NetworkPolicyEgressRule]]:
        """The reward model's address and the egress rule to it: the job's own reward servers
        (RL_REWARD_URL), or a shared server's url (read from the job config; its host can be
        anywhere, a NetworkPolicy cannot name it, so only its port is opened)."""
        model = ctx.job.rewards.model
        if model is None or not ctx.job.rewards.uses_model:
            return [], []
        if model.url is None:
            return [env(REWARD_URL_ENV, reward_url())], [to_components(REWARD_SERVER, port_numbers=(SGLANG_PORT,))]
        url = urlsplit(model.url)
        port_number = url.port or (443 if url.scheme == "https" else 80)
        return [], [k8s.NetworkPolicyEgressRule(ports=ports(port_number))]

    def _deployment(
        self,
        ctx: Context,
        component: str,
        command: str,
        replicas: int,
        identity: str,
        redis_user: str,
        extra_env: list[k8s.EnvVar] = (),
        model_files: bool = False,
    ) -> None:
        placement = Placement.of(ctx.environment, "cpu")
        container = k8s.Container(
            name=component,
            image=ctx.job.images.payload,
            command=["python", "-m", "payload", command],
            env=[*payload_env(), *queue_env(redis_user), *extra_env],
            ports=[port("metrics", METRICS_PORT)],
            resources=cpu_resources("2", "4Gi"),
            security_context=restricted_security(),
            volume_mounts=[job_config_mount(), tmp_mount(), queue_mount(), *([fsx_mount(read_only=True)] if model_files else [])],
            readiness_probe=http_probe("/readyz", "metrics", period=10, failures=3),
            liveness_probe=http_probe("/healthz", "metrics", period=30, failures=4),
        )
        k8s.KubeDeployment(
            self,
            component,
            metadata=metadata(component),
            spec=k8s.DeploymentSpec(
                replicas=replicas,
                selector=selector(component),
                template=pod_template(
                    component,
                    ctx.job_digest,
                    placement,
                    [container],
                    service_account=identity,
                    priority_class=PRIORITY_ROLLOUT,
                    volumes=[job_config_volume(), tmp_volume("2Gi"), queue_volume(redis_user),
                             *([fsx_volume()] if model_files else [])],
                    # SIGTERM (a spot notice or a rollout): finish or hand back the current
                    # tasks before the node goes.
                    grace_seconds=SPOT_GRACE_SECONDS,
                ),
            ),
        )
        # Headless: only for the ServiceMonitor to find every pod's /metrics.
        headless_service(self, f"{component}-metrics", f"{component}-metrics", component, {"metrics": METRICS_PORT})
