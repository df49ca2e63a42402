"""Where a pod runs and what it may ask for, derived only from the environment file.

Every pod selects its pool by the label every node carries (POOL_LABEL) plus the pool's own
labels, tolerates exactly that pool's taints, and requests resources computed from the pool's
instance type (cluster.instance_types), so a chart cannot ask for a pool, a taint or a GPU/EFA
count the environment does not have; the node groups pre-allocate the huge pages sized here.
k8s/placement.py renders these facts as Kubernetes objects; tests/k8s/test_k8s_consistency.py
proves them on dist/.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from cluster.environment import POOL_LABEL, Environment, NodePool
from cluster.instance_types import InstanceSpec

# What a pod may claim of a node: the rest is kubelet/system reservations and the per-node
# DaemonSets (device plugins, FSx CSI node, DCGM and node exporters, VPC CNI, kube-proxy).
NODE_SHARE = 0.85
# EFA's libfabric provider keeps its bounce buffers in 2 MiB huge pages; AWS's EFA-on-EKS
# guidance sizes them at 5 GiB per pod using the devices. The nodes must pre-allocate them.
EFA_HUGEPAGES_2MI = "5120Mi"
EFA_HUGEPAGES_GIB = 5


class LayoutError(Exception):
    """The job does not fit the environment (one line naming the field, no traceback)."""


@dataclass(frozen=True)
class Placement:
    pool_name: str
    pool: NodePool

    @classmethod
    def of(cls, environment: Environment, pool_name: str) -> "Placement":
        return cls(pool_name, getattr(environment.pools, pool_name))

    @property
    def spec(self) -> InstanceSpec:
        return self.pool.spec

    def node_selector(self) -> dict[str, str]:
        return {POOL_LABEL: self.pool_name, **self.pool.labels}


@dataclass(frozen=True)
class GpuShare:
    """A pod's slice of one GPU node: `gpus` of the node's GPUs and the EFA devices wired to them."""

    placement: Placement
    gpus: int

    @property
    def fraction(self) -> float:
        return self.gpus / self.placement.spec.gpus

    @property
    def efa(self) -> int:
        if not self.placement.pool.efa:
            return 0
        return self.placement.spec.efa_interfaces * self.gpus // self.placement.spec.gpus

    @property
    def cpu(self) -> int:
        return math.floor(self.placement.spec.vcpus * NODE_SHARE * self.fraction)

    @property
    def memory_gib(self) -> int:
        # The huge pages come out of the node's memory too.
        usable = self.placement.spec.memory_gib * NODE_SHARE * self.fraction
        return math.floor(usable - (EFA_HUGEPAGES_GIB if self.efa else 0))
