"""The rollout pool's node autoscaler: Cluster Autoscaler on the managed node group the stack builds.

Why Cluster Autoscaler and not Karpenter. The GPU pools are managed node groups on a launch
template this project owns (infra/gpu_node_group.py): one ENA plus efa-only interfaces on every
network card, a cluster placement group, a capacity reservation or Capacity Block, the gdrdrv and
huge-page user data, node auto repair, `make scale` and `make deploy`'s guard. Cluster Autoscaler
only moves the desired size of that group's Auto Scaling group, so every node it adds is built
exactly as `make scale` builds one. Karpenter launches instances itself from an EC2NodeClass,
not from a launch template of ours; until recently it gave every interface of a pod requesting
EFA the `efa` type (each taking a VPC address) and supported no placement groups (EKS User Guide,
"Manage EFA devices", earlier text); per-interface settings in the NodeClass and placement groups
arrived only in 2026 (aws/karpenter-provider-aws#9030, for #3324). Adopting it would mean a second
way to build a p5en node beside the node groups the train pool keeps (and its Capacity Block).

What it scales: only the rollout node group (pools.<name>.autoscale, spec/environment.py
AUTOSCALED_POOLS). Auto-discovery matches the tags EKS puts on a managed node group's Auto
Scaling group (eks:cluster-name, eks:nodegroup-name: cluster-autoscaler 1.33's aws_manager.go
reads them as the group's EKS identity), so no other group is ever touched; the role below may
change no other group either. The train pool is never autoscaled: the trainer is one gang that
needs all its nodes at once, on a Capacity Block EC2 fills only inside its window.

Bounds: the Auto Scaling group's min and max, which Cluster Autoscaler re-reads every loop.
`make scale POOL=rollout` sets them (infra/scale.py) and leaves the desired size to the
autoscaler, so the two never fight.

Scale up from zero: with no node to copy, the autoscaler builds a template node from the
instance type (vCPUs, memory, 8 GPUs from its own table), the node group's labels and taints
(EKS DescribeNodegroup) and the node group's `k8s.io/cluster-autoscaler/node-template/resources/`
tags, which it also reads through DescribeNodegroup (aws_wrapper.go getManagedNodegroupInfo,
aws_manager.go buildNodeFromTemplate): the EFA devices and 2 MiB huge pages every SGLang pod
requests (infra/gpu_node_group.py node_template_tags). EKS does not copy node group tags onto
the Auto Scaling group (aws/containers-roadmap#608), so no custom resource has to: the
autoscaler reads them from the node group itself.

Scale down and draining: every SGLang pod carries cluster-autoscaler.kubernetes.io/safe-to-evict:
"false" (k8s/charts/rollout_servers.py), so the autoscaler never evicts a server or one member of
an LWS group; it removes a node only once it is empty, after KEDA has shrunk the LeaderWorkerSet
and the server has drained (stop routing, finish or requeue its requests within its 120 s grace,
k8s/charts/autoscaling.py). A group's pods come and go together: LWS creates and deletes a
group's pods at once, Kueue admits and ungates them as one Workload, and the autoscaler bin-packs
every pending pod of a loop into one scale-up.
"""

from __future__ import annotations

from aws_cdk import ArnFormat, Stack, aws_eks_v2 as eks, aws_iam as iam
from cdk_nag import NagSuppressions
from constructs import Construct

from infra import versions
from infra.pod_identity import pod_identity_association, pod_identity_role
from spec.job import SPOT_GRACE_SECONDS

NAMESPACE = "kube-system"
SERVICE_ACCOUNT = "cluster-autoscaler"
NODE_TEMPLATE_RESOURCE_TAG = "k8s.io/cluster-autoscaler/node-template/resources/"
# A label the node gets only once booted (not a node group label), for the autoscaler to expect.
NODE_TEMPLATE_LABEL_TAG = "k8s.io/cluster-autoscaler/node-template/label/"
# The AWS provider's GPU label (cluster-autoscaler 1.33 aws_cloud_provider.go GPULabel): on a node
# that has joined but whose device plugin has not yet advertised its GPUs, it tells the autoscaler
# the GPUs are coming, so it does not add a second node for the same pending pods.
GPU_LABEL = {"k8s.amazonaws.com/accelerator": "nvidia"}

# Actions cluster-autoscaler 1.33's AWS provider calls, read from its aws_wrapper.go and
# auto_scaling_groups.go (not the README's superset: DescribeImages and
# GetInstanceTypesFromInstanceRequirements serve only mixed-instance requirements, which these
# groups do not use, and DescribeLaunchConfigurations only launch configurations).
DESCRIBE_ACTIONS = (
    "autoscaling:DescribeAutoScalingGroups",
    "autoscaling:DescribeScalingActivities",
    "ec2:DescribeInstanceTypes",
    "ec2:DescribeLaunchTemplateVersions",
)
SCALING_ACTIONS = ("autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup")

# Scale-down timing. A p5en takes ~10 minutes from launch to Ready (infra/scale.py), so an empty
# node is kept as long as a new one would take to come; a node that has not registered after
# 25 minutes (boot, driver and gdrdrv build, RAID0, join) counts as a failed launch.
SCALE_DOWN_UNNEEDED_TIME = "10m"
SCALE_DOWN_DELAY_AFTER_ADD = "10m"
MAX_NODE_PROVISION_TIME = "25m"


def autoscaler_args() -> dict[str, str]:
    return {
        # One group is discovered, so the expander never has to choose; least-waste is the
        # choice should a second rollout group (another instance type) be added.
        "expander": "least-waste",
        "scale-down-unneeded-time": SCALE_DOWN_UNNEEDED_TIME,
        "scale-down-delay-after-add": SCALE_DOWN_DELAY_AFTER_ADD,
        "max-node-provision-time": MAX_NODE_PROVISION_TIME,
        # A pod the autoscaler does drain gets its whole grace period, up to this: at least the
        # SGLang server's (which it never drains, see above).
        "max-graceful-termination-sec": str(SPOT_GRACE_SECONDS),
    }


class NodeAutoscaler(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: eks.Cluster,
        kubernetes_version: str,
        nodegroup: eks.Nodegroup,
        system: dict,
    ) -> None:
        super().__init__(scope, id)
        stack = Stack.of(self)
        # The attribute, not Ref (a node group's Ref is "cluster/name").
        name = nodegroup.node.default_child.attr_nodegroup_name
        self.role = pod_identity_role(self, "Role")
        policy = iam.Policy(self, "Policy", roles=[self.role])
        # Describe calls take no resource-level permissions (Service Authorization Reference).
        policy.add_statements(iam.PolicyStatement(actions=list(DESCRIBE_ACTIONS), resources=["*"]))
        # Changing a group: only the autoscaled node group's, by the tags EKS sets on its Auto
        # Scaling group (whose ARN holds an id that exists only once EKS has created it).
        policy.add_statements(
            iam.PolicyStatement(
                actions=list(SCALING_ACTIONS),
                resources=[stack.format_arn(service="autoscaling", resource="autoScalingGroup", resource_name="*",
                                            arn_format=ArnFormat.COLON_RESOURCE_NAME)],
                conditions={
                    "StringEquals": {
                        "aws:ResourceTag/eks:cluster-name": cluster.cluster_name,
                        "aws:ResourceTag/eks:nodegroup-name": name,
                    }
                },
            ),
            iam.PolicyStatement(
                actions=["eks:DescribeNodegroup"],
                resources=[stack.format_arn(service="eks", resource="nodegroup", resource_name=f"{cluster.cluster_name}/{name}/*")],
            ),
        )
        NagSuppressions.add_resource_suppressions(
            policy,
            [{
                "id": "AwsSolutions-IAM5",
                "reason": "Auto Scaling and EC2 Describe calls take no resource-level permissions; SetDesiredCapacity and "
                "TerminateInstanceInAutoScalingGroup are limited by condition to the rollout node group's Auto Scaling "
                "group (its ARN holds an id unknown at deploy); DescribeNodegroup to that node group (its ARN ends in an id)",
            }],
        )
        self.association = pod_identity_association(self, cluster.cluster_name, NAMESPACE, SERVICE_ACCOUNT, self.role)
        self.chart = _helm_chart(self, cluster, kubernetes_version, name, system)
        # The agent injects credentials into a pod created after its association exists.
        self.chart.node.add_dependency(self.association, policy)


def _helm_chart(scope: Construct, cluster: eks.Cluster, kubernetes_version: str, nodegroup_name: str, system: dict) -> eks.HelmChart:
    repository, chart, version = versions.CLUSTER_AUTOSCALER
    return eks.HelmChart(
        scope,
        "Chart",
        cluster=cluster,
        chart=chart,
        repository=repository,
        version=version,
        namespace=NAMESPACE,
        create_namespace=False,
        # A readable release name (the chart then names its Deployment cluster-autoscaler-aws-cluster-autoscaler).
        release=chart,
        values={
            "cloudProvider": "aws",
            "awsRegion": Stack.of(scope).region,
            "image": {"tag": versions.CLUSTER_AUTOSCALER_IMAGES[kubernetes_version]},
            "autoDiscovery": {
                "clusterName": cluster.cluster_name,
                "tags": [f"eks:cluster-name={cluster.cluster_name}", f"eks:nodegroup-name={nodegroup_name}"],
            },
            "rbac": {"serviceAccount": {"name": SERVICE_ACCOUNT}},
            "extraArgs": autoscaler_args(),
            **system,
        },
        wait=False,
    )
