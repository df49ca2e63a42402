"""How the job's parallelism maps onto the environment's GPU pools.

The trainer runs one pod per `train` node (torchrun, all of the node's GPUs); the rollout
servers run one SGLang replica per `tp` GPUs: a LeaderWorkerSet group of `tp / gpus per node`
pods when a replica spans nodes, or several replicas per node when it is smaller than one.
The job's own reward tier (job.rewards.model without a url) takes whole rollout nodes first:
one SGLang replica per `tensor_parallel_size` GPUs inside a node, the rollout servers on the rest.
Mismatches are user errors, reported with the field to change.
"""

from __future__ import annotations

from dataclasses import dataclass

from spec.environment import Environment
from cluster.placement import GpuShare, PlacementError, Placement
from spec.job import RewardModelSection


@dataclass(frozen=True)
class TrainerPods:
    share: GpuShare
    nodes: int

    @property
    def world_size(self) -> int:
        return self.nodes * self.share.gpus

    @property
    def pods_per_node(self) -> int:
        return self.share.placement.spec.gpus // self.share.gpus

    @classmethod
    def of(cls, environment: Environment) -> "TrainerPods":
        placement = Placement.of(environment, "train")
        nodes = placement.pool.desired_size
        if nodes == 0:
            raise PlacementError("pools.train.desired_size is 0: the trainer needs at least one node")
        # The parallel layout itself (EP, HSDP shard size vs the pool) is validated with the
        # environment (job.ParallelSection.layout_error).
        return cls(GpuShare(placement, placement.spec.gpus), nodes)


@dataclass(frozen=True)
class RolloutPods:
    share: GpuShare  # one pod's GPUs
    group_size: int  # pods per SGLang replica (LeaderWorkerSet size)
    replicas: int  # SGLang replicas (LeaderWorkerSet replicas)
    tensor_parallel: int
    expert_parallel: int

    @property
    def pods_per_node(self) -> int:
        """SGLang pods sharing one node: gpus / tp below one node's GPUs, else one."""
        return self.share.placement.spec.gpus // self.share.gpus

    @classmethod
    def of(cls, environment: Environment) -> "RolloutPods":
        placement = Placement.of(environment, "rollout")
        gpus = placement.spec.gpus
        reward_nodes = RewardPods.nodes_of(environment)
        nodes = placement.pool.desired_size - reward_nodes
        servers = environment.layout.servers  # resolved for the job's model (estimate.layout)
        tp, ep = servers.tensor_parallel, servers.expert_parallel
        if placement.pool.desired_size == 0:
            raise PlacementError("pools.rollout.desired_size is 0: the rollout servers need at least one node")
        if nodes <= 0:
            raise PlacementError(
                f"pools.rollout.desired_size {placement.pool.desired_size} leaves no node for the rollout servers: "
                f"the reward tier (job.rewards.model) takes {reward_nodes}"
            )
        # The replica's own rules (TP against a node's GPUs, SGLang's EP rules) are spec.layout's,
        # checked when the environment was loaded; what is left is how replicas fill the pool.
        if nodes % servers.nodes:
            raise PlacementError(
                f"pools.rollout.desired_size {nodes} must be a multiple of {servers.nodes} "
                f"(nodes per SGLang replica at rollout_tensor_parallel_size {tp})"
            )
        share = GpuShare(placement, min(tp, gpus))
        return cls(share, servers.nodes, nodes // servers.nodes * servers.replicas_per_node, tp, ep)


@dataclass(frozen=True)
class RewardPods:
    """The job's own reward servers (job.rewards.model without a url): `replicas` SGLang
    replicas of `share.gpus` GPUs each, inside one rollout node (a reward model is a dense
    model of a few billion parameters: tensor parallel over NVLink, no EFA)."""

    share: GpuShare
    replicas: int
    model: RewardModelSection

    @property
    def pods_per_node(self) -> int:
        return self.share.placement.spec.gpus // self.share.gpus

    @property
    def nodes(self) -> int:
        """Whole rollout nodes the tier takes (the rollout servers get the others)."""
        return self.model.nodes(self.share.placement.spec.gpus)

    @classmethod
    def of(cls, environment: Environment) -> "RewardPods | None":
        model = environment.job.rewards.model
        if model is None or model.url is not None:
            return None  # verifiers only, or a reward server shared with other jobs
        placement = Placement.of(environment, "rollout")
        gpus, tp = placement.spec.gpus, model.tensor_parallel_size
        if gpus % tp:
            raise PlacementError(
                f"job.rewards.model.tensor_parallel_size {tp} must divide {gpus} "
                f"(the GPUs of one {placement.pool.instance_type}: a reward replica stays inside one node)"
            )
        return cls(GpuShare(placement, tp, uses_efa=False), model.replicas, model)

    @classmethod
    def nodes_of(cls, environment: Environment) -> int:
        layout = cls.of(environment)
        return 0 if layout is None else layout.nodes


def gpu_pods_per_node(environment: Environment) -> dict[str, int]:
    """GPU pool -> pods the charts place on one of its nodes: what the nodes' huge pages are
    sized from (infra/gpu_node_group.py), so pods and nodes cannot disagree."""
    return {"train": TrainerPods.of(environment).pods_per_node, "rollout": RolloutPods.of(environment).pods_per_node}
