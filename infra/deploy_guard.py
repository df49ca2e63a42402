"""Refuse a deploy that would change a GPU pool while it has nodes: `make deploy ENV=NAME`.

The GPU node groups are created empty and sized by `make scale` (infra/scale.py), so their
template says 0/0/max. CloudFormation applies a changed scaling config whole: a redeploy that
touches it (max_size) sends desiredSize 0 and drains the pool; a changed launch template or node
group property rolls or replaces every node. So before `cdk deploy`, this compares each GPU
pool's node group, launch template and placement group in the synthesized template (cdk.out)
with the deployed stack's, and refuses, with one line, while a changed pool has nodes. Scale it
to 0 (make scale NODES=0), deploy, and scale it up again.

`make deploy` then deploys exactly the checked assembly (`cdk deploy --app cdk.out`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import boto3
from botocore.exceptions import BotoCoreError, ClientError

from spec.environment import GPU_POOLS, POOL_LABEL, STACK_PREFIX, EnvironmentFileError
from estimate.checks import load_environment

REPO = Path(__file__).resolve().parent.parent


class DeployRefused(Exception):
    """One line: which pool, what would change, what to do."""


def gpu_pool_resources(template: dict) -> dict[str, dict[str, dict]]:
    """pool -> {logical id: (type, properties)} of its node group, launch template and placement group."""
    resources = template.get("Resources", {})
    pools: dict[str, dict[str, dict]] = {}
    for logical, resource in resources.items():
        if resource["Type"] != "AWS::EKS::Nodegroup":
            continue
        pool = resource["Properties"].get("Labels", {}).get(POOL_LABEL)
        if pool not in GPU_POOLS:
            continue
        found = {logical: resource}
        launch_template = resource["Properties"].get("LaunchTemplate", {}).get("Id", {}).get("Ref")
        if launch_template in resources:
            found[launch_template] = resources[launch_template]
            group = resources[launch_template]["Properties"]["LaunchTemplateData"].get("Placement", {}).get("GroupName", {})
            if isinstance(group, dict) and group.get("Ref") in resources:
                found[group["Ref"]] = resources[group["Ref"]]
        pools[pool] = {key: {"Type": r["Type"], "Properties": r.get("Properties", {})} for key, r in found.items()}
    return pools


# Tagging a node group or placement group does not touch its instances.
UNTOUCHING_PROPERTIES = frozenset({"Tags"})


def changes(deployed: dict[str, dict], new: dict[str, dict]) -> list[str]:
    """What differs, named by resource type and top-level property."""
    found = []
    for logical in sorted(set(deployed) | set(new)):
        before, after = deployed.get(logical), new.get(logical)
        if before is None or after is None:
            found.append(f"{(before or after)['Type']} {'added' if before is None else 'removed'}")
            continue
        kind = after["Type"].rsplit("::", 1)[-1]
        old_props, new_props = before["Properties"], after["Properties"]
        if kind == "LaunchTemplate":
            old_props, new_props = old_props.get("LaunchTemplateData", {}), new_props.get("LaunchTemplateData", {})
        for key in sorted((set(old_props) | set(new_props)) - UNTOUCHING_PROPERTIES):
            if old_props.get(key) != new_props.get(key):
                found.append(f"{kind}.{key}")
    return found


def check(environment_name: str, new_template: dict, cloudformation, eks) -> list[str]:
    """Lines describing the GPU pools this deploy changes (none running); raises DeployRefused
    for a changed pool that has nodes."""
    stack = STACK_PREFIX + environment_name
    try:
        described = cloudformation.describe_stacks(StackName=stack)["Stacks"][0]
    except ClientError as error:
        if "does not exist" in str(error):
            return []  # first deploy: nothing runs yet
        raise
    body = cloudformation.get_template(StackName=stack, TemplateStage="Original")["TemplateBody"]
    deployed = gpu_pool_resources(json.loads(body) if isinstance(body, str) else body)
    new = gpu_pool_resources(new_template)
    outputs = {o["OutputKey"]: o["OutputValue"] for o in described.get("Outputs", [])}
    cluster = outputs.get("ClusterName")
    notes = []
    for pool in GPU_POOLS:
        changed = changes(deployed.get(pool, {}), new.get(pool, {}))
        if not changed:
            continue
        nodegroup = outputs.get(f"{pool.title()}NodegroupName")
        running = 0
        if cluster and nodegroup:
            running = eks.describe_nodegroup(clusterName=cluster, nodegroupName=nodegroup)["nodegroup"]["scalingConfig"].get(
                "desiredSize", 0
            )
        if running:
            raise DeployRefused(
                f"pools.{pool}: this deploy changes its node group ({', '.join(changed)}) while it runs {running} nodes, "
                f"which CloudFormation would drain or replace: make scale ENV={environment_name} POOL={pool} NODES=0, "
                "deploy, then make scale again"
            )
        notes.append(f"pools.{pool}: changes ({', '.join(changed)}); the pool is at 0 nodes")
    return notes


def synthesized_template(assembly: Path, environment: str) -> dict:
    """The environment's stack template in the cloud assembly (`make infra` writes it)."""
    path = assembly / f"{STACK_PREFIX}{environment}.template.json"
    if not path.is_file():
        raise DeployRefused(f"{path} not found: synthesize first (make infra ENV={environment})")
    return json.loads(path.read_text())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m infra.deploy_guard", description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="default", help="environment name (environments/NAME.yaml)")
    parser.add_argument("--assembly", type=Path, default=REPO / "cdk.out", help="the synthesized cloud assembly")
    args = parser.parse_args(argv)
    try:
        environment = load_environment(args.env)
        session = boto3.Session(region_name=environment.region)
        notes = check(environment.name, synthesized_template(args.assembly, environment.name),
                      session.client("cloudformation"), session.client("eks"))
    except (EnvironmentFileError, DeployRefused) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except (BotoCoreError, ClientError) as error:
        print(f"error: AWS: {error}", file=sys.stderr)
        return 2
    for note in notes:
        print(note, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
