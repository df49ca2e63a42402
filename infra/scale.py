"""Size a GPU pool: `make scale ENV=NAME POOL=train|rollout [NODES=N]`.

The stack creates GPU node groups empty (infra/capacity.py); this sets one to its
environment file's min/desired/max sizes (or NODES) with `aws eks update-nodegroup-config`
and waits until the node group is active again, printing progress. The cluster and node
group names come from cdk-outputs.json (`cdk deploy --outputs-file`).

Capacity Block pools: EC2 launches instances only while the block is active, and the block's
instances are reclaimed at its end, so scaling up checks that the block is active and prints
when it ends: scale back to 0 (NODES=0) at least 30 minutes before that to drain the pods.
Before a `cdk deploy` that changes a Capacity Block pool (AMI, launch template), scale it to 0:
EKS upgrades such a node group only at size 0.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from pathlib import Path

from infra.environment import GPU_POOLS, CapacityType, EnvironmentError, NodePool, load_environment
from k8s.outputs import OUTPUTS_FILE

STACK_PREFIX = "MoeRl-"

REPO = Path(__file__).resolve().parent.parent


class ScaleError(Exception):
    """A user mistake or a failed AWS call: one line, exit 2."""


def nodegroup_output(pool: str) -> str:
    return f"{pool.title()}NodegroupName"


def read_names(outputs_path: Path, environment_name: str, pool: str) -> tuple[str, str]:
    """(cluster, node group) for `pool` from the deploy outputs."""
    stack = STACK_PREFIX + environment_name
    if not outputs_path.is_file():
        raise ScaleError(
            f"{outputs_path.name} not found: deploy first (npx cdk deploy -c env={environment_name} "
            f"--outputs-file {OUTPUTS_FILE})"
        )
    try:
        values = json.loads(outputs_path.read_text()).get(stack)
    except (json.JSONDecodeError, AttributeError):
        raise ScaleError(f"{outputs_path.name}: not the JSON object `cdk deploy --outputs-file` writes") from None
    if not isinstance(values, dict):
        raise ScaleError(f"{outputs_path.name}: no outputs for {stack}; deploy environment {environment_name} first")
    key = nodegroup_output(pool)
    if not values.get("ClusterName") or not values.get(key):
        raise ScaleError(f"{outputs_path.name}: {stack} has no ClusterName/{key} output; redeploy the stack")
    return values["ClusterName"], values[key]


def scaling_config(pool: NodePool, nodes: int | None) -> dict[str, int]:
    if nodes is None:
        return {"minSize": pool.min_size, "maxSize": pool.max_size, "desiredSize": pool.desired_size}
    if not 0 <= nodes <= pool.max_size:
        raise ScaleError(f"NODES={nodes}: must be between 0 and the pool's max_size {pool.max_size}")
    return {"minSize": min(pool.min_size, nodes), "maxSize": pool.max_size, "desiredSize": nodes}


def update_command(region: str, cluster: str, nodegroup: str, config: dict[str, int]) -> list[str]:
    sizes = ",".join(f"{key}={value}" for key, value in config.items())
    return [
        "aws", "eks", "update-nodegroup-config", "--region", region, "--cluster-name", cluster,
        "--nodegroup-name", nodegroup, "--scaling-config", sizes,
    ]  # fmt: skip


def wait_command(region: str, cluster: str, nodegroup: str) -> list[str]:
    return ["aws", "eks", "wait", "nodegroup-active", "--region", region, "--cluster-name", cluster, "--nodegroup-name", nodegroup]


def health_command(region: str, cluster: str, nodegroup: str) -> list[str]:
    return [
        "aws", "eks", "describe-nodegroup", "--region", region, "--cluster-name", cluster, "--nodegroup-name", nodegroup,
        "--query", "nodegroup.health.issues[].[code,message]", "--output", "text",
    ]  # fmt: skip


def reservation_command(region: str, reservation: str) -> list[str]:
    return [
        "aws", "ec2", "describe-capacity-reservations", "--region", region, "--capacity-reservation-ids", reservation,
        "--query", "CapacityReservations[0].[State,StartDate,EndDate]", "--output", "text",
    ]  # fmt: skip


def _run(command: list[str]) -> str:
    print("+ " + shlex.join(command), file=sys.stderr, flush=True)
    try:
        result = subprocess.run(command, capture_output=True, text=True)
    except FileNotFoundError:
        raise ScaleError("the aws CLI is not installed (https://docs.aws.amazon.com/cli/)") from None
    if result.returncode:
        last = (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise ScaleError(f"{command[1]} {command[2]} failed: {last}")
    return result.stdout.strip()


def check_capacity_block(region: str, pool_name: str, pool: NodePool) -> None:
    state, start, end = (_run(reservation_command(region, pool.capacity_reservation_id)).split() + ["", "", ""])[:3]
    if state != "active":
        raise ScaleError(
            f"pools.{pool_name}: Capacity Block {pool.capacity_reservation_id} is {state or 'not found'} "
            f"(starts {start or 'unknown'}); EC2 launches its instances only while it is active"
        )
    print(f"Capacity Block {pool.capacity_reservation_id} is active until {end}: scale {pool_name} to 0 "
          f"(make scale POOL={pool_name} NODES=0) at least 30 minutes before then", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m infra.scale", description=__doc__.splitlines()[0])
    parser.add_argument("pool", choices=GPU_POOLS)
    parser.add_argument("--env", default="default", help="environment name (environments/NAME.yaml)")
    parser.add_argument("--nodes", type=int, help="desired nodes (default: the pool's desired_size)")
    parser.add_argument("--outputs", type=Path, default=REPO / OUTPUTS_FILE, help="cdk deploy --outputs-file")
    args = parser.parse_args(argv)
    try:
        environment = load_environment(args.env)
        pool = getattr(environment.pools, args.pool)
        config = scaling_config(pool, args.nodes)
        cluster, nodegroup = read_names(args.outputs, environment.name, args.pool)
        if pool.capacity_type is CapacityType.CAPACITY_BLOCK and config["desiredSize"] > 0:
            check_capacity_block(environment.region, args.pool, pool)
        _run(update_command(environment.region, cluster, nodegroup, config))
        print(f"{STACK_PREFIX}{environment.name}: {args.pool} -> {config['desiredSize']} nodes; waiting for the "
              "node group to be active (minutes)", file=sys.stderr, flush=True)
        _run(wait_command(environment.region, cluster, nodegroup))
        # A capacity or quota miss does not fail the update: EKS reports it as a health issue.
        issues = _run(health_command(environment.region, cluster, nodegroup))
        if issues and issues != "None":
            raise ScaleError(f"{args.pool}: node group {nodegroup} reports: {issues.splitlines()[0]}")
    except (EnvironmentError, ScaleError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"{args.pool}: node group {nodegroup} active at {config['desiredSize']} nodes "
          f"(kubectl get nodes -l rl.aws/pool={args.pool})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
