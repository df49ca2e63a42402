"""The one stack per environment: composes the constructs and exports what k8s/ needs.

Creation order (the template's dependency graph; tests/infra/test_ordering.py reads it):
network -> control plane -> core add-ons (vpc-cni, Pod Identity agent, kube-proxy, CoreDNS)
-> node groups (GPU ones empty) -> Helm charts and the rollout pool's Cluster Autoscaler, after
the system nodes. The other managed
add-ons (EBS CSI, node monitoring agent) follow the control plane only.
"""

from __future__ import annotations

from aws_cdk import CfnOutput, Stack, Tags
from aws_cdk import Environment as CdkEnvironment
from constructs import Construct

from infra.addons import ON_SYSTEM_NODES, HelmCharts, ManagedAddons
from infra.capacity import check_capacity_reservations
from infra.cluster import Cluster
from infra.efa import EfaSecurityGroup
from spec.environment import GPU_POOLS, Environment
from infra.gpu_node_group import GpuNodeGroup
from infra.network import Network
from infra.node_autoscaler import NodeAutoscaler
from infra.node_group import NodeGroup
from infra.storage import Storage, grant_node_sources
from infra.tracking import TrackingIdentity
from cluster.gpu_pods import gpu_pods_per_node
from cluster.outputs import ARTIFACTS_ENDPOINT_OUTPUT


class MoeRlStack(Stack):
    def __init__(self, scope: Construct, environment: Environment) -> None:
        # User mistakes (one line, EnvironmentFileError or PlacementError) before any construct exists.
        check_capacity_reservations(environment)
        pods_per_node = gpu_pods_per_node(environment)
        super().__init__(
            scope,
            environment.stack_name,
            env=CdkEnvironment(account=environment.resolved_account(), region=environment.region),
            description=f"MoE reinforcement learning on EKS: environment {environment.name}",
        )
        Tags.of(self).add("rl.aws/environment", environment.name)
        self.network = Network(self, "Network", environment=environment)
        self.efa = EfaSecurityGroup(self, "Efa", vpc=self.network.vpc)
        self.control_plane = Cluster(self, "Eks", environment=environment, network=self.network)
        cluster = self.control_plane.cluster
        self.addons = ManagedAddons(
            self, "Addons", cluster=cluster, kubernetes_version=environment.kubernetes_version
        )

        # Before the node groups: the EFA GPU nodes read GDRCopy's source from the bucket at boot.
        self.storage = Storage(self, "Storage", environment=environment, network=self.network)
        if any(getattr(environment.pools, name).efa for name in GPU_POOLS):
            grant_node_sources(self.storage, self.control_plane.node_role)

        self.node_groups = {}
        for name, pool in environment.pools.items():
            common = dict(
                name=name,
                pool=pool,
                cluster=cluster,
                subnets=self.network.node_subnets,
                node_role=self.control_plane.node_role,
            )
            if name in GPU_POOLS:
                self.node_groups[name] = GpuNodeGroup(
                    self,
                    f"{name.title()}Nodes",
                    efa_security_group=self.efa.security_group,
                    pods_per_node=pods_per_node[name],
                    node_sources=self.storage.bucket,
                    **common,
                )
            else:
                self.node_groups[name] = NodeGroup(self, f"{name.title()}Nodes", **common)
            # A node joins with pod networking, kube-proxy, DNS and credentials in place.
            self.node_groups[name].nodegroup.node.add_dependency(*self.addons.core)

        # Helm releases need somewhere to run: install them once the system nodes exist.
        self.charts = HelmCharts(self, "Charts", cluster=cluster, ebs_csi_driver=self.addons.addons["aws-ebs-csi-driver"])
        self.charts.node.add_dependency(self.node_groups["system"].nodegroup)
        # The rollout pool's Cluster Autoscaler, a controller like the charts: on the system nodes.
        autoscaled = [name for name, pool in environment.pools.items() if pool.autoscale]
        if autoscaled:
            (name,) = autoscaled  # AUTOSCALED_POOLS
            self.node_autoscaler = NodeAutoscaler(
                self,
                "NodeAutoscaler",
                cluster=cluster,
                kubernetes_version=environment.kubernetes_version,
                nodegroup=self.node_groups[name].nodegroup,
                system={"nodeSelector": ON_SYSTEM_NODES},
            )
            self.node_autoscaler.node.add_dependency(self.node_groups["system"].nodegroup)
        if environment.job.tracking.server:
            # The in-cluster MLflow server's artifact store (k8s/charts/tracking.py).
            self.tracking = TrackingIdentity(self, "Tracking", cluster=cluster, bucket=self.storage.bucket,
                                             network=self.network, vpc_cidr=environment.vpc_cidr)

        outputs = {
            "EnvironmentName": environment.name,
            "Region": environment.region,
            "AvailabilityZone": environment.availability_zone,
            "ClusterName": cluster.cluster_name,
            "FsxFileSystemId": self.storage.file_system.ref,
            "FsxMountName": self.storage.file_system.attr_lustre_mount_name,
            "FsxDnsName": self.storage.file_system.attr_dns_name,
            "BucketName": self.storage.bucket.bucket_name,
            "EcrRepositoryUri": self.storage.repository.repository_uri,
            # `make scale` resizes these (created empty, CloudFormation-named).
            # The attribute, not Ref: a node group's Ref is "cluster/name".
            **{f"{name.title()}NodegroupName": self.node_groups[name].nodegroup.node.default_child.attr_nodegroup_name for name in GPU_POOLS},
        }
        if environment.job.tracking.server:
            outputs[ARTIFACTS_ENDPOINT_OUTPUT] = self.tracking.endpoint_dns_name
        for key, value in outputs.items():
            CfnOutput(self, key, value=value)
