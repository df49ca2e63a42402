"""The pod builder every chart uses: names, ports, labels, volumes, probes, security, the
pod template (identity, priority, placement, pod security) and the Services in front of pods.

Names and ports live here once so that Services, NetworkPolicies, ServiceMonitors and the
URLs handed to processes cannot drift apart.
"""

from __future__ import annotations

from pathlib import PurePosixPath

import cdk8s
from cdk8s_plus_33 import k8s
from constructs import Construct

from cluster.identities import WORKLOAD_NAMESPACE
from k8s.imports.io.x_k8s import jobset as js
from cluster.placement import GDRDRV_READY_LABEL, Placement
from k8s.placement import tolerations
from k8s.structs import as_struct
from spec.job import JOB_CONFIG_ENV, JOB_CONFIG_PATH, SPOT_GRACE_SECONDS
from payload.queue.access import CA_CERT, client_url
from payload.queue.url import PASSWORD_FILE_ENV

NAMESPACE = WORKLOAD_NAMESPACE
PART_OF = "moe-rl"

# Components: each is a Deployment/StatefulSet/JobSet/LeaderWorkerSet name, its pods'
# `app.kubernetes.io/name` label and (where it serves) its Service name.
TRAINER = "trainer"
ROLLOUT_SERVER = "rollout-server"
ROUTER = "router"
ROLLOUT_WORKER = "rollout-worker"
VERIFIER = "verifier"
FEEDER = "feeder"
BUFFER = "buffer"
SANDBOX = "sandbox"
REWARD_SERVER = "reward-server"
TRACKING = "mlflow"  # the MLflow tracking server (k8s/charts/tracking.py)
TRACKING_DB = "mlflow-db"  # its PostgreSQL backend store
# The opt-in acceptance jobs (dist/acceptance/).
ACCEPTANCE = "acceptance"

# Every payload process serves Prometheus /metrics and /healthz, /readyz on this port.
METRICS_PORT = 9400
SGLANG_PORT = 30000
SGLANG_DIST_INIT_PORT = 20000
ROUTER_PORT = 30000
ROUTER_METRICS_PORT = 29000
REDIS_PORT = 6379
REDIS_EXPORTER_PORT = 9121
RENDEZVOUS_PORT = 29500
SANDBOX_PORT = 8090
TRACKING_DB_PORT = 5432

JOB_CONFIGMAP = "rl-job"
FSX_CLAIM = "fsx"
FSX_MOUNT = "/fsx"
# Created by the operator from `python -m payload redis-access` (k8s/README.md), never
# rendered: no secret value is in dist/. One key per ACL user (its password), the ACL file
# and the TLS material (payload/queue/access.py).
REDIS_SECRET = "rl-redis"
# Where a queue client finds its role's password and the CA that signed the buffer's certificate.
REDIS_ACCESS_DIR = "/etc/rl/redis"
REDIS_PASSWORD_FILE = "password"

PRIORITY_TRAINER = "rl-trainer"
PRIORITY_BUFFER = "rl-buffer"
PRIORITY_ROLLOUT = "rl-rollout"

# Every non-root container runs as this UID (above 10000: no collision with a host user if
# a container ever escapes into the node's user namespace).
NONROOT_UID = 10001


def labels(component: str) -> dict[str, str]:
    return {"app.kubernetes.io/name": component, "app.kubernetes.io/part-of": PART_OF}


def selector(component: str) -> k8s.LabelSelector:
    return k8s.LabelSelector(match_labels={"app.kubernetes.io/name": component})


def metadata(name: str, component: str | None = None) -> k8s.ObjectMeta:
    return k8s.ObjectMeta(name=name, labels=labels(component or name))


def pod_metadata(component: str, digest: str, annotations: dict[str, str] | None = None) -> k8s.ObjectMeta:
    return k8s.ObjectMeta(labels=labels(component), annotations={"rl.aws/job-config": digest, **(annotations or {})})


def port(name: str, number: int) -> k8s.ContainerPort:
    return k8s.ContainerPort(name=name, container_port=number, protocol="TCP")


def env(name: str, value: str) -> k8s.EnvVar:
    return k8s.EnvVar(name=name, value=value)


def field_env(name: str, field_path: str) -> k8s.EnvVar:
    return k8s.EnvVar(name=name, value_from=k8s.EnvVarSource(field_ref=k8s.ObjectFieldSelector(field_path=field_path)))


def payload_env() -> list[k8s.EnvVar]:
    """What every payload process reads besides the job config (no bucket: the payload calls
    no AWS API; S3 reaches it only through FSx's data repository associations)."""
    return [
        env(JOB_CONFIG_ENV, JOB_CONFIG_PATH),
        env("RL_METRICS_PORT", str(METRICS_PORT)),
        field_env("POD_NAME", "metadata.name"),
        field_env("POD_IP", "status.podIP"),
        # The root filesystem is read-only; caches (Triton, Hugging Face, pip) go to /tmp.
        env("HOME", "/tmp"),
    ]


def buffer_host() -> str:
    return f"{BUFFER}.{NAMESPACE}.svc"


def queue_env(role: str) -> list[k8s.EnvVar]:
    """The task queue / buffer as ACL user `role` over TLS: the URL names the user, the
    password is a mounted file (queue_volume), in no URL, argument or environment variable."""
    return [
        env("RL_QUEUE_URL", client_url(role, buffer_host(), REDIS_PORT, f"{REDIS_ACCESS_DIR}/{CA_CERT}")),
        env(PASSWORD_FILE_ENV, f"{REDIS_ACCESS_DIR}/{REDIS_PASSWORD_FILE}"),
    ]


def queue_volume(role: str) -> k8s.Volume:
    """Only `role`'s password and the CA certificate of the operator's Secret (0440: the
    non-root user reads it through the pod's fsGroup)."""
    items = [k8s.KeyToPath(key=role, path=REDIS_PASSWORD_FILE), k8s.KeyToPath(key=CA_CERT, path=CA_CERT)]
    return k8s.Volume(name="redis-access", secret=k8s.SecretVolumeSource(secret_name=REDIS_SECRET, items=items, default_mode=0o440))


def queue_mount() -> k8s.VolumeMount:
    return k8s.VolumeMount(name="redis-access", mount_path=REDIS_ACCESS_DIR, read_only=True)


def job_config_volume() -> k8s.Volume:
    return k8s.Volume(
        name="job-config",
        config_map=k8s.ConfigMapVolumeSource(
            name=JOB_CONFIGMAP, items=[k8s.KeyToPath(key="job.yaml", path=PurePosixPath(JOB_CONFIG_PATH).name)]
        ),
    )


def job_config_mount() -> k8s.VolumeMount:
    return k8s.VolumeMount(name="job-config", mount_path=str(PurePosixPath(JOB_CONFIG_PATH).parent), read_only=True)


def fsx_volume() -> k8s.Volume:
    return k8s.Volume(name="fsx", persistent_volume_claim=k8s.PersistentVolumeClaimVolumeSource(claim_name=FSX_CLAIM))


def fsx_mount(read_only: bool = False) -> k8s.VolumeMount:
    return k8s.VolumeMount(name="fsx", mount_path=FSX_MOUNT, read_only=read_only)


def tmp_volume(size: str = "20Gi") -> k8s.Volume:
    return k8s.Volume(name="tmp", empty_dir=k8s.EmptyDirVolumeSource(size_limit=k8s.Quantity.from_string(size)))


def tmp_mount() -> k8s.VolumeMount:
    return k8s.VolumeMount(name="tmp", mount_path="/tmp")


def shm_volume(size: str) -> k8s.Volume:
    # Memory-backed: the container runtime's default /dev/shm is 64 MiB, too small for NCCL's
    # shared-memory transport and CUDA IPC handles between the 8 ranks of a node.
    return k8s.Volume(
        name="dshm", empty_dir=k8s.EmptyDirVolumeSource(medium="Memory", size_limit=k8s.Quantity.from_string(size))
    )


def shm_mount() -> k8s.VolumeMount:
    return k8s.VolumeMount(name="dshm", mount_path="/dev/shm")


def http_probe(
    path: str, port_name: str, period: int, failures: int, timeout: int = 5
) -> k8s.Probe:
    return k8s.Probe(
        http_get=k8s.HttpGetAction(path=path, port=k8s.IntOrString.from_string(port_name)),
        period_seconds=period,
        failure_threshold=failures,
        timeout_seconds=timeout,
    )


def restricted_security() -> k8s.SecurityContext:
    """The Pod Security "restricted" profile plus a read-only root filesystem."""
    return k8s.SecurityContext(
        run_as_non_root=True,
        run_as_user=NONROOT_UID,
        run_as_group=NONROOT_UID,
        read_only_root_filesystem=True,
        allow_privilege_escalation=False,
        privileged=False,
        capabilities=k8s.Capabilities(drop=["ALL"]),
        seccomp_profile=k8s.SeccompProfile(type="RuntimeDefault"),
    )


def restricted_pod_security() -> k8s.PodSecurityContext:
    # fs_group: volumes (the buffer's gp3 volume) are writable by the non-root user.
    return k8s.PodSecurityContext(
        run_as_non_root=True,
        run_as_user=NONROOT_UID,
        run_as_group=NONROOT_UID,
        fs_group=NONROOT_UID,
        seccomp_profile=k8s.SeccompProfile(type="RuntimeDefault"),
    )


def gpu_security(read_only_root: bool) -> k8s.SecurityContext:
    """GPU pods over EFA: not privileged, only IPC_LOCK (libfabric pins the memory it registers).

    They run as root because a capability added by Kubernetes is only effective for UID 0
    (there are no ambient capabilities for other users).

    No SYS_PTRACE. containerd's RuntimeDefault seccomp profile allows pidfd_getfd (with kcmp,
    ptrace, process_vm_*) only when CAP_SYS_PTRACE is in the bounding set
    (contrib/seccomp/seccomp_default.go), and CUDA IPC needs that call only to import a torch
    expandable segment another process exported (SGLang 0.5.23 says as much in
    multimodal_gen/.../ipc_a2a.py and keeps such buffers out of expandable segments). The paths
    these pods take need no fd theft: NCCL 2.30.7 passes its cuMem handles' file descriptors
    over a Unix socket (SCM_RIGHTS, src/os/linux_ipcsocket.cc), and the CUDA caching allocator's
    default segments share through legacy cudaIpc handles. DeepEP v2 (sgl-deep-ep 0.1.2.post1)
    takes a peer's fd with pidfd_getfd only for an ElasticBuffer's CPU segments (num_cpu_bytes >
    0, deep_ep/buffers/elastic.py), which neither payload/ep/deepep.py nor SGLang's deepep_v2
    dispatcher asks for. That holds while no GPU container turns on expandable_segments
    (PYTORCH_CUDA_ALLOC_CONF; tests/k8s hold dist/ to it) and no ElasticBuffer gets CPU bytes.
    """
    return k8s.SecurityContext(
        run_as_user=0,
        read_only_root_filesystem=read_only_root,
        allow_privilege_escalation=False,
        privileged=False,
        capabilities=k8s.Capabilities(drop=["ALL"], add=["IPC_LOCK"]),
        seccomp_profile=k8s.SeccompProfile(type="RuntimeDefault"),
    )


def pod_template(
    component: str,
    job_digest: str,
    placement: Placement,
    containers: list[k8s.Container],
    *,
    service_account: str,
    priority_class: str,
    volumes: list[k8s.Volume] = (),
    grace_seconds: int | None = None,
    restart_policy: str | None = None,
    service_links: bool | None = None,
    annotations: dict[str, str] | None = None,
    needs_gdrdrv: bool = False,
    affinity: k8s.Affinity | None = None,
) -> k8s.PodTemplateSpec:
    """A pod of `component` on its pool: labels, identity, priority, placement and security.
    `needs_gdrdrv` (DeepEP across nodes: GIN over EFA) keeps it to nodes whose boot built
    GDRCopy's gdrdrv (cluster.placement.GDRDRV_READY_LABEL).

    No pod mounts a Kubernetes API token (none calls the API). Pods on CPU-only pools get
    the restricted pod security context; GPU pods run as root with only IPC_LOCK, set per
    container (gpu_security).
    """
    return k8s.PodTemplateSpec(
        metadata=pod_metadata(component, job_digest, annotations),
        spec=k8s.PodSpec(
            containers=containers,
            restart_policy=restart_policy,
            service_account_name=service_account,
            automount_service_account_token=False,
            priority_class_name=priority_class,
            node_selector={**placement.node_selector(), **(GDRDRV_READY_LABEL if needs_gdrdrv else {})},
            tolerations=tolerations(placement),
            affinity=affinity,
            security_context=None if placement.spec.gpus else restricted_pod_security(),
            termination_grace_period_seconds=grace_seconds,
            enable_service_links=service_links,
            volumes=list(volumes) or None,
        ),
    )


def service_account(scope: Construct, name: str) -> k8s.KubeServiceAccount:
    """A pod identity without a mounted API token (EKS Pod Identity binds AWS roles by name)."""
    return k8s.KubeServiceAccount(
        scope, f"sa-{name}", metadata=metadata(name), automount_service_account_token=False
    )


def service_port(name: str, number: int) -> k8s.ServicePort:
    """A Service port that targets the container port of the same name."""
    return k8s.ServicePort(name=name, port=number, target_port=k8s.IntOrString.from_string(name))


def headless_service(
    scope: Construct,
    id: str,
    name: str,
    component: str,
    ports: dict[str, int],
    extra_selector: dict[str, str] | None = None,
) -> k8s.KubeService:
    """A headless Service: stable per-pod DNS names, and every pod's /metrics for the
    ServiceMonitors (which select Services by the component label)."""
    return k8s.KubeService(
        scope,
        id,
        metadata=metadata(name, component),
        spec=k8s.ServiceSpec(
            cluster_ip="None",
            selector={**labels(component), **(extra_selector or {})},
            ports=[service_port(port_name, number) for port_name, number in ports.items()],
        ),
    )


def pod_template_json(template: k8s.PodTemplateSpec) -> dict:
    """A typed pod template as JSON, rendered through the typed PodTemplate construct: the
    same serialization (and field names) as every built-in kind."""
    scratch = cdk8s.Chart(cdk8s.App(), "render")
    return k8s.KubePodTemplate(scratch, "template", template=template).to_json()["template"]


def custom_resource_pod_template(struct: type, template: k8s.PodTemplateSpec):
    """The pod template as a custom resource's own generated type (see k8s/structs.py)."""
    return as_struct(struct, pod_template_json(template), "template")


def indexed_jobset_spec(job: str, nodes: int, template: k8s.PodTemplateSpec, **spec):
    """A JobSet of one Indexed Job of `nodes` pods (one per node, no pod retries: the JobSet
    restarts as a whole), with stable pod hostnames reachable before they are ready (torchrun
    rendezvous); `spec` adds JobSetSpec fields (failure and success policies)."""
    return js.JobSetSpec(
        network=js.JobSetSpecNetwork(enable_dns_hostnames=True, publish_not_ready_addresses=True),
        replicated_jobs=[
            js.JobSetSpecReplicatedJobs(
                name=job,
                replicas=1,
                template=js.JobSetSpecReplicatedJobsTemplate(
                    spec=js.JobSetSpecReplicatedJobsTemplateSpec(
                        parallelism=nodes,
                        completions=nodes,
                        completion_mode="Indexed",
                        backoff_limit=0,
                        template=custom_resource_pod_template(js.JobSetSpecReplicatedJobsTemplateSpecTemplate, template),
                    )
                ),
            )
        ],
        **spec,
    )
