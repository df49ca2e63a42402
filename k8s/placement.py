"""A placement (cluster/placement.py) as Kubernetes objects: tolerations and resource requests."""

from __future__ import annotations

from cdk8s_plus_33 import k8s

from cluster.placement import EFA_HUGEPAGES_2MI, GpuShare, Placement


def tolerations(placement: Placement) -> list[k8s.Toleration] | None:
    """Exactly the pool's taints, so a pod lands on its own pool and nowhere else."""
    found = [
        k8s.Toleration(key=taint.key, operator="Equal", value=taint.value, effect=taint.effect)
        for taint in placement.pool.taints
    ]
    return found or None


def gpu_resources(share: GpuShare) -> k8s.ResourceRequirements:
    requests: dict[str, k8s.Quantity] = {
        "cpu": k8s.Quantity.from_number(share.cpu),
        "memory": k8s.Quantity.from_string(f"{share.memory_gib}Gi"),
        "nvidia.com/gpu": k8s.Quantity.from_number(share.gpus),
    }
    if share.efa:
        requests["vpc.amazonaws.com/efa"] = k8s.Quantity.from_number(share.efa)
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
