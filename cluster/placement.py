"""Where a pod runs and what it may ask for, derived only from the environment file.

Every pod selects its pool by the label every node carries (POOL_LABEL) plus the pool's own
labels, tolerates exactly that pool's taints, and requests resources computed from the pool's
instance type (spec.hardware), so a chart cannot ask for a pool, a taint or a GPU/EFA
count the environment does not have; the node groups pre-allocate the huge pages sized here.
k8s/placement.py renders these facts as Kubernetes objects; tests/k8s/test_k8s_consistency.py
proves them on dist/.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from spec.environment import POOL_LABEL, Environment, NodePool
from spec.hardware import InstanceSpec

# What a pod may claim of a node: the rest is kubelet/system reservations and the per-node
# DaemonSets (device plugins, FSx CSI node, DCGM and node exporters, VPC CNI, kube-proxy).
NODE_SHARE = 0.85
# EFA's libfabric provider keeps its bounce buffers in 2 MiB huge pages; AWS's EFA-on-EKS
# guidance sizes them at 5 GiB per pod using the devices. The nodes must pre-allocate them.
EFA_HUGEPAGES_2MI = "5120Mi"
EFA_HUGEPAGES_GIB = 5

# The label a GPU node carries only once GDRCopy's gdrdrv is built for its kernel and
# /dev/gdrdrv exists (infra/gpu_node_group.py writes it, from the boot script, as a kubelet
# --node-labels flag in a nodeadm drop-in). A node whose build failed stays Ready for the pods
# that do not need gdrdrv; a pod that does (DeepEP v2 across nodes: NCCL GIN over EFA) selects
# it in its nodeSelector (or a required node affinity `In ["ready"]`).
GDRDRV_READY_LABEL = {"rl.aws/gdrdrv": "ready"}

# On a pod, cluster-autoscaler 1.33 (utils/drain/drain.go PodSafeToEvictKey) never scales its
# node down while it runs: the SGLang servers carry it, so the rollout pool's autoscaler
# (infra/node_autoscaler.py) removes only nodes that KEDA's scale-down has emptied.
NOT_SAFE_TO_EVICT = {"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"}


class PlacementError(Exception):
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
    # False for a pod whose GPUs talk only over NVLink (a reward model replica inside one node):
    # it asks for no EFA devices or huge pages, leaving them to the pods that cross nodes.
    uses_efa: bool = True

    @property
    def fraction(self) -> float:
        return self.gpus / self.placement.spec.gpus

    @property
    def efa(self) -> int:
        if not self.placement.pool.efa or not self.uses_efa:
            return 0
        return self.placement.spec.efa_interfaces * self.gpus // self.placement.spec.gpus

    @property
    def cpu(self) -> int:
        return math.floor(self.placement.spec.vcpus * NODE_SHARE * self.fraction)

    @property
    def memory_gib(self) -> int:
        # The huge pages come out of the node's memory too; an EFA pool's nodes pre-allocate them
        # for the pods that use EFA, so a pod that does not still finds them taken.
        usable = self.placement.spec.memory_gib * NODE_SHARE * self.fraction
        hugepages = self.efa or (not self.uses_efa and self.placement.pool.efa)
        return math.floor(usable - (EFA_HUGEPAGES_GIB if hugepages else 0))
