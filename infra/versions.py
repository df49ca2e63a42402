"""Every version the environment installs, in one place, each one found published upstream
(where is noted beside it; README.md "Versions and where they are published").

The cdk8s app types its custom resources from the CRDs of exactly these releases (JobSet,
LeaderWorkerSet, PROMETHEUS_OPERATOR, KUEUE, KEDA), vendored unmodified in k8s/crds/ (k8s/crds/README.md);
change a version here and vendor its CRDs there, then re-run `npx cdk8s import`.
EKS add-on versions must exist for the cluster's Kubernetes version
(`aws eks describe-addon-versions --kubernetes-version 1.33 --addon-name NAME`).
"""

# Helm charts (repository, chart, version).
# In the repository's index.yaml (gh-pages of NVIDIA/k8s-device-plugin, stable/).
NVIDIA_DEVICE_PLUGIN = ("https://nvidia.github.io/k8s-device-plugin", "nvidia-device-plugin", "0.18.0")
# The newest in aws/eks-charts' index.yaml (gh-pages, created 2026-08-03): device plugin v0.5.20.
EFA_DEVICE_PLUGIN = ("https://aws.github.io/eks-charts", "aws-efa-k8s-device-plugin", "v0.5.30")
# NVIDIA/dcgm-exporter's index.yaml (gh-pages); image 4.5.2-4.8.1: DCGM 4.5.2, the same DCGM as
# the nv-hostengine the node monitoring agent below runs (its chart's dcgmAgent.image.tag at
# v1.6.4), which this exporter reads instead of starting its own (infra/addons.py).
DCGM_EXPORTER = ("https://nvidia.github.io/dcgm-exporter/helm-charts", "dcgm-exporter", "4.8.1")
# kubernetes-sigs/aws-fsx-csi-driver's index.yaml (gh-pages, created 2026-04-21): driver v1.9.0.
FSX_CSI_DRIVER = ("https://kubernetes-sigs.github.io/aws-fsx-csi-driver", "aws-fsx-csi-driver", "1.17.0")
# The release pages (kubernetes-sigs/jobset charts/jobset/README.md at v0.10.1, kubernetes-sigs/lws
# site docs/installation at v0.7.0) install these exact OCI chart versions.
JOBSET = ("oci://registry.k8s.io/jobset/charts", "jobset", "0.10.1")
LEADER_WORKER_SET = ("oci://registry.k8s.io/lws/charts", "lws", "0.7.0")
# kubernetes-sigs/kueue v0.19.2 site/content/en/docs/getting-started/installation.md installs the
# chart from this OCI repository; charts/kueue/Chart.yaml at v0.19.2: version 0.19.2, appVersion v0.19.2.
KUEUE = ("oci://registry.k8s.io/kueue/charts", "kueue", "0.19.2")
# kedacore/charts tag v2.20.2 (commit cbb9bb8, "prepare v2.20.2 release"): keda/Chart.yaml version
# 2.20.2, appVersion 2.20.2; published in the repository's index (kedacore.github.io/charts).
KEDA = ("https://kedacore.github.io/charts", "keda", "2.20.2")
# kubernetes/autoscaler tag cluster-autoscaler-chart-9.52.1: cluster-autoscaler/charts/cluster-autoscaler/
# Chart.yaml version 9.52.1 (appVersion 1.34.1), published in the repository's index
# (kubernetes.github.io/autoscaler, gh-pages index.yaml: created 2025-10-20, digest e4746b4e). The image follows the cluster's minor version, as
# cluster-autoscaler/README.md recommends (the release made for the control plane's version):
# the newest cluster-autoscaler-X.Y.Z tag of each minor in the same repository.
CLUSTER_AUTOSCALER = ("https://kubernetes.github.io/autoscaler", "cluster-autoscaler", "9.52.1")
CLUSTER_AUTOSCALER_IMAGES = {"1.32": "v1.32.7", "1.33": "v1.33.6", "1.34": "v1.34.5"}
# Release tag kube-prometheus-stack-79.4.1 of prometheus-community/helm-charts (chart-releaser
# publishes each tag as a GitHub release the index points at).
KUBE_PROMETHEUS_STACK = ("https://prometheus-community.github.io/helm-charts", "kube-prometheus-stack", "79.4.1")
# The Prometheus operator release inside that chart.
PROMETHEUS_OPERATOR = "v0.86.2"

KUBERNETES_VERSIONS = ("1.32", "1.33", "1.34")

# EKS managed add-ons the cluster needs before any node can run a pod; nodes wait for them.
CORE_ADDONS = ("vpc-cni", "eks-pod-identity-agent", "kube-proxy", "coredns")

# EKS managed add-ons, per Kubernetes version (name -> version). kube-proxy and CoreDNS builds
# follow the control plane's minor version: AWS's tables of the latest add-on build per version
# (EKS User Guide, "Manage kube-proxy" and "Manage CoreDNS"). The others are one build for all
# three versions (`aws eks describe-addon-versions --kubernetes-version V --addon-name NAME`
# lists each as compatible with 1.32-1.34). Every build here appears in published
# describe-addon-versions output and add-on pins (README.md, "Versions"). The FSx CSI driver is
# the upstream chart above: no published build of its EKS add-on could be found.
_SHARED_ADDONS = {
    "vpc-cni": "v1.20.4-eksbuild.1",
    "eks-pod-identity-agent": "v1.3.9-eksbuild.3",
    "aws-ebs-csi-driver": "v1.51.1-eksbuild.1",
    # GPU (XID, DCGM), kernel, network and storage health as node conditions: what node auto
    # repair acts on. Its dcgm-server DaemonSet is every GPU node's one DCGM host engine.
    "eks-node-monitoring-agent": "v1.6.4-eksbuild.1",
}
_PER_KUBERNETES_VERSION = {
    "1.32": {"kube-proxy": "v1.32.9-eksbuild.2", "coredns": "v1.11.4-eksbuild.24"},
    "1.33": {"kube-proxy": "v1.33.5-eksbuild.2", "coredns": "v1.12.4-eksbuild.1"},
    "1.34": {"kube-proxy": "v1.34.1-eksbuild.2", "coredns": "v1.12.4-eksbuild.1"},
}


def eks_addons(kubernetes_version: str) -> dict[str, str]:
    """Every EKS managed add-on and its version for a cluster at `kubernetes_version`."""
    return {**_SHARED_ADDONS, **_PER_KUBERNETES_VERSION[kubernetes_version]}
