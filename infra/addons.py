"""Cluster add-ons, in the order a cluster can take them; every version comes from infra/versions.py.

- `ManagedAddons`: the EKS managed add-ons. The core ones (vpc-cni, the Pod Identity agent,
  kube-proxy, CoreDNS) depend on the control plane only, and every node group depends on them
  (as cdk-eks-blueprints' `deployBeforeCapacity` does): a node joins with networking, and no
  chart can block them. CloudFormation counts an add-on that waits for nodes (CoreDNS, the CSI
  controllers) as created once it is DEGRADED, so nothing here waits on compute.
- `HelmCharts`: the charts, installed once the system nodes exist (the stack adds that
  dependency): kube-prometheus-stack's admission hooks and every controller need a Ready node
  within Helm's timeout.

Observability is kube-prometheus-stack rather than the CloudWatch observability add-on:
the workload charts declare ServiceMonitors and PrometheusRules (balance and NCCL-fallback
alerts) that only the Prometheus operator understands, and DCGM/NCCL metrics at 15 s
resolution for 48 nodes would be costly as CloudWatch custom metrics.
"""

from __future__ import annotations

import json

from aws_cdk import aws_eks_v2 as eks, aws_iam as iam
from constructs import Construct

from infra import versions
from cluster.monitoring import EFA_BYTE_COUNTERS, efa_metric
from spec.environment import POOL_LABEL
from cluster.monitoring import DCGM_COUNTERS_FILE, HOSTENGINE_PORT, MONITORING_NAMESPACE, PROMETHEUS_RELEASE
from infra.gpu_node_group import EFA_NODE_LABELS, GPU_NODE_LABELS
from infra.pod_identity import pod_identity_role
from infra.queueing import KEDA_NAMESPACE, KUEUE_NAMESPACE, kueue_values

GPU_TOLERATIONS = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
ON_SYSTEM_NODES = {POOL_LABEL: "system"}
# Grafana's admin user and password: a Secret the operator creates (README.md), never the
# chart's default password and never a value in the template.
GRAFANA_ADMIN_SECRET = "grafana-admin"
GRAFANA_ADMIN_KEYS = {"userKey": "admin-user", "passwordKey": "admin-password"}

# Prometheus's volume. Sized from the series a 48-node seed produces: ~2,300 per GPU node
# (node-exporter ~1,500, DCGM ~100 x 8 GPUs) plus the job's and Kubernetes' own, ~200k series;
# at a 15 s scrape and ~1.5 bytes per compressed sample that is ~1.7 GB a day, ~25 GB for
# 15 days. 100 GiB leaves room for the WAL, compaction and a larger job; retention_size keeps
# Prometheus from filling it.
PROMETHEUS_STORAGE_CLASS = "monitoring-gp3"
PROMETHEUS_VOLUME_GIB = 100
PROMETHEUS_RETENTION = "15d"
PROMETHEUS_RETENTION_SIZE = "85GB"

# kube-prometheus-stack 79.4.1's own prometheus-node-exporter.extraArgs (its values.yaml): a list
# given here replaces the chart's, so they are repeated, or every kubelet volume and containerd
# mount on every node would become a filesystem series.
NODE_EXPORTER_DEFAULT_ARGS = (
    "--collector.filesystem.mount-points-exclude=^/(dev|proc|sys|run/containerd/.+|var/lib/docker/.+|var/lib/kubelet/.+)($|/)",
    "--collector.filesystem.fs-types-exclude=^(autofs|binfmt_misc|bpf|cgroup2?|configfs|debugfs|devpts|devtmpfs|fusectl"
    "|hugetlbfs|iso9660|mqueue|nsfs|overlay|proc|procfs|pstore|rpc_pipefs|securityfs|selinuxfs|squashfs|sysfs|tracefs|erofs)$",
)

# The DCGM exporter as a client of the node monitoring agent's host engine (cluster/monitoring.py
# says why there must be only one): the node's IP from the downward API, which Kubernetes
# substitutes into `-r` ($(VAR) in args), reaches the agent's hostPort. No engine of its own, so
# no SYS_ADMIN (the chart adds it for an embedded engine's profiling metrics).
DCGM_EXPORTER_CLIENT_VALUES = {
    "arguments": ["-f", DCGM_COUNTERS_FILE, "-r", f"$(NODE_IP):{HOSTENGINE_PORT}"],
    "extraEnv": [{"name": "NODE_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.hostIP"}}}],
    "securityContext": {
        "runAsNonRoot": False,
        "runAsUser": 0,
        # Helm merges maps: the chart's `add: [SYS_ADMIN]` stays unless replaced by an empty list.
        "capabilities": {"add": [], "drop": ["ALL"]},
        "allowPrivilegeEscalation": False,
    },
}

# EFA traffic per node (cluster/monitoring.py says why node-exporter cannot read it itself):
# a sidecar in the node-exporter pod writes the EFA byte counters for its textfile collector
# every 15 s, replacing the file atomically so a scrape never reads half of it.
EFA_TEXTFILE_DIR = "/run/efa-textfile"
EFA_COUNTERS_SCRIPT = f"""set -eu
while true; do
  tmp={EFA_TEXTFILE_DIR}/efa.prom.tmp
  : > "$tmp"
  for counter in {" ".join(EFA_BYTE_COUNTERS)}; do
    metric={efa_metric("${counter}")}
    echo "# TYPE $metric counter" >> "$tmp"
    for file in /host/sys/class/infiniband/*/ports/*/hw_counters/$counter; do
      [ -r "$file" ] || continue
      relative=${{file#*/infiniband/}}
      device=${{relative%%/*}}
      port=${{relative#*/ports/}}
      port=${{port%%/*}}
      echo "$metric{{device=\\"$device\\",port=\\"$port\\"}} $(cat "$file")" >> "$tmp"
    done
  done
  mv "$tmp" {EFA_TEXTFILE_DIR}/efa.prom
  sleep 15
done
"""


class ManagedAddons(Construct):
    def __init__(self, scope: Construct, id: str, *, cluster: eks.Cluster, kubernetes_version: str) -> None:
        super().__init__(scope, id)
        ebs_role = pod_identity_role(
            self,
            "EbsCsiRole",
            managed_policies=[iam.ManagedPolicy.from_aws_managed_policy_name("service-role/AmazonEBSCSIDriverPolicy")],
        )
        configuration = {
            # NetworkPolicy enforcement for the workload charts' policies.
            "vpc-cni": {"enableNetworkPolicy": "true"},
            # The agent's dcgm-server DaemonSet (every GPU node's one DCGM host engine, which the
            # DCGM exporter reads: cluster/monitoring.py) has no tolerations of its own
            # (dcgmAgent.tolerations: [] in the chart at v1.6.4), so on the GPU pools' tainted
            # nodes it would not run: no GPU health checks, no GPU metrics.
            "eks-node-monitoring-agent": {"dcgmAgent": {"tolerations": GPU_TOLERATIONS}},
        }
        identities = {"aws-ebs-csi-driver": ("ebs-csi-controller-sa", ebs_role)}
        self.addons: dict[str, eks.CfnAddon] = {}
        for name, version in versions.eks_addons(kubernetes_version).items():
            identity = identities.get(name)
            # cluster_name is a reference to the control plane: its only dependency.
            self.addons[name] = eks.CfnAddon(
                self,
                name,
                addon_name=name,
                addon_version=version,
                cluster_name=cluster.cluster_name,
                resolve_conflicts="OVERWRITE",
                configuration_values=json.dumps(configuration[name], sort_keys=True) if name in configuration else None,
                pod_identity_associations=[
                    eks.CfnAddon.PodIdentityAssociationProperty(service_account=identity[0], role_arn=identity[1].role_arn)
                ]
                if identity
                else None,
            )

    @property
    def core(self) -> list[eks.CfnAddon]:
        return [self.addons[name] for name in versions.CORE_ADDONS]


class HelmCharts(Construct):
    def __init__(self, scope: Construct, id: str, *, cluster: eks.Cluster, ebs_csi_driver: eks.CfnAddon) -> None:
        super().__init__(scope, id)
        self.cluster = cluster
        system = {"nodeSelector": ON_SYSTEM_NODES}
        self._chart("JobSet", versions.JOBSET, "jobset-system", {"controller": system})
        self._chart("LeaderWorkerSet", versions.LEADER_WORKER_SET, "lws-system", system)
        prometheus = self._prometheus(system, ebs_csi_driver)
        # Queueing and rollout autoscaling (infra/queueing.py): both controllers on the system
        # nodes. KEDA reads the loop's signals from the Prometheus installed above.
        self._chart("Kueue", versions.KUEUE, KUEUE_NAMESPACE, kueue_values(system))
        self._chart("Keda", versions.KEDA, KEDA_NAMESPACE, system)

        # The NVIDIA plugin's own affinity selects nvidia.com/gpu.present=true nodes; the EFA
        # plugin keeps its instance-type affinity and adds the EFA label as its node selector.
        gpu_tolerations = {"tolerations": GPU_TOLERATIONS}
        # gdrcopyEnabled (chart 0.18): every GPU container gets NVIDIA_GDRCOPY=enabled, and the
        # NVIDIA container runtime mounts the node's /dev/gdrdrv (loaded by infra/gpu_node_group.py)
        # into it, for aws-ofi-nccl's GIN under DeepEP v2.
        self._chart(
            "NvidiaDevicePlugin", versions.NVIDIA_DEVICE_PLUGIN, "kube-system", {**gpu_tolerations, "gdrcopyEnabled": True}
        )
        self._chart(
            "EfaDevicePlugin", versions.EFA_DEVICE_PLUGIN, "kube-system", {**gpu_tolerations, "nodeSelector": EFA_NODE_LABELS}
        )
        dcgm = self._chart(
            "DcgmExporter",
            versions.DCGM_EXPORTER,
            MONITORING_NAMESPACE,
            {
                **gpu_tolerations,
                **DCGM_EXPORTER_CLIENT_VALUES,
                "nodeSelector": GPU_NODE_LABELS,
                "serviceMonitor": {"enabled": True, "additionalLabels": {"release": PROMETHEUS_RELEASE}},
            },
        )
        dcgm.node.add_dependency(prometheus)  # its ServiceMonitor needs the operator's CRDs
        # Static volumes only (k8s/charts/base.py binds the stack's file system): the node plugin
        # mounts, and the chart lets it tolerate every taint. Its controller only creates and
        # deletes file systems, which nothing here asks for, so it runs on the system nodes with no
        # FSx permissions (1.17.0's nodeComponentOnly drops only its PodDisruptionBudget).
        self._chart("FsxCsiDriver", versions.FSX_CSI_DRIVER, "kube-system", {"controller": system})

    def _prometheus(self, system: dict, ebs_csi_driver: eks.CfnAddon) -> eks.HelmChart:
        storage_class = eks.KubernetesManifest(
            self,
            "PrometheusStorageClass",
            cluster=self.cluster,
            manifest=[{
                "apiVersion": "storage.k8s.io/v1",
                "kind": "StorageClass",
                "metadata": {"name": PROMETHEUS_STORAGE_CLASS},
                "provisioner": "ebs.csi.aws.com",
                "parameters": {"type": "gp3", "encrypted": "true"},
                # Created in the zone of the system node Prometheus lands on.
                "volumeBindingMode": "WaitForFirstConsumer",
                "allowVolumeExpansion": True,
                "reclaimPolicy": "Retain",
            }],
        )
        volume = {
            "volumeClaimTemplate": {
                "spec": {
                    "storageClassName": PROMETHEUS_STORAGE_CLASS,
                    "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": f"{PROMETHEUS_VOLUME_GIB}Gi"}},
                }
            }
        }
        chart = self._chart(
            "KubePrometheusStack",
            versions.KUBE_PROMETHEUS_STACK,
            MONITORING_NAMESPACE,
            {
                # Picks up the workload charts' monitors and rules (labelled release: kube-prometheus-stack).
                "prometheus": {
                    "prometheusSpec": {
                        "nodeSelector": ON_SYSTEM_NODES,
                        "retention": PROMETHEUS_RETENTION,
                        "retentionSize": PROMETHEUS_RETENTION_SIZE,
                        "storageSpec": volume,
                    }
                },
                "prometheusOperator": system,
                # The dashboard sidecar loads every ConfigMap labelled grafana_dashboard=1 in any
                # namespace: the RL job's dashboard comes with dist/ (k8s/charts/monitoring.py).
                "grafana": {
                    **system,
                    "admin": {"existingSecret": GRAFANA_ADMIN_SECRET, **GRAFANA_ADMIN_KEYS},
                    "sidecar": {"dashboards": {"enabled": True, "label": "grafana_dashboard", "labelValue": "1", "searchNamespace": "ALL"}},
                },
                "kube-state-metrics": system,
                "alertmanager": {"alertmanagerSpec": {"nodeSelector": ON_SYSTEM_NODES}},
                "prometheus-node-exporter": {
                    "extraArgs": [*NODE_EXPORTER_DEFAULT_ARGS, f"--collector.textfile.directory={EFA_TEXTFILE_DIR}"],
                    "sidecars": [{"name": "efa-counters", "command": ["/bin/sh", "-c", EFA_COUNTERS_SCRIPT]}],
                    "sidecarVolumeMount": [{"name": "efa-textfile", "mountPath": EFA_TEXTFILE_DIR, "readOnly": False}],
                    "sidecarHostVolumeMounts": [
                        {"name": "efa-sys", "hostPath": "/sys", "mountPath": "/host/sys", "readOnly": True}
                    ],
                },
            },
            release=PROMETHEUS_RELEASE,
        )
        chart.node.add_dependency(storage_class)
        # The volume is provisioned by the EBS CSI driver as soon as Prometheus is scheduled.
        chart.node.add_dependency(ebs_csi_driver)
        return chart

    def _chart(self, id: str, chart: tuple[str, str, str], namespace: str, values: dict, release: str | None = None) -> eks.HelmChart:
        repository, name, version = chart
        oci = repository.startswith("oci://")
        # Scoped here, not under the cluster: the stack orders this construct after the system nodes.
        return eks.HelmChart(
            self,
            id,
            cluster=self.cluster,
            chart=f"{repository}/{name}" if oci else name,
            repository=None if oci else repository,
            version=version,
            namespace=namespace,
            create_namespace=True,
            release=release,
            values=values,
            wait=False,
        )
