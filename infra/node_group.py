"""CPU, memory and system node groups: managed node groups in the node zone, each with a launch
template for what the node group API cannot set: IMDSv2 only and an encrypted gp3 root volume.

Instance metadata: tokens required everywhere. Hop limit 1 on the cpu and memory pools (and on
the GPU pools: infra/gpu_node_group.py): a pod outside the host network (rollout workers and
verifiers handle model output) cannot reach IMDS and so cannot take the node role's credentials; the daemons there that read it (VPC CNI,
kube-proxy, Pod Identity agent, FSx CSI node) use the host network, and the EBS CSI node plugin
falls back to the Kubernetes API for its instance facts. Hop limit 2 on the system pool,
whose controllers (EBS CSI controller, add-on operators) may read instance metadata from pods.
"""

from __future__ import annotations

from aws_cdk import aws_ec2 as ec2, aws_eks_v2 as eks, aws_iam as iam
from constructs import Construct

from spec.environment import POOL_LABEL, CapacityType, NodePool

CAPACITY_TYPES = {
    CapacityType.ON_DEMAND: eks.CapacityType.ON_DEMAND,
    CapacityType.SPOT: eks.CapacityType.SPOT,
    CapacityType.CAPACITY_BLOCK: eks.CapacityType.CAPACITY_BLOCK,
}
IMDS_HOP_LIMIT = {"cpu": 1, "memory": 1, "system": 2}
ROOT_DEVICE = "/dev/xvda"  # AL2023's root volume
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
        self.launch_template = ec2.CfnLaunchTemplate(
            self,
            "LaunchTemplate",
            launch_template_data=ec2.CfnLaunchTemplate.LaunchTemplateDataProperty(
                metadata_options=ec2.CfnLaunchTemplate.MetadataOptionsProperty(
                    http_tokens="required", http_endpoint="enabled", http_put_response_hop_limit=IMDS_HOP_LIMIT[name]
                ),
                block_device_mappings=[
                    ec2.CfnLaunchTemplate.BlockDeviceMappingProperty(
                        device_name=ROOT_DEVICE,
                        ebs=ec2.CfnLaunchTemplate.EbsProperty(
                            volume_size=pool.root_volume_gib, volume_type="gp3", encrypted=True, delete_on_termination=True
                        ),
                    )
                ],
            ),
        )
        self.nodegroup = eks.Nodegroup(
            self,
            "Nodegroup",
            cluster=cluster,
            ami_type=eks.NodegroupAmiType.AL2023_X86_64_STANDARD,
            instance_types=[ec2.InstanceType(pool.instance_type)],
            # The root volume's size is the launch template's (a node group takes one or the other).
            launch_template_spec=eks.LaunchTemplateSpec(
                id=self.launch_template.ref, version=self.launch_template.attr_latest_version_number
            ),
            subnets=subnets,
            node_role=node_role,
            **pool_props(name, pool),
        )
