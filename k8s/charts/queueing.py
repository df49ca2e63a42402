"""Kueue's objects for the job (the controller and its configuration: infra/queueing.py).

- a ResourceFlavor per pool that runs queued work (train, rollout, cpu): its nodes by the pool
  label, its taints from the environment file;
- a Topology of the pools (rl.aws/pool, then the node): every GPU pool is one placement domain
  (the train pool's cluster placement group, or its Capacity Block, whose instances EC2 places
  together), so a trainer that must fit one `rl.aws/pool` domain runs inside one placement group.
  Only the train flavor is topology-aware; rollout groups need no co-location across replicas;
- one ClusterQueue whose quota is each pool's `max_size` nodes (GPUs, vCPUs, memory), admitting
  only from the job namespace; higher priority preempts lower inside it;
- a LocalQueue in the job namespace, and two WorkloadPriorityClasses.

How the workloads map (Kueue v0.19.2's JobSet and LeaderWorkerSet integrations): the trainer
JobSet is ONE Workload with all its pods (admitted all or none: the gang); each LeaderWorkerSet
group (one SGLang replica, leader and workers) is its own Workload at the lower priority. So a
preempted or not-yet-admitted replica removes one server, never the trainer: the trainer never
waits on a particular server (the router routes around it, its tasks go back to the queue), and
a rollout replica can never take the trainer's quota.
"""

from __future__ import annotations

import cdk8s
from constructs import Construct

from spec.environment import POOL_LABEL
from k8s.context import Context
from k8s.imports.io.x_k8s import kueue
from k8s.pods import NAMESPACE

QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_CLASS_LABEL = "kueue.x-k8s.io/priority-class"
REQUIRED_TOPOLOGY_ANNOTATION = "kueue.x-k8s.io/podset-required-topology"
CLUSTER_QUEUE = "rl"
LOCAL_QUEUE = "rl"
TOPOLOGY = "rl-pools"
HOSTNAME_LABEL = "kubernetes.io/hostname"
# Workload priorities: the trainer over the rollout fleet.
TRAINER_WORKLOAD_PRIORITY = ("rl-trainer", 1000)
ROLLOUT_WORKLOAD_PRIORITY = ("rl-rollout", 100)
QUEUED_POOLS = ("train", "rollout", "cpu")
QUOTA_RESOURCES = ("cpu", "memory", "nvidia.com/gpu")


def flavor_name(pool: str) -> str:
    return f"rl-{pool}"


def queue_labels(priority: tuple[str, int]) -> dict[str, str]:
    """The labels that put a JobSet or LeaderWorkerSet in the job's queue at a priority."""
    return {QUEUE_NAME_LABEL: LOCAL_QUEUE, PRIORITY_CLASS_LABEL: priority[0]}


def trainer_topology_annotations() -> dict[str, str]:
    """On the trainer's pod template: all its pods inside one pool domain (one placement group)."""
    return {REQUIRED_TOPOLOGY_ANNOTATION: POOL_LABEL}


class QueueingChart(cdk8s.Chart):
    def __init__(self, scope: Construct, id: str, ctx: Context) -> None:
        super().__init__(scope, id)  # cluster-scoped objects: no chart namespace
        environment = ctx.environment
        kueue.TopologyV1Beta2(
            self,
            "topology",
            metadata=cdk8s.ApiObjectMetadata(name=TOPOLOGY),
            spec=kueue.TopologyV1Beta2Spec(
                levels=[kueue.TopologyV1Beta2SpecLevels(node_label=label) for label in (POOL_LABEL, HOSTNAME_LABEL)]
            ),
        )
        flavors = []
        for pool_name in QUEUED_POOLS:
            pool = getattr(environment.pools, pool_name)
            kueue.ResourceFlavorV1Beta2(
                self,
                f"flavor-{pool_name}",
                metadata=cdk8s.ApiObjectMetadata(name=flavor_name(pool_name)),
                spec=kueue.ResourceFlavorV1Beta2Spec(
                    node_labels={POOL_LABEL: pool_name, **pool.labels},
                    node_taints=[
                        kueue.ResourceFlavorV1Beta2SpecNodeTaints(key=t.key, value=t.value or None, effect=t.effect)
                        for t in pool.taints
                    ]
                    or None,
                    topology_name=TOPOLOGY if pool_name == "train" else None,
                ),
            )
            spec = pool.spec
            quota = {
                "cpu": str(pool.max_size * spec.vcpus),
                "memory": f"{pool.max_size * spec.memory_gib}Gi",
                "nvidia.com/gpu": str(pool.max_size * spec.gpus),
            }
            flavors.append(
                kueue.ClusterQueueV1Beta2SpecResourceGroupsFlavors(
                    name=flavor_name(pool_name),
                    resources=[
                        kueue.ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources(
                            name=name,
                            nominal_quota=kueue.ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota.from_string(quota[name]),
                        )
                        for name in QUOTA_RESOURCES
                    ],
                )
            )
        kueue.ClusterQueueV1Beta2(
            self,
            "cluster-queue",
            metadata=cdk8s.ApiObjectMetadata(name=CLUSTER_QUEUE),
            spec=kueue.ClusterQueueV1Beta2Spec(
                namespace_selector=kueue.ClusterQueueV1Beta2SpecNamespaceSelector(
                    match_labels={"kubernetes.io/metadata.name": NAMESPACE}
                ),
                resource_groups=[
                    kueue.ClusterQueueV1Beta2SpecResourceGroups(covered_resources=list(QUOTA_RESOURCES), flavors=flavors)
                ],
                preemption=kueue.ClusterQueueV1Beta2SpecPreemption(
                    within_cluster_queue=kueue.ClusterQueueV1Beta2SpecPreemptionWithinClusterQueue.LOWER_PRIORITY
                ),
            ),
        )
        kueue.LocalQueueV1Beta2(
            self,
            "local-queue",
            metadata=cdk8s.ApiObjectMetadata(name=LOCAL_QUEUE, namespace=NAMESPACE),
            spec=kueue.LocalQueueV1Beta2Spec(cluster_queue=CLUSTER_QUEUE),
        )
        for name, value in (TRAINER_WORKLOAD_PRIORITY, ROLLOUT_WORKLOAD_PRIORITY):
            kueue.WorkloadPriorityClassV1Beta2(
                self, f"priority-{name}", metadata=cdk8s.ApiObjectMetadata(name=name), value=value
            )
