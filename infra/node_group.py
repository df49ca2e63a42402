"""CPU, memory and system node groups: plain managed node groups in the node zone."""

from __future__ import annotations

from aws_cdk import aws_ec2 as ec2, aws_eks_v2 as eks, aws_iam as iam
from constructs import Construct

from infra.environment import POOL_LABEL, CapacityType, NodePool

CAPACITY_TYPES = {
    CapacityType.ON_DEMAND: eks.CapacityType.ON_DEMAND,
    CapacityType.SPOT: eks.CapacityType.SPOT,
    CapacityType.CAPACITY_BLOCK: eks.CapacityType.CAPACITY_BLOCK,
}
TAINT_EFFECTS = {
    "NoSchedule": eks.TaintEffect.NO_SCHEDULE,
    "PreferNoSchedule": eks.TaintEffect.PREFER_NO_SCHEDULE,
    "NoExecute": eks.TaintEffect.NO_EXECUTE,
}


def pool_props(name: str, pool: NodePool, device_labels: dict[str, str] | None = None, created_empty: bool = False) -> dict:
    """Node group properties every pool takes from its environment entry.

    No nodegroup_name: CloudFormation names the group, so a change that replaces it (instance
    type, capacity type, disk, subnets) creates the new group before deleting the old one
    instead of failing on a custom-named resource.
    """
    return dict(
        capacity_type=CAPACITY_TYPES[pool.capacity_type],
        min_size=0 if created_empty else pool.min_size,
        desired_size=0 if created_empty else pool.desired_size,
        max_size=pool.max_size,
        labels={POOL_LABEL: name, **(device_labels or {}), **pool.labels},
        taints=[eks.TaintSpec(key=t.key, value=t.value, effect=TAINT_EFFECTS[t.effect]) for t in pool.taints],
        enable_node_auto_repair=True,
    )


class NodeGroup(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        name: str,
        pool: NodePool,
        cluster: eks.Cluster,
        subnets: ec2.SubnetSelection,
        node_role: iam.IRole,
    ) -> None:
        super().__init__(scope, id)
        self.nodegroup = eks.Nodegroup(
            self,
            "Nodegroup",
            cluster=cluster,
            ami_type=eks.NodegroupAmiType.AL2023_X86_64_STANDARD,
            instance_types=[ec2.InstanceType(pool.instance_type)],
            disk_size=pool.root_volume_gib,
            subnets=subnets,
            node_role=node_role,
            **pool_props(name, pool),
        )
