"""The opt-in acceptance set (dist/acceptance/): check the fabric before spending GPU-days.

`kubectl apply -f dist/` does not descend into dist/acceptance/; after the environment is up:

    kubectl apply --server-side -f dist/acceptance/
    kubectl -n rl logs -f jobset/accept-nccl            # and accept-deepep-*, accept-sglang

- accept-nccl: NCCL all-reduce across every train node (torchrun, as the trainer runs), failing
  below ACCEPT_NCCL_MIN_BUSBW_GBS of bus bandwidth at 1 GiB;
- accept-deepep-intranode / accept-deepep-internode: DeepEP v2's own ElasticBuffer test
  (tests/elastic/test_ep.py at the commit the image builds DeepEP from, copied into the image at
  build time: the namespace's egress allows no download) on one node, then across two (NVLink +
  EFA through NCCL GIN), through `python -m payload accept-deepep`: the trainer's EFA start-up
  check first, then the test, then its bandwidth figures;
- accept-sglang: generate, one distributed weight update and a version check against rollout
  server 0 (payload/accept/cli.py).
All of them run the payload image with the EFA start-up check, on the train pool.
"""

from __future__ import annotations

import cdk8s
from cdk8s_plus_33 import k8s
from constructs import Construct

from cluster.identities import TRAINER_SERVICE_ACCOUNT
from k8s.charts.efa import efa_env
from k8s.charts.rollout_servers import server_urls
from k8s.context import Context
from k8s.imports.io.x_k8s import jobset as js
from k8s.netpol import allow, from_components, to_components
from cluster.placement import GpuShare
from k8s.placement import gpu_resources
from k8s.pods import (
    ACCEPTANCE,
    NAMESPACE,
    PRIORITY_TRAINER,
    RENDEZVOUS_PORT,
    ROLLOUT_SERVER,
    env,
    field_env,
    fsx_mount,
    fsx_volume,
    gpu_security,
    indexed_jobset_spec,
    labels,
    payload_env,
    pod_template,
    shm_mount,
    shm_volume,
    tmp_mount,
    tmp_volume,
)

# p5en.48xlarge: 16 x 200 Gb/s EFA = 400 GB/s per node; healthy all-reduce across nodes at
# 1 GiB reaches ~300 GB/s of bus bandwidth or more, TCP sockets under 25 GB/s.
ACCEPT_NCCL_MIN_BUSBW_GBS = 300
# DeepEP's own tests run from the image: the Dockerfile copies tests/ of the commit it builds
# DeepEP from (DEEPEP_COMMIT) to payload.accept.cli.DEEPEP_TESTS, so the test matches the library.
DEEPEP_MASTER_PORT = 8361
JOB = "node"


def first_pod(name: str) -> str:
    return f"{name}-{JOB}-0-0.{name}"


class AcceptanceChart(cdk8s.Chart):
    def __init__(self, scope: Construct, id: str, ctx: Context) -> None:
        super().__init__(scope, id, namespace=NAMESPACE)
        layout = ctx.trainer
        gpus = layout.share.gpus
        self.ctx = ctx
        self.jobset("accept-nccl", layout.nodes, gpus, [
            "torchrun", f"--nnodes={layout.nodes}", f"--nproc-per-node={gpus}", "--rdzv-backend=c10d",
            f"--rdzv-endpoint={first_pod('accept-nccl')}:{RENDEZVOUS_PORT}", "--rdzv-id=accept-nccl",
            "-m", "payload", "accept-nccl", "--min-busbw-gbs", str(ACCEPT_NCCL_MIN_BUSBW_GBS),
        ])  # fmt: skip
        for name, nodes in (("accept-deepep-intranode", 1), ("accept-deepep-internode", 2)):
            self.jobset(name, nodes, gpus, [
                "python", "-m", "payload", "accept-deepep", "--num-processes", str(gpus),
            ], deepep_env=[
                env("MASTER_ADDR", first_pod(name)), env("MASTER_PORT", str(DEEPEP_MASTER_PORT)),
                env("WORLD_SIZE", str(nodes)),
                field_env("RANK", "metadata.annotations['batch.kubernetes.io/job-completion-index']"),
            ])  # fmt: skip
        # One GPU hosts the weight-update group, as trainer rank 0 does; every GPU of the
        # replica (its tensor-parallel size) joins it.
        self.jobset("accept-sglang", 1, 1, [
            "python", "-m", "payload", "accept-sglang", "--url", server_urls(1)[0],
            "--ranks-per-server", str(ctx.rollout.tensor_parallel),
        ])  # fmt: skip
        allow(
            self,
            ACCEPTANCE,
            # Ranks reach each other on any port (c10d store, NCCL bootstrap); the rollout
            # server joins the smoke test's weight-update group.
            ingress=[from_components(ACCEPTANCE), from_components(ROLLOUT_SERVER)],
            egress=[to_components(ACCEPTANCE), to_components(ROLLOUT_SERVER)],
        )

    def jobset(self, name: str, nodes: int, gpus: int, command: list[str], deepep_env=()) -> None:
        ctx = self.ctx
        placement = ctx.trainer.share.placement
        # DeepEP across nodes rides NCCL GIN (gdrdrv, the GIN driver checked); inside one node it
        # runs with GIN off, as the trainer's own groups there do (spec.layout.deepep_needs_gin).
        gin = bool(deepep_env) and nodes > 1
        container = k8s.Container(
            name=name,
            image=ctx.job.images.payload,
            command=command,
            env=[*payload_env(), *efa_env(deepep=gin), *deepep_env,
                 *([env("EP_DISABLE_GIN", "1")] if deepep_env and not gin else [])],
            resources=gpu_resources(GpuShare(placement, gpus)),
            security_context=gpu_security(read_only_root=True),
            volume_mounts=[fsx_mount(read_only=True), shm_mount(), tmp_mount()],
        )
        template = pod_template(
            ACCEPTANCE, ctx.job_digest, placement, [container], service_account=TRAINER_SERVICE_ACCOUNT,
            priority_class=PRIORITY_TRAINER, volumes=[fsx_volume(), shm_volume("64Gi"), tmp_volume()],
            restart_policy="Never", needs_gdrdrv=gin,
        )
        js.JobSet(
            self,
            name,
            metadata=cdk8s.ApiObjectMetadata(name=name, labels=labels(ACCEPTANCE)),
            spec=indexed_jobset_spec(JOB, nodes, template),
        )
