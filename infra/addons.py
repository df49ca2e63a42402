"""Cluster add-ons the workloads need; every version comes from infra/versions.py.

Observability is kube-prometheus-stack rather than the CloudWatch observability add-on:
the workload charts declare ServiceMonitors, PodMonitors and PrometheusRules (balance and
NCCL-fallback alerts) that only the Prometheus operator understands, and DCGM/NCCL metrics
at 15 s resolution for 48 nodes would be costly as CloudWatch custom metrics.
"""

from __future__ import annotations

import json

from aws_cdk import aws_eks_v2 as eks, aws_iam as iam
from constructs import Construct

from infra import versions
from infra.environment import GPU_POOLS, POOL_LABEL

GPU_TOLERATIONS = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
ON_GPU_NODES = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": POOL_LABEL, "operator": "In", "values": list(GPU_POOLS)}]}]
        }
    }
}
ON_SYSTEM_NODES = {POOL_LABEL: "system"}
MONITORING_NAMESPACE = "monitoring"


class Addons(Construct):
    def __init__(self, scope: Construct, id: str, *, cluster: eks.Cluster) -> None:
        super().__init__(scope, id)
        self._managed_addons(cluster)
        prometheus = self._controllers(cluster)
        self._gpu_plugins(cluster, prometheus)

    def _managed_addons(self, cluster: eks.Cluster) -> None:
        ebs_role = iam.Role(
            self,
            "EbsCsiRole",
            assumed_by=iam.ServicePrincipal("pods.eks.amazonaws.com"),
            managed_policies=[iam.ManagedPolicy.from_aws_managed_policy_name("service-role/AmazonEBSCSIDriverPolicy")],
        )
        ebs_role.assume_role_policy.add_statements(
            iam.PolicyStatement(
                actions=["sts:TagSession"], principals=[iam.ServicePrincipal("pods.eks.amazonaws.com")]
            )
        )
        configuration = {
            # NetworkPolicy enforcement for the workload charts' policies.
            "vpc-cni": {"enableNetworkPolicy": "true"},
        }
        for name, version in versions.EKS_ADDONS.items():
            addon = eks.CfnAddon(
                self,
                name,
                addon_name=name,
                addon_version=version,
                cluster_name=cluster.cluster_name,
                resolve_conflicts="OVERWRITE",
                configuration_values=_json(configuration[name]) if name in configuration else None,
                pod_identity_associations=[
                    eks.CfnAddon.PodIdentityAssociationProperty(
                        role_arn=ebs_role.role_arn, service_account="ebs-csi-controller-sa"
                    )
                ]
                if name == "aws-ebs-csi-driver"
                else None,
            )
            addon.node.add_dependency(cluster)

    def _gpu_plugins(self, cluster: eks.Cluster, prometheus: eks.HelmChart) -> None:
        gpu_placement = {"affinity": ON_GPU_NODES, "tolerations": GPU_TOLERATIONS}
        self._chart(cluster, "NvidiaDevicePlugin", versions.NVIDIA_DEVICE_PLUGIN, "kube-system", gpu_placement)
        self._chart(cluster, "EfaDevicePlugin", versions.EFA_DEVICE_PLUGIN, "kube-system", gpu_placement)
        dcgm = self._chart(
            cluster,
            "DcgmExporter",
            versions.DCGM_EXPORTER,
            MONITORING_NAMESPACE,
            {**gpu_placement, "serviceMonitor": {"enabled": True, "additionalLabels": {"release": "kube-prometheus-stack"}}},
        )
        dcgm.node.add_dependency(prometheus)  # its ServiceMonitor needs the operator's CRDs

    def _controllers(self, cluster: eks.Cluster) -> eks.HelmChart:
        system = {"nodeSelector": ON_SYSTEM_NODES}
        self._chart(cluster, "JobSet", versions.JOBSET, "jobset-system", {"controller": system})
        self._chart(cluster, "LeaderWorkerSet", versions.LEADER_WORKER_SET, "lws-system", system)
        return self._chart(
            cluster,
            "KubePrometheusStack",
            versions.KUBE_PROMETHEUS_STACK,
            MONITORING_NAMESPACE,
            {
                # Pick up the workload charts' monitors and rules (labelled release: kube-prometheus-stack).
                "prometheus": {"prometheusSpec": {"nodeSelector": ON_SYSTEM_NODES, "retention": "15d"}},
                "prometheusOperator": system,
                "grafana": system,
                "kube-state-metrics": system,
                "alertmanager": {"alertmanagerSpec": {"nodeSelector": ON_SYSTEM_NODES}},
            },
            release="kube-prometheus-stack",
        )

    @staticmethod
    def _chart(cluster: eks.Cluster, id: str, chart: tuple[str, str, str], namespace: str, values: dict, release: str | None = None) -> eks.HelmChart:
        repository, name, version = chart
        oci = repository.startswith("oci://")
        return cluster.add_helm_chart(
            id,
            chart=f"{repository}/{name}" if oci else name,
            repository=None if oci else repository,
            version=version,
            namespace=namespace,
            create_namespace=True,
            release=release,
            values=values,
            wait=False,
        )


def _json(value: dict) -> str:
    return json.dumps(value, sort_keys=True)
