"""What the monitoring add-ons publish and where, named once for both apps: the CDK app installs
the exporters and kube-prometheus-stack (infra/addons.py); the job's dashboard, alerts and scaling
rules read them (k8s/).

EFA: byte counters per node, as the node-exporter sidecar exports them (infra/addons.py) and
the RL job's dashboard reads them (k8s/dashboard.py).

The EFA driver publishes traffic only as RDMA hw_counters
(/sys/class/infiniband/<device>/ports/<port>/hw_counters/<counter>); node-exporter's infiniband
collector reads the MAD `counters/` directory, which EFA devices do not have.

GPUs: the metrics as the DCGM exporter publishes them (infra/addons.py) and the RL job's dashboard
and alerts read them (k8s/dashboard.py, k8s/charts/monitoring.py).

One DCGM host engine per GPU node: the EKS node monitoring agent's `dcgm-server` DaemonSet runs
`nv-hostengine -n -b ALL` with hostPort 5555 (aws/eks-node-monitoring-agent,
charts/eks-node-monitoring-agent/templates/dcgm-daemonset.yaml). DCGM's profiling module cannot
be shared by two engines on one node, and with a second one the agent reports
AcceleratedHardwareReady=false (aws/containers-roadmap#2763, #2555), which node auto repair acts
on. So the exporter starts no engine of its own: `-r NODE_IP:5555` makes it a client of the
agent's (the dcgm-exporter chart's values.yaml: "Use -r <HOST>:<PORT> to connect to an already
running hostengine"). The series keep their labels: under Kubernetes the exporter names the
Hostname label after NODE_NAME, which the chart sets, not after the engine's address
(internal/pkg/hostname/hostname.go), and maps GPUs to pods through the kubelet's pod-resources
socket as before (exported_pod, exported_namespace once scraped through its Service).
"""

# kube-prometheus-stack's namespace and release name: its Prometheus selects ServiceMonitors and
# rules by the release label, and network policies admit scrapes from that namespace.
MONITORING_NAMESPACE = "monitoring"
PROMETHEUS_RELEASE = "kube-prometheus-stack"

EFA_BYTE_COUNTERS = ("tx_bytes", "rx_bytes", "rdma_read_bytes", "rdma_write_bytes")


def efa_metric(counter: str) -> str:
    return f"node_efa_{counter}_total"


# The agent's host engine: its container port, published on the node's IP as a hostPort.
HOSTENGINE_PORT = 5555
# The counters file inside the dcgm-exporter image the chart points `-f` at.
DCGM_COUNTERS_FILE = "/etc/dcgm-exporter/default-counters.csv"

# What the dashboard and alerts read, each a field of that file (dcgm-exporter 4.5.2-4.8.1,
# etc/default-counters.csv; tests/infra/test_gpu_monitoring.py holds them against it).
DCGM_GPU_UTIL = "DCGM_FI_DEV_GPU_UTIL"
DCGM_FB_USED = "DCGM_FI_DEV_FB_USED"
DCGM_FB_FREE = "DCGM_FI_DEV_FB_FREE"
DCGM_NVLINK = "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL"
DASHBOARD_DCGM_METRICS = (DCGM_GPU_UTIL, DCGM_FB_USED, DCGM_FB_FREE, DCGM_NVLINK)
