"""The sandbox pool: Deployment pods on the `cpu` pool that run untrusted programs (the `code`
verifier's, the code tool's) one at a time, behind a Service the verifiers and rollout workers
call (RL_SANDBOX_URL).

Each pod is its own boundary, since a program shares the pod with the server that ran it:
- no network: the NetworkPolicy admits only verifiers and rollout workers to the server's port
  and lets nothing out (not even DNS);
- no credentials: no service-account token is mounted, the pod's identity has no AWS role (no
  pod has one), `enableServiceLinks` is off so no Service addresses arrive as variables, and the
  program gets an environment of its HOME and TMPDIR only (payload/sandbox/jail.py);
- non-root (UID 10001), no capabilities, no privilege escalation, RuntimeDefault seccomp, a
  read-only root file system; the places a program can write (a size-limited emptyDir at /tmp,
  the runtime's /dev/shm, the kubelet's termination-message file) are the server's scratch,
  reset after every run, with the System V IPC objects a run made (SANDBOX_SCRATCH);
- CPU and memory limits on the pod, and per program rlimits (CPU seconds, address space,
  processes, file size, open files) and a wall-clock limit from the server's flags.
A program that kills its server takes down one pod, which the kubelet restarts; the caller's
request fails and the group is charged an attempt, never scored.

No gVisor RuntimeClass yet: the CPU node group would have to install runsc and its containerd
shim at boot from gVisor's release bucket (no AL2023 package exists), and this repository could
not verify a pinned release and its checksums offline; the kernel boundary is the host kernel
behind seccomp until that lands (see the issue note).
"""

from __future__ import annotations

import cdk8s
from cdk8s_plus_33 import k8s
from constructs import Construct

from k8s.context import Context
from k8s.netpol import allow, from_components
from cluster.placement import Placement
from k8s.pods import (
    NAMESPACE,
    PRIORITY_ROLLOUT,
    ROLLOUT_WORKER,
    SANDBOX,
    SANDBOX_PORT,
    VERIFIER,
    http_probe,
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

# Per program (payload/sandbox/cli.py flags). The process limit counts the server's own threads
# too (the program runs as the pod's user), hence the margin over what a program needs.
SANDBOX_LIMITS = ("--wall-s", "10", "--cpu-s", "5", "--memory-mib", "512", "--processes", "128")
# Every place of the pod a program can write, reset by the server after each run (the jail's
# `scratch`): the /tmp emptyDir (the first: each run's directory, its HOME and TMPDIR, is made
# there), the runtime's /dev/shm, and the kubelet's termination-message file (mode 0666, so
# writable by any user, and kept for the container's life). The root file system is read-only.
SANDBOX_SCRATCH = ("/tmp", "/dev/shm", "/dev/termination-log")
SANDBOX_CPU = "1"
SANDBOX_MEMORY = "1Gi"


def sandbox_url() -> str:
    return f"http://{SANDBOX}.{NAMESPACE}.svc:{SANDBOX_PORT}"


def sandbox_command(scratch: tuple[str, ...] = SANDBOX_SCRATCH) -> list[str]:
    """The pods' command; `scratch` other than the pod's is for running it elsewhere (a test)."""
    places = [arg for path in scratch for arg in ("--scratch", path)]
    return ["python", "-m", "payload", "sandbox", "--isolation", "pod", "--port", str(SANDBOX_PORT), *SANDBOX_LIMITS,
            *places]


class SandboxChart(cdk8s.Chart):
    def __init__(self, scope: Construct, id: str, ctx: Context) -> None:
        super().__init__(scope, id, namespace=NAMESPACE)
        service_account(self, SANDBOX)
        quantity = k8s.Quantity.from_string
        container = k8s.Container(
            name=SANDBOX,
            image=ctx.job.images.payload,
            command=sandbox_command(),
            ports=[port("sandbox", SANDBOX_PORT)],
            resources=k8s.ResourceRequirements(
                requests={"cpu": quantity(SANDBOX_CPU), "memory": quantity(SANDBOX_MEMORY)},
                limits={"cpu": quantity(SANDBOX_CPU), "memory": quantity(SANDBOX_MEMORY)},
            ),
            security_context=restricted_security(),
            volume_mounts=[tmp_mount()],
            readiness_probe=http_probe("/healthz", "sandbox", period=10, failures=3),
            liveness_probe=http_probe("/healthz", "sandbox", period=30, failures=4),
        )
        template = pod_template(
            SANDBOX,
            ctx.job_digest,
            Placement.of(ctx.environment, "cpu"),
            [container],
            service_account=SANDBOX,
            priority_class=PRIORITY_ROLLOUT,
            volumes=[tmp_volume("1Gi")],
            service_links=False,
        )
        k8s.KubeDeployment(
            self,
            SANDBOX,
            metadata=metadata(SANDBOX),
            spec=k8s.DeploymentSpec(replicas=ctx.job.rollout.sandboxes, selector=selector(SANDBOX), template=template),
        )
        k8s.KubeService(
            self,
            f"{SANDBOX}-service",
            metadata=metadata(SANDBOX),
            spec=k8s.ServiceSpec(selector={"app.kubernetes.io/name": SANDBOX},
                                 ports=[service_port("sandbox", SANDBOX_PORT)]),
        )
        # No egress rule, and the namespace's default deny holds (no DNS either: charts/base.py).
        allow(self, SANDBOX, ingress=[from_components(VERIFIER, ROLLOUT_WORKER, port_numbers=(SANDBOX_PORT,))])
