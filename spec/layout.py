"""The run's parallel layout, resolved: one object built once from the job, the model's shape and
the pools (estimate.layout.resolve chooses what the job leaves `auto`), then read by the trainer,
the charts, the preflight, the planner, the publisher and the exporter.

Trainer (payload.train.parallel, payload.train.pipeline): `pipeline` stages of whole nodes; in
each, expert-parallel groups of `expert_parallel` ranks (inside a node unless asked otherwise)
nested in FSDP shard groups of `shard` ranks, replicated over the rest of the stage (HSDP):

    world = nodes × gpus_per_node;  stage ranks = world / pipeline;  replicas = stage ranks / shard

Rollout servers: one SGLang replica of `tensor_parallel` GPUs (a LeaderWorkerSet group of
tensor_parallel / gpus_per_node pods when it spans nodes), experts over `expert_parallel` ranks
inside it, with SGLang's own rules for which all-to-all backend that takes (moe_a2a_backend).
Every divisibility rule is written here once; a break is a LayoutError naming the job field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# DeepEP v2 topology for a replica spanning nodes ("direct" is single-node NVLink only).
DEEPEP_V2_MULTI_NODE_MODE = "hybrid"


def deepep_needs_gin(expert_parallel: int, gpus_per_node: int) -> bool:
    """Whether DeepEP's expert group reaches past one node. Only then does it need NCCL's GIN
    (GPU-initiated networking over EFA), and the host GDRCopy's gdrdrv and an EFA driver that
    serves GIN; inside a node it moves tokens over NVLink with GIN off (EP_DISABLE_GIN, DeepEP's
    README; csrc/kernels/backend/nccl.cu asks NCCL for GIN contexts only when it is not set).
    Expert groups are consecutive ranks, so a group of at most one node's GPUs stays in it."""
    return expert_parallel > gpus_per_node


class LayoutError(ValueError):
    """A layout that cannot run: one line naming the job field and what is allowed."""


# The job.parallel fields that set the trainer's layout, and the rollout servers'.
TRAINER_SIZES = ("pipeline_parallel_size", "expert_parallel_size", "data_parallel_shard_size",
                 "sync_gradients_every_micro_batch")
SERVER_SIZES = ("rollout_tensor_parallel_size", "rollout_expert_parallel_size")


def auto_sizes(parallel, names: tuple[str, ...] = TRAINER_SIZES + SERVER_SIZES) -> list[str]:
    """The fields of `names` a job's parallel section leaves auto."""
    return [name for name in names if getattr(parallel, name) == "auto"]


@dataclass(frozen=True)
class TrainerLayout:
    nodes: int
    gpus_per_node: int
    expert_parallel: int
    shard: int
    per_step_sync: bool = True  # gradients reduce-scattered once a step (False: every micro-batch)
    activation_checkpointing: bool = True
    pipeline: int = 1
    expert_parallel_across_nodes: bool = False

    @property
    def world(self) -> int:
        return self.nodes * self.gpus_per_node

    @property
    def data_parallel(self) -> int:
        """Ranks of one stage: each trains its own share of the step."""
        return self.world // self.pipeline

    @property
    def replicas(self) -> int:
        return self.data_parallel // self.shard

    @property
    def replica_gpus(self) -> int:
        """The GPUs that hold the model once: one shard group of every stage."""
        return self.pipeline * self.shard

    @property
    def replica_nodes(self) -> int:
        return max(self.replica_gpus // self.gpus_per_node, 1)

    def parallel_sizes(self) -> dict:
        """This layout as job.parallel's fields (TRAINER_SIZES)."""
        return {"pipeline_parallel_size": self.pipeline, "expert_parallel_size": self.expert_parallel,
                "data_parallel_shard_size": self.shard, "sync_gradients_every_micro_batch": not self.per_step_sync}

    def describe(self) -> str:
        sync = "" if self.per_step_sync else ", grads every micro-batch"
        return f"PP {self.pipeline} x EP {self.expert_parallel} x FSDP {self.shard} x {self.replicas} repl{sync}"

    def gpu_multiple(self) -> int:
        """The trainer's world size must be a multiple of this: whole stages of whole nodes, of
        whole EP and shard groups."""
        own = self.pipeline * max(self.expert_parallel, self.shard)
        return math.lcm(own, self.pipeline * self.gpus_per_node) if self.pipeline > 1 else own

    def error(self) -> str | None:
        """Why this layout cannot run (None: it can), naming the job.parallel field to change."""
        pp, ep, shard, gpus, nodes = self.pipeline, self.expert_parallel, self.shard, self.gpus_per_node, self.nodes
        if nodes % pp:
            return f"job.parallel.pipeline_parallel_size {pp} must divide the {nodes} train nodes (each stage is whole nodes)"
        where = f"{nodes // pp} train nodes x {gpus} GPUs a stage" if pp > 1 else f"{nodes} train nodes x {gpus} GPUs"
        if ep > gpus and not self.expert_parallel_across_nodes:
            return (f"job.parallel.expert_parallel_size {ep} is more than one node's {gpus} GPUs: every MoE "
                    f"layer's all-to-all would cross EFA; use at most {gpus}, or set "
                    f"expert_parallel_across_nodes: true with ep_backend: deepep")
        if (ep <= gpus and gpus % ep) or (ep > gpus and ep % gpus):
            return f"job.parallel.expert_parallel_size {ep} must divide, or be a multiple of, one node's {gpus} GPUs"
        if (shard <= gpus and gpus % shard) or (shard > gpus and shard % gpus):
            return f"job.parallel.data_parallel_shard_size {shard} must divide, or be a multiple of, one node's {gpus} GPUs"
        if shard % ep:
            return f"job.parallel.data_parallel_shard_size {shard} must be a multiple of expert_parallel_size {ep}"
        if self.data_parallel % shard:
            ranks = "the trainer's world size" if pp == 1 else "a stage's ranks"
            return f"job.parallel.data_parallel_shard_size {shard} must divide {ranks} {self.data_parallel} ({where})"
        return None


def moe_a2a_backend(tensor_parallel: int, expert_parallel: int, nodes: int) -> str:
    """SGLang's MoE all-to-all backend for a replica of `nodes` nodes; raises on a layout SGLang
    would reject or silently change (rules of sglang 0.5.23's srt/arg_groups/overrides.py and
    srt/model_executor/model_runner_components/moe_ep_setup.py):
    - expert parallelism inside one node: SGLang's default (`none`): experts split over the
      NVLink domain, their tokens gathered/reduced with NCCL; DeepEP would add buffers and a second
      communication path for no bandwidth gain;
    - across nodes: `deepep_v2` (DeepEP v2's ElasticBuffer, the DeepEP the trainer uses) with its
      topology set to `hybrid`; SGLang forces ep_size = tp_size for every EP-spanning backend."""
    if tensor_parallel % expert_parallel:
        raise LayoutError(
            f"job.parallel.rollout_expert_parallel_size {expert_parallel} must divide rollout_tensor_parallel_size "
            f"{tensor_parallel} (SGLang splits the MoE's tensor-parallel group into expert-parallel ranks)"
        )
    if expert_parallel > 1 and nodes > 1:
        if expert_parallel != tensor_parallel:
            raise LayoutError(
                f"job.parallel.rollout_expert_parallel_size {expert_parallel} must equal rollout_tensor_parallel_size "
                f"{tensor_parallel} when a replica spans {nodes} nodes (SGLang's deepep_v2 backend forces "
                "ep_size = tp_size)"
            )
        return "deepep_v2"
    return "none"


@dataclass(frozen=True)
class ServerLayout:
    """One SGLang rollout replica."""

    tensor_parallel: int
    expert_parallel: int
    gpus_per_node: int

    @property
    def nodes(self) -> int:
        """Nodes one replica spans (LeaderWorkerSet group size)."""
        return max(self.tensor_parallel // self.gpus_per_node, 1)

    @property
    def replicas_per_node(self) -> int:
        return max(self.gpus_per_node // self.tensor_parallel, 1)

    def error(self) -> str | None:
        tp, gpus = self.tensor_parallel, self.gpus_per_node
        if (tp >= gpus and tp % gpus) or (tp < gpus and gpus % tp):
            return (f"job.parallel.rollout_tensor_parallel_size {tp} must divide {gpus} (the GPUs of one rollout node) "
                    "or be a multiple of it")
        try:
            self.moe_a2a_backend
        except LayoutError as exc:
            return str(exc)
        return None

    @property
    def moe_a2a_backend(self) -> str:
        return moe_a2a_backend(self.tensor_parallel, self.expert_parallel, self.nodes)


@dataclass(frozen=True)
class RunLayout:
    """The trainer's and the rollout servers' layout for the job's model, as every process runs it."""

    model: str  # the model's name (its release, or its folder's)
    trainer: TrainerLayout
    servers: ServerLayout
    ep_backend: str  # job.parallel.ep_backend: auto | deepep | all_to_all | local

    @property
    def trainer_uses_deepep(self) -> bool:
        """Whether the trainer's preflight must find DeepEP: EP over more than one rank with the
        deepep backend asked for."""
        return self.ep_backend == "deepep" and self.trainer.expert_parallel > 1

    @property
    def trainer_deepep_needs_gin(self) -> bool:
        """Whether the trainer's pods need DeepEP's host (GDRCopy's gdrdrv, an EFA driver that
        serves GIN): DeepEP asked for over expert groups that cross nodes (deepep_needs_gin)."""
        return self.trainer_uses_deepep and deepep_needs_gin(self.trainer.expert_parallel, self.trainer.gpus_per_node)


def trainer_layout_of(parallel, nodes: int, gpus_per_node: int, activation_checkpointing: bool = True) -> TrainerLayout:
    """The trainer layout a job's `parallel` section sets (every field resolved: numbers, not
    auto; estimate.layout.resolve fills them)."""
    if unresolved := auto_sizes(parallel, TRAINER_SIZES):
        raise LayoutError(f"job.parallel.{unresolved[0]} is auto: the layout is chosen where the pools are known "
                          "(make manifests renders it into the pods' job config; payload plan prints it)")
    return TrainerLayout(nodes, gpus_per_node, parallel.expert_parallel_size, parallel.data_parallel_shard_size,
                         not parallel.sync_gradients_every_micro_batch, activation_checkpointing,
                         parallel.pipeline_parallel_size, parallel.expert_parallel_across_nodes)


def server_layout_of(parallel, gpus_per_node: int) -> ServerLayout:
    if unresolved := auto_sizes(parallel, SERVER_SIZES):
        raise LayoutError(f"job.parallel.{unresolved[0]} is auto: the layout is chosen where the pools are known "
                          "(make manifests renders it into the pods' job config; payload plan prints it)")
    return ServerLayout(parallel.rollout_tensor_parallel_size, parallel.rollout_expert_parallel_size, gpus_per_node)
