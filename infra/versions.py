"""Every version the environment installs, in one place.

The cdk8s app types its custom resources from CRD files vendored in k8s/crds/. Today that is
only the Prometheus operator's ServiceMonitor and PrometheusRule, at 0.84.1 and 0.82.2 (the
copies that could be obtained offline; the operator's CRDs only add fields between releases, so
objects typed against them validate under PROMETHEUS_OPERATOR below). The JobSet and
LeaderWorkerSet CRDs of the releases below are not vendored yet (k8s/README.md says how).
EKS add-on versions must exist for the cluster's Kubernetes version
(`aws eks describe-addon-versions --kubernetes-version 1.33 --addon-name NAME`).
"""

# Helm charts (repository, chart, version).
NVIDIA_DEVICE_PLUGIN = ("https://nvidia.github.io/k8s-device-plugin", "nvidia-device-plugin", "0.18.0")
EFA_DEVICE_PLUGIN = ("https://aws.github.io/eks-charts", "aws-efa-k8s-device-plugin", "v0.5.14")
DCGM_EXPORTER = ("https://nvidia.github.io/dcgm-exporter/helm-charts", "dcgm-exporter", "4.6.0")
JOBSET = ("oci://registry.k8s.io/jobset/charts", "jobset", "0.10.1")
LEADER_WORKER_SET = ("oci://registry.k8s.io/lws/charts", "lws", "0.7.0")
KUBE_PROMETHEUS_STACK = ("https://prometheus-community.github.io/helm-charts", "kube-prometheus-stack", "79.4.1")
# The Prometheus operator release inside that chart.
PROMETHEUS_OPERATOR = "v0.86.2"

# EKS managed add-ons (name -> version).
EKS_ADDONS = {
    "vpc-cni": "v1.20.4-eksbuild.1",
    "coredns": "v1.12.4-eksbuild.1",
    "kube-proxy": "v1.33.5-eksbuild.2",
    "eks-pod-identity-agent": "v1.3.9-eksbuild.3",
    "aws-ebs-csi-driver": "v1.51.1-eksbuild.1",
    "aws-fsx-csi-driver": "v1.7.0-eksbuild.1",
}
