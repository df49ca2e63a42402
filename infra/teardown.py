"""`make teardown ENV=name`: delete an environment, and say what outlives it and what it costs.

What the Makefile's `teardown` target runs, in order (each step stops the rest on failure):

1. `python -m infra.teardown check`: the stack exists and both GPU pools are at 0 nodes. A
   teardown is a deliberate act: scaling the pools to 0 (`make scale ... NODES=0`) first stops
   the job on purpose, and a wrong ENV= on a running 48-node cluster stops here.
2. `kubectl get pv -o json`: the EBS volumes the cluster's claims created (the Redis buffer's,
   the tracking database's, Prometheus'). Their storage classes keep volumes (`Retain`,
   k8s/charts/base.py, infra/addons.py), and nothing deletes them once the cluster is gone.
3. `python -m infra.teardown retained`: every resource that outlives the stack, read from the
   synthesized template (DeletionPolicy Retain: the FSx file system, both buckets, the ECR
   repository and the KMS keys: infra/storage.py, and the EKS secrets' key, infra/cluster.py) with its id
   from CloudFormation, and those
   volumes; with what each costs a month until deleted and the command that deletes it, in the
   order that works (KMS keys last: they decrypt the rest). Written to `teardown-<env>.txt`,
   since the stack's outputs go with it.
4. `kubectl delete namespace rl`: the job's pods stop writing, and no workload object (Kueue,
   KEDA, LeaderWorkerSet) is left for the add-ons' deletion to wait on.
5. `cdk destroy --app cdk.out MoeRl-<env>`, which asks before deleting: `make teardown` is the
   one way in, as `make deploy` is for deploys (infra/deploy_guard.py).

Prices are US East (N. Virginia) list prices when this was written (the services' pricing pages);
other regions differ by tens of percent. They are what a retained resource keeps costing, not
a bill: S3 and ECR are billed by what they hold, which only you know.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from spec.environment import GPU_POOLS, Environment, EnvironmentFileError
from estimate.checks import load_environment
from infra.deploy_guard import DeployRefused, synthesized_template

REPO = Path(__file__).resolve().parent.parent

# US East (N. Virginia), per month. FSx for Lustre PERSISTENT_2 SSD storage per GB by throughput
# tier (MB/s per TiB), which includes the throughput; S3 Standard (first 50 TB), ECR storage and
# EBS gp3 per GB; a KMS customer managed key (each of its first two yearly rotations adds $1).
FSX_USD_PER_GB_MONTH = {125: 0.145, 250: 0.210, 500: 0.340, 1000: 0.600}
S3_USD_PER_GB_MONTH = 0.023
ECR_USD_PER_GB_MONTH = 0.10
GP3_USD_PER_GB_MONTH = 0.08
KMS_USD_PER_KEY_MONTH = 1.0
# The shortest wait KMS allows before it deletes a key (7 to 30 days).
KMS_PENDING_DAYS = 7
GIB = 2 ** 30


class TeardownRefused(Exception):
    """One line: why not, and what to do."""


@dataclass(frozen=True)
class Retained:
    kind: str  # what it is, in words
    id: str
    monthly: str  # what it costs a month until deleted
    delete: str  # the command that deletes it
    order: int  # deletion order: lower first


def retained_in_template(template: dict) -> dict[str, str]:
    """logical id -> resource type of every resource CloudFormation leaves behind on delete."""
    return {logical: resource["Type"] for logical, resource in template.get("Resources", {}).items()
            if resource.get("DeletionPolicy") == "Retain"}


def stack_resources(cloudformation, stack: str) -> dict[str, str]:
    """logical id -> physical id of the deployed stack's resources."""
    found = {}
    for page in cloudformation.get_paginator("list_stack_resources").paginate(StackName=stack):
        for resource in page["StackResourceSummaries"]:
            if resource.get("PhysicalResourceId"):
                found[resource["LogicalResourceId"]] = resource["PhysicalResourceId"]
    return found


def check(environment: Environment, cloudformation, eks) -> None:
    """TeardownRefused unless the stack exists and both GPU pools are at 0 nodes."""
    from botocore.exceptions import ClientError

    stack = environment.stack_name
    try:
        described = cloudformation.describe_stacks(StackName=stack)["Stacks"][0]
    except ClientError as error:
        if "does not exist" in str(error):
            raise TeardownRefused(f"stack {stack} does not exist in {environment.region}: nothing to tear down") from None
        raise
    outputs = {o["OutputKey"]: o["OutputValue"] for o in described.get("Outputs", [])}
    for pool in GPU_POOLS:
        nodegroup = outputs.get(f"{pool.title()}NodegroupName")
        if not nodegroup:
            continue
        config = eks.describe_nodegroup(clusterName=outputs["ClusterName"], nodegroupName=nodegroup)["nodegroup"]["scalingConfig"]
        if config.get("desiredSize", 0):
            raise TeardownRefused(
                f"pools.{pool} runs {config['desiredSize']} nodes: stop the job first (kubectl delete -f dist/), then "
                f"make scale ENV={environment.name} POOL={pool} NODES=0, and make teardown again"
            )


def ebs_volumes(persistent_volumes: dict) -> list[tuple[str, str, int]]:
    """(volume id, namespace/claim, GiB) of the EBS CSI volumes in `kubectl get pv -o json`."""
    found = []
    for pv in persistent_volumes.get("items", []):
        spec = pv.get("spec", {})
        csi = spec.get("csi") or {}
        if csi.get("driver") != "ebs.csi.aws.com":
            continue
        claim = spec.get("claimRef") or {}
        size = spec.get("capacity", {}).get("storage", "0Gi")
        gib = int(size[:-2]) if size.endswith("Gi") else int(size[:-2]) * 1024 if size.endswith("Ti") else 0
        found.append((csi["volumeHandle"], f"{claim.get('namespace', '?')}/{claim.get('name', '?')}", gib))
    return found


def retained(environment: Environment, template: dict, physical: dict[str, str],
             volumes: list[tuple[str, str, int]]) -> list[Retained]:
    """What outlives `cdk destroy`, with costs and delete commands, in deletion order."""
    region = f"--region {environment.region}"
    out = []
    for logical, kind in sorted(retained_in_template(template).items()):
        ident = physical.get(logical, f"<{logical}: not in the deployed stack>")
        if kind == "AWS::FSx::FileSystem":
            storage = environment.storage
            rate = FSX_USD_PER_GB_MONTH[storage.fsx_throughput_mb_s_per_tib]
            gb = storage.fsx_storage_gib * GIB / 1e9
            out.append(Retained(
                f"FSx for Lustre file system ({storage.fsx_storage_gib} GiB, {storage.fsx_throughput_mb_s_per_tib} MB/s/TiB)",
                ident, f"${gb * rate:,.0f} ({gb:,.0f} GB x ${rate}/GB)",
                f"aws fsx delete-file-system {region} --file-system-id {ident}   # first: the newest checkpoint "
                "is in s3://<bucket>/checkpoints/ (the export runs in the background)", 1))
        elif kind == "AWS::S3::Bucket":
            out.append(Retained(
                "S3 bucket (versioned: every version and delete marker goes)", ident,
                f"${S3_USD_PER_GB_MONTH}/GB held (models, datasets, checkpoints, MLflow artifacts, access logs)",
                f"python -c \"import boto3; b = boto3.resource('s3', region_name='{environment.region}').Bucket('{ident}'); "
                "b.object_versions.delete(); b.delete()\"", 2))
        elif kind == "AWS::ECR::Repository":
            out.append(Retained(
                "ECR repository (payload images)", ident, f"${ECR_USD_PER_GB_MONTH}/GB of images held",
                f"aws ecr delete-repository {region} --force --repository-name {ident}", 3))
        elif kind == "AWS::KMS::Key":
            out.append(Retained(
                "KMS key (customer managed)", ident, f"${KMS_USD_PER_KEY_MONTH:.0f} (+$1 after each of its first two rotations)",
                f"aws kms schedule-key-deletion {region} --pending-window-in-days {KMS_PENDING_DAYS} --key-id {ident}"
                "   # last: what it encrypted is unreadable once it is gone", 9))
        else:
            out.append(Retained(kind, ident, "see its pricing page", f"aws cloudformation: delete {kind} {ident} by hand", 8))
    for volume, claim, gib in volumes:
        out.append(Retained(
            f"EBS gp3 volume of claim {claim} ({gib} GiB; its storage class keeps it)", volume,
            f"${gib * GIB / 1e9 * GP3_USD_PER_GB_MONTH:,.2f}", f"aws ec2 delete-volume {region} --volume-id {volume}", 0))
    return sorted(out, key=lambda r: r.order)


def report(environment: Environment, resources: list[Retained]) -> str:
    lines = [f"Retained after make teardown ENV={environment.name} (stack {environment.stack_name}, {environment.region}): "
             "billed until deleted. Delete them in this order:", ""]
    for r in resources:
        lines += [f"- {r.kind}: {r.id}", f"  costs {r.monthly} a month", f"  {r.delete}"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m infra.teardown", description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("check", "retained"), help="check: may this environment be torn down; "
                        "retained: write what outlives it")
    parser.add_argument("--env", default="default", help="environment name (environments/NAME.yaml)")
    parser.add_argument("--assembly", type=Path, default=REPO / "cdk.out", help="the synthesized cloud assembly")
    parser.add_argument("--volumes", type=Path, help="`kubectl get pv -o json` of the cluster (retained)")
    parser.add_argument("--out", type=Path, help="where the list goes (default: teardown-<env>.txt)")
    args = parser.parse_args(argv)
    import boto3
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        environment = load_environment(args.env)
        session = boto3.Session(region_name=environment.region)
        cloudformation = session.client("cloudformation")
        if args.step == "check":
            check(environment, cloudformation, session.client("eks"))
            return 0
        template = synthesized_template(args.assembly, environment.name)
        volumes = ebs_volumes(json.loads(args.volumes.read_text())) if args.volumes else []
        resources = retained(environment, template, stack_resources(cloudformation, environment.stack_name), volumes)
    except (EnvironmentFileError, TeardownRefused, DeployRefused) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except (BotoCoreError, ClientError) as error:
        print(f"error: AWS: {error}", file=sys.stderr)
        return 2
    text = report(environment, resources)
    out = args.out or REPO / f"teardown-{environment.name}.txt"
    out.write_text(text)
    print(text + f"(written to {out.name})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
