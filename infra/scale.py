"""Size a GPU pool: `make scale ENV=NAME POOL=train|rollout [NODES=N] [TIMEOUT_MINUTES=M]`.

The stack creates GPU node groups empty and leaves their size to this command (infra/capacity.py,
infra/gpu_node_group.py). It sets a pool to its environment file's min/desired/max sizes (or
NODES), then returns only when that many of the node group's nodes are Ready in Kubernetes, or
fails with the reason AWS recorded:
- the node group update failed (EKS `DescribeUpdate` errors);
- Auto Scaling could not launch an instance since the update (`DescribeScalingActivities`: a
  Failed activity's status message names InsufficientInstanceCapacity, a vCPU quota
  (VcpuLimitExceeded), a Capacity Block outside its window, ...);
- the node group went DEGRADED (its health issues, e.g. AsgInstanceLaunchFailures).
botocore's NodegroupActive waiter is not used: a scaling update returns the group to ACTIVE as
soon as the Auto Scaling group's desired count is set, before any instance exists, and it does
not accept DEGRADED, so a capacity miss would either pass unseen or wait out its 40 minutes.

The wait is bounded: 30 minutes by default (TIMEOUT_MINUTES). A p5en.48xlarge takes ~10 minutes
from launch to a Ready node (boot, NVIDIA and EFA drivers, RAID0 of 8 NVMe disks, nodeadm join);
a capacity or quota miss shows up as a failed scaling activity within minutes. On a miss the node
group keeps its desired size and Auto Scaling keeps retrying: NODES=0 stops it.

Autoscaled pools (`autoscale: true`, the rollout pool: infra/node_autoscaler.py): the Cluster
Autoscaler owns the desired size, so this command sets the bounds it scales within instead of a
size it would undo: min/max from the environment file, or NODES=N as the ceiling (min_size or N,
whichever is lower, up to N). The desired size only moves into the new bounds if it lies outside
them. It then waits for the floor's nodes to be Ready and for any above the ceiling to leave.
NODES=0 empties the pool: EKS keeps a max of at least 1, so the bounds are 0..1 and the
autoscaler adds that one node only while a rollout server is pending (delete or pause the
rollout servers first, README "Rollout node autoscaling").

Capacity Block pools: EC2 launches instances only while the block is active, and the block's
instances are reclaimed at its end, so scaling up checks that the block is active and prints
when it ends: scale back to 0 (NODES=0) at least 30 minutes before that to drain the pods.

Names come from cdk-outputs.json (`cdk deploy --outputs-file`); AWS credentials from the usual
chain; Kubernetes access through the caller's EKS access entry (a bearer token presigned from
STS GetCallerIdentity, as `aws eks get-token` makes it).
"""

from __future__ import annotations

import argparse
import base64
import json
import ssl
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Callable

import boto3
from botocore.exceptions import BotoCoreError, ClientError

from spec.environment import GPU_POOLS, OUTPUTS_FILE, STACK_PREFIX, CapacityType, EnvironmentFileError, NodePool
from estimate.checks import load_environment
from infra.capacity import BLOCK_END_ACTION, block_end_plan, schedule_scale_to_zero, stop_margin_s
from payload.train.deadline import STOP_AT_ENV
from cluster.identities import CAPACITY_BLOCK_CONFIG_MAP, WORKLOAD_NAMESPACE

REPO = Path(__file__).resolve().parent.parent

DEFAULT_TIMEOUT_MINUTES = 30
POLL_SECONDS = 20
# The label EKS puts on every node of a managed node group.
NODEGROUP_LABEL = "eks.amazonaws.com/nodegroup"
# Auto Scaling activity states that mean an instance was not launched.
FAILED_ACTIVITIES = ("Failed", "Cancelled")


class ScaleError(Exception):
    """A user mistake, a failed AWS call or what AWS recorded against the scaling: one line, exit 2."""


def nodegroup_output(pool: str) -> str:
    return f"{pool.title()}NodegroupName"


def read_names(outputs_path: Path, environment_name: str, pool: str) -> tuple[str, str]:
    """(cluster, node group) for `pool` from the deploy outputs."""
    stack = STACK_PREFIX + environment_name
    if not outputs_path.is_file():
        raise ScaleError(
            f"{outputs_path.name} not found: deploy first (make deploy ENV={environment_name}, which writes "
            f"{OUTPUTS_FILE})"
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


@dataclass(frozen=True)
class Target:
    """The node group's new scaling config, and the node counts that mean it is reached."""

    config: dict[str, int]
    ready_at_least: int
    joined_at_most: int


def check_nodes(pool: NodePool, nodes: int | None) -> None:
    if nodes is not None and not 0 <= nodes <= pool.max_size:
        raise ScaleError(f"NODES={nodes}: must be between 0 and the pool's max_size {pool.max_size}")


def fixed_target(pool: NodePool, nodes: int | None) -> Target:
    """A pool `make scale` sizes: exactly `nodes`, or the file's desired_size."""
    check_nodes(pool, nodes)
    desired = pool.desired_size if nodes is None else nodes
    minimum = pool.min_size if nodes is None else min(pool.min_size, nodes)
    return Target({"minSize": minimum, "maxSize": pool.max_size, "desiredSize": desired}, desired, desired)


def autoscaled_target(pool: NodePool, nodes: int | None, current_desired: int) -> Target:
    """A pool the Cluster Autoscaler sizes: new bounds, the autoscaler's desired size kept inside them."""
    check_nodes(pool, nodes)
    if nodes == 0:
        # EKS refuses a maxSize below 1 (UpdateNodegroupConfig); nothing pending, nothing added.
        return Target({"minSize": 0, "maxSize": 1, "desiredSize": 0}, 0, 0)
    ceiling = pool.max_size if nodes is None else nodes
    floor = min(pool.min_size, ceiling)
    desired = max(floor, min(current_desired, ceiling))
    return Target({"minSize": floor, "maxSize": ceiling, "desiredSize": desired}, floor, ceiling)


def check_capacity_block(ec2, pool_name: str, reservation_id: str) -> str:
    """The block's end time; refuses a block that is not active (EC2 launches nothing outside it)."""
    reservations = ec2.describe_capacity_reservations(CapacityReservationIds=[reservation_id])["CapacityReservations"]
    if not reservations:
        raise ScaleError(f"pools.{pool_name}: Capacity Block {reservation_id} not found in this account and region")
    block = reservations[0]
    if block["State"] != "active":
        start = block.get("StartDate")
        raise ScaleError(
            f"pools.{pool_name}: Capacity Block {reservation_id} is {block['State']} "
            f"(starts {start.isoformat() if start else 'unknown'}); EC2 launches its instances only while it is active"
        )
    end = block.get("EndDate")
    return end.isoformat() if end else "unknown"


def block_end_of(environment, end: datetime):
    """The block's wind-down (infra/capacity.py): its margin from the job's modelled checkpoint."""
    from estimate.checks import job_costs
    from estimate.costs import Timeouts

    costs = job_costs(environment)
    return block_end_plan(end, stop_margin_s(costs, Timeouts.from_costs(costs).grace_s))


def launch_failure(autoscaling, groups: list[str], since: datetime) -> str | None:
    """The status message of the newest Auto Scaling activity since `since` that launched nothing."""
    for group in groups:
        activities = autoscaling.describe_scaling_activities(AutoScalingGroupName=group, MaxRecords=20)["Activities"]
        for activity in activities:  # newest first
            if activity["StartTime"] >= since and activity["StatusCode"] in FAILED_ACTIVITIES:
                return (activity.get("StatusMessage") or activity.get("Description") or activity["StatusCode"]).strip()
    return None


class KubernetesNodes:
    """A node group's Nodes, read from the cluster's API server (GET /api/v1/nodes), and the one
    ConfigMap `make scale` writes there (a Capacity Block's stop time for the trainer)."""

    def __init__(self, endpoint: str, token: Callable[[], str], ca_data: str | None = None) -> None:
        self.endpoint = endpoint.rstrip("/")
        self.token = token
        self.context = ssl.create_default_context(cadata=base64.b64decode(ca_data).decode()) if ca_data else None

    def apply(self, path: str, manifest: dict) -> None:
        """Server-side apply of `manifest` at `path` (fieldManager rl-scale): created or updated,
        owning only the fields it sets."""
        query = urllib.parse.urlencode({"fieldManager": "rl-scale", "force": "true"})
        request = urllib.request.Request(
            f"{self.endpoint}{path}?{query}", data=json.dumps(manifest).encode(), method="PATCH",
            headers={"Authorization": f"Bearer {self.token()}", "Content-Type": "application/apply-patch+yaml"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30, context=self.context):
                pass
        except urllib.error.HTTPError as error:
            raise ScaleError(f"the cluster's API server answered HTTP {error.code} applying {path}") from None
        except (urllib.error.URLError, OSError) as error:
            raise ScaleError(f"cannot reach the cluster's API server at {self.endpoint}: {error}") from None

    def set_stop_at(self, namespace: str, name: str, stop_at: str) -> None:
        """The trainer's stop time as ConfigMap `name` in `namespace` (created with it where the
        manifests are not applied yet: the trainer's pods read it when they start)."""
        self.apply(f"/api/v1/namespaces/{namespace}", {"apiVersion": "v1", "kind": "Namespace",
                                                         "metadata": {"name": namespace}})
        self.apply(f"/api/v1/namespaces/{namespace}/configmaps/{name}", {
            "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": namespace},
            "data": {STOP_AT_ENV: stop_at}})

    def count(self, nodegroup: str) -> tuple[int, int]:
        """(Ready, all) nodes of `nodegroup`."""
        query = urllib.parse.urlencode({"labelSelector": f"{NODEGROUP_LABEL}={nodegroup}"})
        request = urllib.request.Request(
            f"{self.endpoint}/api/v1/nodes?{query}", headers={"Authorization": f"Bearer {self.token()}"}
        )
        try:
            with urllib.request.urlopen(request, timeout=30, context=self.context) as response:
                nodes = json.load(response)["items"]
        except urllib.error.HTTPError as error:
            if error.code in (401, 403):
                raise ScaleError(
                    f"the cluster's API server refused this principal (HTTP {error.code}): it needs an EKS access "
                    "entry (admin_principal_arns in the environment file)"
                ) from None
            raise ScaleError(f"the cluster's API server answered HTTP {error.code} listing nodes") from None
        except (urllib.error.URLError, OSError) as error:
            raise ScaleError(f"cannot reach the cluster's API server at {self.endpoint}: {error}") from None
        ready = sum(
            any(c["type"] == "Ready" and c["status"] == "True" for c in node.get("status", {}).get("conditions", []))
            for node in nodes
        )
        return ready, len(nodes)


def eks_token(session, cluster: str) -> str:
    """A Kubernetes bearer token for `cluster`: STS GetCallerIdentity presigned with the
    cluster name in x-k8s-aws-id (awscli's customizations/eks/get_token.py)."""
    sts = session.client("sts")

    def add_cluster_header(request, **_):
        request.headers["x-k8s-aws-id"] = cluster

    sts.meta.events.register("before-sign.sts.GetCallerIdentity", add_cluster_header)
    url = sts.generate_presigned_url("get_caller_identity", Params={}, ExpiresIn=60, HttpMethod="GET")
    return "k8s-aws-v1." + base64.urlsafe_b64encode(url.encode()).decode().rstrip("=")


@dataclass
class Scaler:
    """One pool's scaling: start it, then wait for Ready nodes or a recorded failure."""

    eks: object
    autoscaling: object
    nodes: KubernetesNodes
    cluster: str
    nodegroup: str
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    poll_seconds: float = POLL_SECONDS

    def desired_size(self) -> int:
        group = self.eks.describe_nodegroup(clusterName=self.cluster, nodegroupName=self.nodegroup)["nodegroup"]
        return group["scalingConfig"]["desiredSize"]

    def scaling_groups(self) -> list[str]:
        group = self.eks.describe_nodegroup(clusterName=self.cluster, nodegroupName=self.nodegroup)["nodegroup"]
        return [g["name"] for g in group.get("resources", {}).get("autoScalingGroups", [])]

    def start(self, config: dict[str, int]) -> dict:
        return self.eks.update_nodegroup_config(
            clusterName=self.cluster, nodegroupName=self.nodegroup, scalingConfig=config
        )["update"]

    def wait(self, update: dict, ready_at_least: int, joined_at_most: int, timeout_s: float) -> None:
        """Until the update succeeded with at least `ready_at_least` nodes Ready and at most
        `joined_at_most` joined (equal for a pool of a fixed size), or a recorded failure."""
        deadline = self.clock() + timeout_s
        while True:
            status = self.eks.describe_update(name=self.cluster, nodegroupName=self.nodegroup, updateId=update["id"])["update"]
            if status["status"] in ("Failed", "Cancelled"):
                errors = "; ".join(f"{e.get('errorCode')}: {e.get('errorMessage')}" for e in status.get("errors", []))
                raise ScaleError(f"node group {self.nodegroup}: EKS update {status['status'].lower()}: {errors or 'no reason given'}")
            group = self.eks.describe_nodegroup(clusterName=self.cluster, nodegroupName=self.nodegroup)["nodegroup"]
            scaling_groups = [g["name"] for g in group.get("resources", {}).get("autoScalingGroups", [])]
            failure = launch_failure(self.autoscaling, scaling_groups, update["createdAt"])
            if failure:
                raise ScaleError(
                    f"node group {self.nodegroup}: Auto Scaling could not launch an instance: {failure} "
                    "(it keeps retrying at this size; NODES=0 stops it)"
                )
            if group["status"] == "DEGRADED":
                issues = "; ".join(f"{i['code']}: {i['message']}" for i in group.get("health", {}).get("issues", []))
                raise ScaleError(f"node group {self.nodegroup} is DEGRADED: {issues or 'no health issue recorded'}")
            ready, joined = self.nodes.count(self.nodegroup)
            if status["status"] == "Successful" and ready >= ready_at_least and joined <= joined_at_most:
                return
            wanted = (f"{ready_at_least}" if ready_at_least == joined_at_most
                      else f"at least {ready_at_least} and at most {joined_at_most}")
            if self.clock() >= deadline:
                raise ScaleError(
                    f"node group {self.nodegroup}: {ready} of {wanted} nodes Ready ({joined} joined) after "
                    f"{timeout_s / 60:.0f} minutes; no launch failure recorded (TIMEOUT_MINUTES waits longer)"
                )
            print(f"{self.nodegroup}: {ready}/{wanted} nodes Ready ({joined} joined), EKS update {status['status']}",
                  file=sys.stderr, flush=True)
            self.sleep(self.poll_seconds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m infra.scale", description=__doc__.splitlines()[0])
    parser.add_argument("pool", choices=GPU_POOLS)
    parser.add_argument("--env", default="default", help="environment name (environments/NAME.yaml)")
    parser.add_argument("--nodes", type=int, help="desired nodes (default: the pool's desired_size)")
    parser.add_argument("--timeout-minutes", type=float, default=DEFAULT_TIMEOUT_MINUTES,
                        help=f"how long to wait for Ready nodes (default {DEFAULT_TIMEOUT_MINUTES})")
    parser.add_argument("--outputs", type=Path, default=REPO / OUTPUTS_FILE, help="cdk deploy --outputs-file")
    args = parser.parse_args(argv)
    try:
        if args.timeout_minutes <= 0:
            raise ScaleError(f"TIMEOUT_MINUTES={args.timeout_minutes:g}: must be positive")
        environment = load_environment(args.env)
        pool = getattr(environment.pools, args.pool)
        check_nodes(pool, args.nodes)  # before any AWS call
        cluster, nodegroup = read_names(args.outputs, environment.name, args.pool)
        scaler, ec2 = _aws_scaler(environment.region, cluster, nodegroup)
        if pool.autoscale:
            target = autoscaled_target(pool, args.nodes, scaler.desired_size())
        else:
            target = fixed_target(pool, args.nodes)
        config = target.config
        block_end = None
        if pool.capacity_type is CapacityType.CAPACITY_BLOCK and config["desiredSize"] > 0:
            end = check_capacity_block(ec2, args.pool, pool.capacity_reservation_id)
            block_end = block_end_of(environment, datetime.fromisoformat(end)) if end != "unknown" else None
            print(f"Capacity Block {pool.capacity_reservation_id} is active until {end}", file=sys.stderr)
        update = scaler.start(config)
        if pool.autoscale:
            print(f"{STACK_PREFIX}{environment.name}: {args.pool} autoscaled between {config['minSize']} and "
                  f"{config['maxSize'] if args.nodes != 0 else 0} nodes (now {config['desiredSize']}); waiting up to "
                  f"{args.timeout_minutes:g} minutes for the bounds to hold", file=sys.stderr, flush=True)
        else:
            print(f"{STACK_PREFIX}{environment.name}: {args.pool} -> {config['desiredSize']} nodes; waiting up to "
                  f"{args.timeout_minutes:g} minutes for them to be Ready", file=sys.stderr, flush=True)
        scaler.wait(update, target.ready_at_least, target.joined_at_most, args.timeout_minutes * 60)
        if block_end is not None:
            schedule_scale_to_zero(scaler.autoscaling, scaler.scaling_groups(), block_end)
            scaler.nodes.set_stop_at(WORKLOAD_NAMESPACE, CAPACITY_BLOCK_CONFIG_MAP, block_end.stop_at.isoformat())
            print(f"{args.pool}: scaled to 0 at {block_end.scale_to_zero_at.isoformat()} (Auto Scaling scheduled action "
                  f"{BLOCK_END_ACTION}); the trainer stops with a checkpoint at {STOP_AT_ENV}="
                  f"{block_end.stop_at.isoformat()} ({block_end.margin_s // 60} min ahead: estimate/costs.py; "
                  f"ConfigMap {WORKLOAD_NAMESPACE}/{CAPACITY_BLOCK_CONFIG_MAP}, read by trainer pods as they start)",
                  file=sys.stderr)
    except (EnvironmentFileError, ScaleError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except (BotoCoreError, ClientError) as error:  # no credentials, access denied, unknown node group
        print(f"error: AWS: {error}", file=sys.stderr)
        return 2
    if pool.autoscale:
        print(f"{args.pool}: node group {nodegroup} within {target.ready_at_least}..{target.joined_at_most} nodes; the "
              f"Cluster Autoscaler sizes it from here (kubectl get nodes -l rl.aws/pool={args.pool})", file=sys.stderr)
    else:
        print(f"{args.pool}: {config['desiredSize']} nodes Ready in node group {nodegroup} "
              f"(kubectl get nodes -l rl.aws/pool={args.pool})", file=sys.stderr)
    return 0


def _aws_scaler(region: str, cluster: str, nodegroup: str):
    """(Scaler, EC2 client) on the caller's AWS credentials."""
    session = boto3.Session(region_name=region)
    eks = session.client("eks")
    description = eks.describe_cluster(name=cluster)["cluster"]
    nodes = KubernetesNodes(
        description["endpoint"], lambda: eks_token(session, cluster), description["certificateAuthority"]["data"]
    )
    scaler = Scaler(eks=eks, autoscaling=session.client("autoscaling"), nodes=nodes, cluster=cluster, nodegroup=nodegroup)
    return scaler, session.client("ec2")


if __name__ == "__main__":
    sys.exit(main())
