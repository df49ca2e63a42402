"""Kueue's objects for the job (the controller and its configuration: infra/queueing.py).

- a ResourceFlavor per pool that runs queued work (train, rollout, cpu): its nodes by the pool
  label, its taints from the environment file;
- a Topology for the train flavor (train_topology_levels). Where EKS labels the train pool's nodes
  with their place in the AWS network (`topology.k8s.aws/network-node-layer-1..3`, top to
  bottom, on the instance types EC2 describes a topology for: p5en, p5, p4d, g6e, ...; EKS user
  guide, "Place distributed AI/ML workloads with network topology labels"), its levels are those
  layers then the node, and the trainer asks for the bottom layer as a *preference*
  (`podset-preferred-topology`): Kueue places the whole JobSet under one layer-3 network node if
  it fits, else one layer-2, else one layer-1, else over as few domains as it can (Kueue v0.19.2,
  apis/kueue/v1beta2/topology_types.go:30-39; site/.../concepts/topology_aware_scheduling.md,
  "User-facing APIs") -- the fewest spines. Not *required*: a 16-node Capacity Block that EC2
  spread over two layer-1 nodes would then never be admitted and the block would burn idle.
  Elsewhere (an instance type without network topology) the levels are the pool then the node
  and the trainer stays required inside one pool domain (its placement group), as before: Kueue
  drops from a TAS flavor every node that lacks a level's label (pkg/util/tas/node.go:21-33,
  NodeMatchesFlavor), so layer levels on unlabelled nodes would admit nothing. Each layout has its
  own Topology name: a Topology's levels are immutable (topology_types.go, TopologySpec CEL rule).
  Only the train flavor is topology-aware: rollout groups need no co-location across replicas,
  and a TAS flavor sees only nodes that exist, so for the autoscaled rollout pool it would wait
  for nodes the Cluster Autoscaler adds only for Pending pods that Kueue has not let in (the
  concepts page: TAS works with the Cluster Autoscaler only through a ProvisioningRequest check);
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
PREFERRED_TOPOLOGY_ANNOTATION = "kueue.x-k8s.io/podset-preferred-topology"
CLUSTER_QUEUE = "rl"
LOCAL_QUEUE = "rl"
POOL_TOPOLOGY = "rl-pools"
NETWORK_TOPOLOGY = "rl-network"
HOSTNAME_LABEL = "kubernetes.io/hostname"
# EKS's labels of a node's network nodes, top (broadest) to bottom (closest).
NETWORK_LAYER_LABELS = tuple(f"topology.k8s.aws/network-node-layer-{layer}" for layer in (1, 2, 3))
# Instance types EC2 describes a three-layer topology for (EC2 user guide, "Prerequisites for
# Amazon EC2 topology"), hence the ones EKS labels: the GPU and HPC types of that list. The
# four-layer types (p6-b200, p6-b300) are left out: their bottom label is layer 4.
NETWORK_TOPOLOGY_INSTANCE_TYPES = frozenset({
    "g6e.xlarge", "g6e.2xlarge", "g6e.4xlarge", "g6e.8xlarge", "g6e.12xlarge", "g6e.16xlarge", "g6e.24xlarge",
    "g6e.48xlarge", "p3dn.24xlarge", "p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge",
    "trn1.2xlarge", "trn1.32xlarge", "trn1n.32xlarge", "trn2.48xlarge",
})
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


def has_network_topology(environment) -> bool:
    """Whether the train pool's nodes carry EKS's network-node-layer labels."""
    return environment.pools.train.instance_type in NETWORK_TOPOLOGY_INSTANCE_TYPES


def train_topology(environment) -> tuple[str, tuple[str, ...]]:
    """(Topology name, its levels top to bottom) for the train flavor."""
    if has_network_topology(environment):
        return NETWORK_TOPOLOGY, (*NETWORK_LAYER_LABELS, HOSTNAME_LABEL)
    return POOL_TOPOLOGY, (POOL_LABEL, HOSTNAME_LABEL)


def trainer_topology_annotations(environment) -> dict[str, str]:
    """On the trainer's pod template: under the fewest network nodes, starting from the bottom
    layer (preferred), or, without network labels, inside one pool domain (required)."""
    if has_network_topology(environment):
        return {PREFERRED_TOPOLOGY_ANNOTATION: NETWORK_LAYER_LABELS[-1]}
    return {REQUIRED_TOPOLOGY_ANNOTATION: POOL_LABEL}


class QueueingChart(cdk8s.Chart):
    def __init__(self, scope: Construct, id: str, ctx: Context) -> None:
        super().__init__(scope, id)  # cluster-scoped objects: no chart namespace
        environment = ctx.environment
        topology, levels = train_topology(environment)
        kueue.TopologyV1Beta2(
            self,
            "topology",
            metadata=cdk8s.ApiObjectMetadata(name=topology),
            spec=kueue.TopologyV1Beta2Spec(levels=[kueue.TopologyV1Beta2SpecLevels(node_label=label) for label in levels]),
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
                    topology_name=topology if pool_name == "train" else None,
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
