"""EFA byte counters per node, as the node-exporter sidecar exports them (infra/addons.py) and
the RL job's dashboard reads them (k8s/dashboard.py): named once for both apps.

The EFA driver publishes traffic only as RDMA hw_counters
(/sys/class/infiniband/<device>/ports/<port>/hw_counters/<counter>); node-exporter's infiniband
collector reads the MAD `counters/` directory, which EFA devices do not have.
"""

EFA_BYTE_COUNTERS = ("tx_bytes", "rx_bytes", "rdma_read_bytes", "rdma_write_bytes")


def efa_metric(counter: str) -> str:
    return f"node_efa_{counter}_total"
