"""Where a pod runs and what it may ask for, derived only from the environment file.

Every pod selects its pool by the label every node carries (POOL_LABEL) plus the pool's own
labels, tolerates exactly that pool's taints, and requests resources computed from the
pool's instance type (infra.instance_types), so a chart cannot ask for a pool, a taint or a
GPU/EFA count the environment does not have. tests/k8s/test_consistency.py proves it on dist/.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from cdk8s_plus_33 import k8s

from infra.environment import POOL_LABEL, Environment, NodePool
from infra.instance_types import InstanceSpec

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

    def tolerations(self) -> list[k8s.Toleration] | None:
        tolerations = [
            k8s.Toleration(key=taint.key, operator="Equal", value=taint.value, effect=taint.effect)
            for taint in self.pool.taints
        ]
        return tolerations or None


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

    def resources(self) -> k8s.ResourceRequirements:
        requests: dict[str, k8s.Quantity] = {
            "cpu": k8s.Quantity.from_number(self.cpu),
            "memory": k8s.Quantity.from_string(f"{self.memory_gib}Gi"),
            "nvidia.com/gpu": k8s.Quantity.from_number(self.gpus),
        }
        if self.efa:
            requests["vpc.amazonaws.com/efa"] = k8s.Quantity.from_number(self.efa)
            requests["hugepages-2Mi"] = k8s.Quantity.from_string(EFA_HUGEPAGES_2MI)
        # Extended resources and huge pages need limit == request. Memory too: a GPU pod
        # that outgrows its share must be killed, not let the node swap-thrash the others.
        # No CPU limit: CFS throttling stalls NCCL proxy threads and the data path.
        limits = {name: value for name, value in requests.items() if name != "cpu"}
        return k8s.ResourceRequirements(requests=requests, limits=limits)


def cpu_resources(cpu: str, memory: str) -> k8s.ResourceRequirements:
    """Requests for a pod without GPUs; the memory limit equals the request (no overcommit)."""
    return k8s.ResourceRequirements(
        requests={"cpu": k8s.Quantity.from_string(cpu), "memory": k8s.Quantity.from_string(memory)},
        limits={"memory": k8s.Quantity.from_string(memory)},
    )
