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


HOSTNAME_LABEL = "kubernetes.io/hostname"
# The weight a preferred term may have at most: it outweighs the spread of LeastAllocated.
PACK_WEIGHT = 100


def _component_term(component: str) -> k8s.PodAffinityTerm:
    return k8s.PodAffinityTerm(
        label_selector=k8s.LabelSelector(match_labels={"app.kubernetes.io/name": component}),
        topology_key=HOSTNAME_LABEL,
    )


def whole_nodes_affinity(component: str, *, never_with: str, pack: bool) -> k8s.Affinity:
    """A tier that keeps whole nodes of a pool it shares with another tier (cluster.gpu_pods:
    the reward tier takes whole rollout nodes, the rollout servers the rest).

    - Never on a node running a pod of `never_with` (required anti-affinity by hostname). The
      scheduler holds a pod's required anti-affinity against the pods that would join it as
      well (InterPodAffinity: existing pods' anti-affinity terms), so one side would do;
      both sides carry it so each manifest says it.
    - `pack` (several of this tier's pods fit a node): preferred affinity to the tier's own
      pods by hostname, weighted 100. kube-scheduler's default scoring weighs InterPodAffinity
      2 against NodeResourcesFit's LeastAllocated 1, which scores only CPU and memory (a
      GPU pod's small share of both), so a node already running the tier wins over an empty
      one: the tier fills its nodes instead of spreading a partial one onto every node, which
      would leave the other tier no whole node and the pool (capped) no room to add one.
    """
    return k8s.Affinity(
        pod_anti_affinity=k8s.PodAntiAffinity(required_during_scheduling_ignored_during_execution=[_component_term(never_with)]),
        pod_affinity=k8s.PodAffinity(
            preferred_during_scheduling_ignored_during_execution=[
                k8s.WeightedPodAffinityTerm(weight=PACK_WEIGHT, pod_affinity_term=_component_term(component))
            ]
        ) if pack else None,
    )
