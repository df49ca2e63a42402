"""The MLflow tracking server (`mlflow server`, one pod on the `cpu` pool) and its backend store
(PostgreSQL, a StatefulSet on the `memory` pool with a gp3 volume); run artifacts in the
environment's S3 bucket under mlflow/.

PostgreSQL in the cluster rather than RDS from the CDK app: the store holds run metadata (a
parameter set and a few dozen metrics a step: megabytes for a long run), so a managed database's
scale and replicas buy nothing here, while RDS would put the store outside what NetworkPolicy
governs (a security group path from every node instead of from one pod), add a database secret
to the CDK app and an hourly cost while the cluster is idle. The price of the choice, stated: the
volume is one gp3 volume in the cluster's one zone (reclaim policy Retain, so deleting the
StatefulSet or the namespace keeps it; back it up with EBS snapshots), and a memory node
replacement moves the pod with its volume in the same zone.

Reachable only from the trainer pods (the one writer) and through `kubectl port-forward`
(which enters the pod's own network namespace, past NetworkPolicy); PostgreSQL only from the
server. The server proxies artifacts (`--serve-artifacts`), so only its service account has S3
access (EKS Pod Identity, infra/tracking.py), and only it leaves the cluster: to its own S3
interface endpoint's /28 on 443 (cluster/network.py) and to the Pod Identity agent. The
database password is the operator's Secret (k8s/README.md), never rendered into dist/.
"""

from __future__ import annotations

import cdk8s
from cdk8s_plus_33 import k8s
from constructs import Construct

from cluster.identities import TRACKING_ARTIFACTS_PREFIX, TRACKING_SERVICE_ACCOUNT
from cluster.network import artifacts_endpoint_subnet, artifacts_endpoint_url
from cluster.placement import Placement
from k8s.charts.base import stateful_pod_with_volume
from k8s.context import Context
from k8s.netpol import allow, from_components, ports, to_components
from k8s.placement import cpu_resources
from k8s.pods import (
    NAMESPACE,
    PRIORITY_BUFFER,
    PRIORITY_ROLLOUT,
    TRACKING,
    TRACKING_DB,
    TRACKING_DB_PORT,
    TRAINER,
    env,
    headless_service,
    http_probe,
    metadata,
    pod_template,
    port,
    restricted_security,
    selector,
    service_account,
    tmp_mount,
    tmp_volume,
)
from payload.train.tracking import SERVER_ENV, SERVER_PORT, server_command

# Created by the operator (k8s/README.md): key `password`, the database user's.
DB_SECRET = "rl-mlflow-db"
DB_NAME = DB_USER = "mlflow"
DB_VOLUME_GIB = 20
DATA_DIR = "/var/lib/postgresql/data"
SECRET_DIR = "/etc/postgres/secret"
# The EKS Pod Identity agent, which hands the server its role's credentials.
POD_IDENTITY_AGENT = "169.254.170.23/32"
S3_ENDPOINT_ENV = "MLFLOW_S3_ENDPOINT_URL"
# The names the server is reached by: the trainer's URL, and localhost through port-forward.
ALLOWED_HOSTS = [f"{TRACKING}:{SERVER_PORT}", f"{TRACKING}.{NAMESPACE}.svc:{SERVER_PORT}",
                 f"{TRACKING}.{NAMESPACE}.svc.cluster.local:{SERVER_PORT}", "localhost:*", "127.0.0.1:*"]


def tracking_url() -> str:
    """What the trainer logs to (MLFLOW_TRACKING_URI, set by k8s/charts/trainer.py)."""
    return f"http://{TRACKING}.{NAMESPACE}.svc:{SERVER_PORT}"


def _password(name: str) -> k8s.EnvVar:
    return k8s.EnvVar(name=name, value_from=k8s.EnvVarSource(
        secret_key_ref=k8s.SecretKeySelector(name=DB_SECRET, key="password")))


class TrackingChart(cdk8s.Chart):
    def __init__(self, scope: Construct, id: str, ctx: Context) -> None:
        super().__init__(scope, id, namespace=NAMESPACE)
        if not ctx.job.tracking.server:
            return
        self._database(ctx)
        self._server(ctx)

    def _database(self, ctx: Context) -> None:
        service_account(self, TRACKING_DB)
        postgres = k8s.Container(
            name="postgres",
            image=ctx.job.images.postgres,
            env=[
                env("POSTGRES_USER", DB_USER),
                env("POSTGRES_DB", DB_NAME),
                # As a file (the image reads *_FILE variables), only the server needs it in its environment.
                env("POSTGRES_PASSWORD_FILE", f"{SECRET_DIR}/password"),
                # A subdirectory: the volume's root holds lost+found, which initdb refuses.
                env("PGDATA", f"{DATA_DIR}/pgdata"),
            ],
            ports=[port("postgres", TRACKING_DB_PORT)],
            resources=cpu_resources("1", "4Gi"),
            security_context=restricted_security(),
            volume_mounts=[
                k8s.VolumeMount(name="data", mount_path=DATA_DIR),
                # The server's socket and lock files; the root filesystem is read-only.
                k8s.VolumeMount(name="run", mount_path="/var/run/postgresql"),
                k8s.VolumeMount(name="secret", mount_path=SECRET_DIR, read_only=True),
                tmp_mount(),
            ],
            readiness_probe=k8s.Probe(exec=k8s.ExecAction(command=["pg_isready", "-U", DB_USER, "-d", DB_NAME]),
                                      period_seconds=10, failure_threshold=3, timeout_seconds=5),
            liveness_probe=k8s.Probe(tcp_socket=k8s.TcpSocketAction(port=k8s.IntOrString.from_string("postgres")),
                                     period_seconds=20, failure_threshold=6),
        )
        stateful_pod_with_volume(
            self,
            "database",
            TRACKING_DB,
            pod_template(
                TRACKING_DB,
                ctx.job_digest,
                Placement.of(ctx.environment, "memory"),
                [postgres],
                service_account=TRACKING_DB,
                # With the buffer it shares a pool with: state, never preempted by workers.
                priority_class=PRIORITY_BUFFER,
                grace_seconds=60,
                volumes=[
                    k8s.Volume(name="run", empty_dir=k8s.EmptyDirVolumeSource(
                        size_limit=k8s.Quantity.from_string("16Mi"))),
                    tmp_volume("1Gi"),
                    k8s.Volume(name="secret", secret=k8s.SecretVolumeSource(
                        secret_name=DB_SECRET, items=[k8s.KeyToPath(key="password", path="password")],
                        default_mode=0o440)),
                ],
            ),
            DB_VOLUME_GIB,
        )
        headless_service(self, "database-service", TRACKING_DB, TRACKING_DB, {"postgres": TRACKING_DB_PORT})
        allow(self, TRACKING_DB, ingress=[from_components(TRACKING, port_numbers=(TRACKING_DB_PORT,))])

    def _server(self, ctx: Context) -> None:
        # Bound to the Pod Identity role of infra/tracking.py by this name.
        service_account(self, TRACKING_SERVICE_ACCOUNT)
        command = server_command(
            # No password in the URI (it would be in dist/ and in `ps`): libpq reads PGPASSWORD.
            f"postgresql://{DB_USER}@{TRACKING_DB}:{TRACKING_DB_PORT}/{DB_NAME}",
            f"s3://{ctx.outputs.bucket_name}/{TRACKING_ARTIFACTS_PREFIX}",
            "0.0.0.0", SERVER_PORT, 2, ALLOWED_HOSTS,
        )
        server = k8s.Container(
            name=TRACKING,
            image=ctx.job.images.mlflow,
            command=command,
            env=[
                _password("PGPASSWORD"),
                env("AWS_REGION", ctx.environment.region),
                env("AWS_DEFAULT_REGION", ctx.environment.region),
                # S3 through its own interface endpoint, the one address outside the cluster its
                # NetworkPolicy allows (cluster/network.py); mlflow's S3ArtifactRepository hands
                # it to boto3 as endpoint_url (mlflow/environment_variables.py).
                env(S3_ENDPOINT_ENV, artifacts_endpoint_url(ctx.outputs.artifacts_endpoint_dns_name)),
                # Caches and temporary artifact files: the root filesystem is read-only.
                env("HOME", "/tmp"),
                *[env(k, v) for k, v in SERVER_ENV.items()],
            ],
            ports=[port("http", SERVER_PORT)],
            resources=cpu_resources("2", "4Gi"),
            security_context=restricted_security(),
            volume_mounts=[tmp_mount()],
            readiness_probe=http_probe("/health", "http", period=10, failures=3),
            liveness_probe=http_probe("/health", "http", period=30, failures=4),
        )
        k8s.KubeDeployment(
            self,
            "server",
            metadata=metadata(TRACKING),
            spec=k8s.DeploymentSpec(
                replicas=1,
                selector=selector(TRACKING),
                template=pod_template(
                    TRACKING,
                    ctx.job_digest,
                    Placement.of(ctx.environment, "cpu"),
                    [server],
                    service_account=TRACKING_SERVICE_ACCOUNT,
                    priority_class=PRIORITY_ROLLOUT,
                    volumes=[tmp_volume("20Gi")],
                ),
            ),
        )
        headless_service(self, "server-service", TRACKING, TRACKING, {"http": SERVER_PORT})
        s3_endpoint = [k8s.NetworkPolicyPeer(ip_block=k8s.IpBlock(cidr=artifacts_endpoint_subnet(ctx.environment.vpc_cidr)))]
        allow(
            self,
            TRACKING,
            ingress=[from_components(TRAINER, port_numbers=(SERVER_PORT,))],
            egress=[
                to_components(TRACKING_DB, port_numbers=(TRACKING_DB_PORT,)),
                # S3 over TLS, through the interface endpoint alone in this /28 (cluster/network.py
                # says why not S3's public ranges through the gateway endpoint).
                k8s.NetworkPolicyEgressRule(to=s3_endpoint, ports=ports(443)),
                k8s.NetworkPolicyEgressRule(
                    to=[k8s.NetworkPolicyPeer(ip_block=k8s.IpBlock(cidr=POD_IDENTITY_AGENT))], ports=ports(80)),
            ],
        )
