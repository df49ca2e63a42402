"""The trainer's world: pipeline stages of whole nodes (payload.train.pipeline), and in each
expert parallelism inside a node and HSDP for everything (FSDP2).

With PP stages, each is W / PP consecutive ranks laid out as below (W read as W / PP); every
mesh and group here is the stage's, except `replica_group` (one replica of every stage: the
global gradient norm) and `pp_group` (one rank of every stage: the pipeline's sends).
W ranks, EP size P, FSDP shard size S (P divides S, S divides W), R = W / S replicas:

    ranks  = arange(W).reshape(R, S // P, P)      rank = replica · S + edp_shard · P + ep_rank
    ep        the P ranks of a row split every MoE layer's experts (payload.ep); with P ≤ GPUs
              per node and S a node, the token all-to-all never leaves NVLink
    dense     mesh (dp_replicate R, dp_shard S): every non-expert parameter is sharded over the
              S ranks of its replica (all-gather / reduce-scatter on NVLink) and replicated
              over the R replicas (one gradient all-reduce per step crosses EFA): HSDP
    experts   mesh (dp_replicate R, edp_shard S / P): that EP rank's experts, HSDP likewise
    R = 1     plain FSDP2 (1-D meshes); S > GPUs per node is FSDP across nodes, for models
              whose state does not fit one node (README: Qwen3-235B-A22B)

This is torchtitan's layout (ParallelDims: dp_replicate × dp_shard, EP borrowed from dp_shard,
experts sharded over dp_shard / ep). Gradients are *summed* over ranks (the loss is already
each rank's share of the global mean, see loss.py). Inside one replica every gradient element
lives on exactly one rank (FSDP shards, EP slices), and the replicas hold equal copies after
HSDP's all-reduce, so the global norm is one all-reduce of local sums of squares over the
replica's S ranks. Checkpoints see the experts as one global [E, ...] tensor laid out over an
(ep, edp_shard, dp_replicate) mesh, so DCP stores each expert once and under one name.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import DeviceMesh, init_device_mesh
from torch.distributed.fsdp import FSDPModule, MixedPrecisionPolicy, fully_shard
from torch.distributed.tensor import DTensor, Replicate, Shard
from torch.distributed.tensor._utils import compute_local_shape_and_global_offset

from payload import ep
from estimate.footprint import device_memory_gb
from estimate.layout import TrainerChoice, choose_trainer
from payload.common.ports import free_port
from payload.common.torchrun import local_world_size
from spec.hardware import node_of_device
from spec.layout import TRAINER_SIZES, TrainerLayout, auto_sizes, trainer_layout_of
from spec.model_shape import Qwen3MoeConfig
from payload.model import Qwen3MoeForCausalLM
from payload.model.checkpoint import EXPERT_PARAM


class ParallelConfigError(ValueError):
    """A world layout that cannot work (EP size vs world size vs experts): one line."""


@dataclass
class World:
    """This rank's place in its layout (spec.layout.TrainerLayout: the sizes and their arithmetic)
    and the process groups and meshes built for it."""

    rank: int
    layout: TrainerLayout
    device: torch.device
    dense_mesh: DeviceMesh  # (dp_replicate, dp_shard), or (dp_shard,) when R = 1: this stage's ranks
    expert_dp_mesh: DeviceMesh  # (dp_replicate, edp_shard), or (edp_shard,) when R = 1
    ep_group: dist.ProcessGroup | None
    expert_mesh: DeviceMesh  # (ep, edp_shard[, dp_replicate]): the experts' global layout, for checkpoints
    # The ranks that together hold every gradient element once: this replica's S ranks of every
    # pipeline stage (the global gradient norm).
    replica_group: dist.ProcessGroup | None
    # Every replica's ranks (its S ranks of every stage): each list holds the model once.
    replica_ranks: list[list[int]] | None = None
    pp_group: dist.ProcessGroup | None = None  # this rank's pipeline: one rank of every stage
    stage_group: dist.ProcessGroup | None = None  # this stage's W / PP ranks (its data-parallel ranks)

    @property
    def world_size(self) -> int:
        return self.layout.world

    @property
    def ep_size(self) -> int:
        return self.layout.expert_parallel

    @property
    def shard_size(self) -> int:
        return self.layout.shard

    @property
    def pp_size(self) -> int:
        return self.layout.pipeline

    @property
    def stage_world_size(self) -> int:
        """Ranks of one pipeline stage: the data-parallel width (each holds its own samples)."""
        return self.layout.data_parallel

    @property
    def replicas(self) -> int:
        return self.layout.replicas

    @property
    def ep_rank(self) -> int:
        return self.rank % self.ep_size

    @property
    def pp_rank(self) -> int:
        return self.rank // self.stage_world_size

    @property
    def dp_rank(self) -> int:
        """Which data-parallel share this rank trains on (every stage of a pipeline the same)."""
        return self.rank % self.stage_world_size

    @property
    def is_main(self) -> bool:
        return self.rank == 0


def job_layout(job) -> TrainerChoice:
    """The trainer layout this process runs, with the publish bucket its memory was counted with:
    the job's sizes as make manifests rendered them, on the nodes torchrun started (WORLD_SIZE /
    LOCAL_WORLD_SIZE). A job that leaves sizes auto (`payload train` on its own) gets make
    manifests' own choice (estimate.layout) for these nodes; memory is weighed only on a GPU."""
    node_ranks, world_size = local_world_size(), int(os.environ.get("WORLD_SIZE", "1"))
    nodes, gpus_per_node = max(world_size // node_ranks, 1), min(node_ranks, world_size)
    if not auto_sizes(job.parallel, TRAINER_SIZES):
        return TrainerChoice(trainer_layout_of(job.parallel, nodes, gpus_per_node, job.model.activation_checkpointing),
                             job.rollout.publish_bucket_bytes >> 20)
    on_gpu = torch.cuda.is_available()
    node = node_of_device(torch.cuda.get_device_name(0) if on_gpu else None)
    memory = device_memory_gb(torch.cuda.get_device_properties(0).total_memory) if on_gpu else float("inf")
    return choose_trainer(job, Qwen3MoeConfig.from_pretrained(job.model.path), job.model.path, nodes, gpus_per_node, node,
                          memory)


def init_world(layout: TrainerLayout, timeout: timedelta | None = None) -> World:
    """Join (or, run outside torchrun, create) the default process group and build the meshes
    of `layout` (spec.layout: `pipeline` stages of W / PP consecutive ranks each, whole nodes;
    inside a stage, expert groups in shard groups, replicated). torchrun sets RANK / WORLD_SIZE /
    LOCAL_RANK / MASTER_ADDR / MASTER_PORT; NCCL on GPUs, gloo on CPU. `timeout`: every
    collective's (default torch's 10 minutes); the trainer derives it from its stall timeout
    (estimate/costs.py Timeouts)."""
    if not dist.is_initialized():
        if "RANK" not in os.environ:
            port = free_port()
            os.environ.update(RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        if torch.cuda.is_available():
            device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
            torch.cuda.set_device(device)
            # Bound to its device, the default group creates its NCCL communicator now and every
            # group made from it its own at creation: DeepEP reuses those communicators natively
            # (payload.ep.deepep.bind_communicator), and a lazily created one is not there yet.
            dist.init_process_group("nccl", timeout=timeout, device_id=device)
        else:
            dist.init_process_group("gloo", timeout=timeout)
    rank, world_size = dist.get_rank(), dist.get_world_size()
    if world_size != layout.world:
        raise ParallelConfigError(f"the layout ({layout.describe()}) is for {layout.nodes} nodes x {layout.gpus_per_node} "
                                  f"ranks, {layout.world} in all; this world has {world_size}")
    if error := layout.error():
        raise ParallelConfigError(error)
    pp_size, ep_size, shard = layout.pipeline, layout.expert_parallel, layout.shard
    stage_size = layout.data_parallel
    device_type = "cuda" if torch.cuda.is_available() else "cpu"
    device = torch.device(device_type, torch.cuda.current_device()) if device_type == "cuda" else torch.device("cpu")
    replicas = layout.replicas
    ranks = torch.arange(world_size).reshape(pp_size, replicas, shard // ep_size, ep_size)
    grid = init_device_mesh(device_type, tuple(ranks.shape), mesh_dim_names=("pp", "dp_replicate", "edp_shard", "ep"))
    stage = rank // stage_size
    # Every rank builds every stage's meshes (creating a process group is collective over the
    # world) and keeps its own stage's.
    meshes = [_stage_meshes(device_type, ranks[s], replicas, shard) for s in range(pp_size)]
    dense_mesh, expert_mesh = meshes[stage]
    expert_dp_mesh = grid["edp_shard"] if replicas == 1 else grid["dp_replicate", "edp_shard"]
    replica_group = stage_group = None
    if world_size > 1:
        # Gradient norm: replica r of every stage. Stage groups: the loss's data-parallel ranks.
        for r in range(replicas):
            group = dist.new_group(ranks[:, r].flatten().tolist())
            if r == (rank % stage_size) // shard:
                replica_group = group
        for s in range(pp_size):
            group = dist.new_group(ranks[s].flatten().tolist()) if pp_size > 1 else dist.group.WORLD
            if s == stage:
                stage_group = group
    return World(
        rank=rank,
        layout=layout,
        device=device,
        dense_mesh=dense_mesh,
        expert_dp_mesh=expert_dp_mesh,
        ep_group=grid["ep"].get_group() if ep_size > 1 else None,
        expert_mesh=expert_mesh,
        replica_group=replica_group,
        replica_ranks=[ranks[:, r].flatten().tolist() for r in range(replicas)],
        pp_group=grid["pp"].get_group() if pp_size > 1 else None,
        stage_group=stage_group,
    )


def _stage_meshes(device_type: str, ranks: torch.Tensor, replicas: int, shard: int) -> tuple[DeviceMesh, DeviceMesh]:
    """(dense, expert global) meshes of one stage's ranks [R, S/P, P]."""
    if replicas == 1:
        return (DeviceMesh(device_type, ranks.reshape(shard), mesh_dim_names=("dp_shard",)),
                DeviceMesh(device_type, ranks[0].T, mesh_dim_names=("ep", "edp_shard")))
    return (DeviceMesh(device_type, ranks.reshape(replicas, shard), mesh_dim_names=("dp_replicate", "dp_shard")),
            DeviceMesh(device_type, ranks.permute(2, 1, 0), mesh_dim_names=("ep", "edp_shard", "dp_replicate")))


RESHARD_POLICIES = ("default", "always", "never")


def parallelize(
    model: Qwen3MoeForCausalLM,
    world: World,
    ep_backend: str | ep.Config = "auto",
    compute_dtype: torch.dtype | None = None,
    compile_layers: bool = False,
    reshard_after_forward: str = "default",
) -> Qwen3MoeForCausalLM:
    """Shard `model` (fp32 master weights, or on the meta device: see payload.train.loading;
    experts whole, or already split over the world's EP group) in place: experts over EP then
    HSDP over (dp_replicate, edp_shard), the rest HSDP over (dp_replicate, dp_shard).
    `compute_dtype` (e.g. bf16) is what forward and backward run in; gradients are reduced in
    fp32. `compile_layers`: torch.compile each decoder layer before sharding (as torchtitan
    does: per block, so FSDP2's hooks stay outside the graphs), which fuses the norms, rotary
    embedding, routing and SwiGLU elementwise passes.

    `reshard_after_forward` (torchtitan's policy names): "always" frees every layer's gathered
    bf16 parameters after its forward and gathers them again for its backward; "never" holds
    them from forward to backward (2 B per parameter more, one gather a step fewer);
    "default" reshards every decoder layer but the last, whose backward comes right after its
    forward (torchtitan's default: resharding it would only gather it again at once; the root's
    embedding and LM head are never resharded by FSDP2 either). The setting is each module's
    `fsdp_reshard_after_forward`, which the trainer's gradient accumulation keeps
    (payload.train.step)."""
    if reshard_after_forward not in RESHARD_POLICIES:
        raise ParallelConfigError(
            f"reshard_after_forward {reshard_after_forward!r} must be one of {', '.join(RESHARD_POLICIES)}"
        )
    if model.config.num_experts % world.ep_size:
        raise ParallelConfigError(
            f"parallel.expert_parallel_size {world.ep_size} must divide the model's num_experts {model.config.num_experts}"
        )
    sharded = {block.dispatcher.ep_size for block in model.moe_blocks}
    if sharded == {1} and world.ep_size > 1:
        # A whole ep.Config (the trainer's: ep.Config.for_job sizes DeepEP's buffer), or a backend name.
        config = ep_backend if isinstance(ep_backend, ep.Config) else ep.Config(backend=ep_backend)
        ep.apply_expert_parallel(model, world.ep_group, config)
    elif sharded - {1, world.ep_size}:
        raise ParallelConfigError(f"the model's experts are sharded {sharded} ways, the world's EP size is {world.ep_size}")
    mp = MixedPrecisionPolicy(param_dtype=compute_dtype, reduce_dtype=torch.float32)
    layers = list(model.model.layers.values() if isinstance(model.model.layers, torch.nn.ModuleDict)
                  else model.model.layers)  # a pipeline stage's are a ModuleDict (payload.train.pipeline)
    if compile_layers:
        for layer in layers:
            layer.compile()
    for index, layer in enumerate(layers):
        reshard = reshard_after_forward == "always" or (reshard_after_forward == "default" and index < len(layers) - 1)
        modules = ([layer.mlp.experts] if layer.is_moe else []) + [layer]
        for module in modules:
            mesh = world.expert_dp_mesh if module is not layer else world.dense_mesh
            fully_shard(module, mesh=mesh, mp_policy=mp, reshard_after_forward=reshard)
            module.fsdp_reshard_after_forward = reshard
    fully_shard(model, mesh=world.dense_mesh, mp_policy=mp)
    for module in model.modules():
        if isinstance(module, FSDPModule):
            # Sum, never average: the loss shares already carry the global normalisation.
            module.set_gradient_divide_factor(1.0)
            if dist.get_backend() == "gloo":  # gloo has no PREMUL_SUM (NCCL's way to apply the factor)
                module.set_force_sum_reduction_for_comms(True)
    return model


def _local(t: torch.Tensor) -> torch.Tensor:
    return t.to_local() if isinstance(t, DTensor) else t


@torch.no_grad()
def clip_grad_norm_(parameters, max_norm: float, group: dist.ProcessGroup | None = None) -> torch.Tensor:
    """Scale gradients so that their global L2 norm is at most `max_norm`; returns the norm
    before clipping. Every gradient element must live on exactly one rank of `group` (true of a
    `parallelize`d model and its World.replica_group: FSDP shards, EP partitions; the other
    replicas hold equal copies); `group=None` for one process."""
    grads = [_local(p.grad) for p in parameters if p.grad is not None]
    device = grads[0].device if grads else torch.device("cpu")
    sumsq = torch.zeros((), dtype=torch.float32, device=device)
    for g in grads:
        sumsq += g.detach().float().pow(2).sum()
    if group is not None and dist.get_world_size(group) > 1:
        dist.all_reduce(sumsq, group=group)
    norm = sumsq.sqrt()
    scale = (max_norm / (norm + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(scale.to(g.dtype))
    return norm


def expert_params(model: torch.nn.Module) -> dict[str, torch.nn.Parameter]:
    return {name: p for name, p in model.named_parameters() if EXPERT_PARAM.match(name)}


def global_expert_view(local: torch.Tensor, world: World, num_experts: int) -> torch.Tensor:
    """This rank's piece of an expert tensor (FSDP shard of its EP slice) as a DTensor of the
    global [E, ...] tensor over the (ep, edp_shard[, dp_replicate]) mesh; shares storage with
    `local`."""
    local = _local(local)
    if world.stage_world_size == 1:
        return local
    shape = (num_experts, *local.shape[1:])
    stride = torch.empty(shape, device="meta").stride()
    placements = [Shard(0), Shard(0)] + [Replicate()] * (world.expert_mesh.ndim - 2)
    return DTensor.from_local(local, world.expert_mesh, placements, run_check=False, shape=shape, stride=stride)




def _own_rows(view: torch.Tensor) -> tuple[torch.Tensor, int]:
    """(this rank's local tensor, the global index of its first row): FSDP and EP shard dim 0
    only, so a rank's part of a parameter is a run of whole rows."""
    if not isinstance(view, DTensor):
        return view, 0
    if any(isinstance(p, Shard) and p.dim != 0 for p in view.placements):
        raise ValueError(f"a parameter sharded on dim != 0 ({view.placements}) cannot be published by rows")
    _, offset = compute_local_shape_and_global_offset(view.shape, view.device_mesh, view.placements)
    return view.to_local(), offset[0] if offset else 0


@torch.no_grad()
def own_hf_rows(model, world: World, dtype: torch.dtype | None = None
                ) -> Iterator[tuple[str, tuple[int, ...], int, torch.Tensor]]:
    """This rank's own rows of every HF-named tensor, as (name, full shape, first row, rows),
    with no communication: what payload/sync/fanout.py stages (the trainer's whole publish
    stall is their device-to-host copy). Over one replica's ranks (World.replica_ranks) every
    row of every tensor comes exactly once; an expert is whole on the rank that holds it."""
    tied = model.config.tie_word_embeddings
    size = model.config.moe_intermediate_size
    for name, param in model.named_parameters():
        if tied and name == "lm_head.weight":
            continue
        match = EXPERT_PARAM.match(name)
        view = global_expert_view(param, world, model.config.num_experts) if match else param
        local, first = _own_rows(view.detach())
        local = local.to(dtype) if dtype else local
        if not match:
            yield name, tuple(view.shape), first, local
            continue
        prefix, kind = match.groups()
        for i, tensor in enumerate(local):
            e = first + i
            if kind == "gate_up_proj":
                gate, up = tensor.split(size, dim=0)
                yield f"{prefix}.{e}.gate_proj.weight", tuple(gate.shape), 0, gate
                yield f"{prefix}.{e}.up_proj.weight", tuple(up.shape), 0, up
            else:
                yield f"{prefix}.{e}.down_proj.weight", tuple(tensor.shape), 0, tensor


def _stage_leader(world: World) -> int:
    return world.pp_rank * world.stage_world_size


def _gather_experts(local: torch.Tensor, world: World) -> torch.Tensor | None:
    """The full [E, ...] expert tensor on the stage's first rank (None elsewhere): only that
    rank's EP group gathers; the other groups' leaders would receive it only to drop it."""
    full_local = local.full_tensor() if isinstance(local, DTensor) else local
    if world.ep_group is None:
        return full_local
    ep_ranks = dist.get_process_group_ranks(world.ep_group)
    leader = _stage_leader(world)
    if leader not in ep_ranks:
        return None
    pieces = [torch.empty_like(full_local) for _ in ep_ranks] if world.rank == leader else None
    dist.gather(full_local.contiguous(), pieces, dst=leader, group=world.ep_group)
    return torch.cat(pieces) if pieces is not None else None


def _stage_hf_tensors(model, world: World, dtype: torch.dtype | None) -> Iterator[tuple[str, torch.Tensor]]:
    """This stage's weights as full HF-named tensors on the stage's first rank (collective
    over the stage's ranks)."""
    tied = model.config.tie_word_embeddings
    leads = world.rank == _stage_leader(world)
    for name, param in model.named_parameters():
        match = EXPERT_PARAM.match(name)
        local = param.detach().to(dtype) if dtype else param
        if not match:
            full = local.full_tensor() if isinstance(local, DTensor) else local
            if leads and not (tied and name == "lm_head.weight"):
                yield name, full
            continue
        gathered = _gather_experts(local, world)
        if not leads:
            continue
        prefix, kind = match.groups()
        size = model.config.moe_intermediate_size
        for e, tensor in enumerate(gathered):
            if kind == "gate_up_proj":
                gate, up = tensor.split(size, dim=0)
                yield f"{prefix}.{e}.gate_proj.weight", gate
                yield f"{prefix}.{e}.up_proj.weight", up
            else:
                yield f"{prefix}.{e}.down_proj.weight", tensor


@torch.no_grad()
def full_hf_tensors(model, world: World, dtype: torch.dtype | None = None) -> Iterator[tuple[str, torch.Tensor]]:
    """Every weight as full, HF-named tensors (one at a time, for publishing and export).

    Collective: every rank must drain the iterator; only rank 0 receives the tensors. With
    `dtype` each rank casts its shard before the gather, so no full-precision tensor is ever
    assembled and the gather moves half the bytes (bf16). Pipelined: each stage gathers its
    own layers onto its first rank (its own nodes' NVLink), which streams them to rank 0 in
    stage order, one tensor at a time (Qwen3-235B-A22B at PP 8: 7/8 of its 470 GB into node 0
    over EFA, ~9 s at 50 GB/s, beside the publish broadcast's 12.5 s)."""
    if world.pp_size == 1:
        yield from _stage_hf_tensors(model, world, dtype)
        return
    for stage in range(world.pp_size):
        leader = stage * world.stage_world_size
        if world.pp_rank == stage:
            for name, tensor in _stage_hf_tensors(model, world, dtype):
                if world.is_main:
                    yield name, tensor
                else:  # this stage's leader
                    dist.send_object_list([(name, tuple(tensor.shape), tensor.dtype)], dst=0)
                    dist.send(tensor.contiguous(), dst=0)
            if world.rank == leader and stage > 0:
                dist.send_object_list([None], dst=0)
        elif world.is_main:
            while True:
                header = [None]
                dist.recv_object_list(header, src=leader)
                if header[0] is None:
                    break
                name, shape, tensor_dtype = header[0]
                tensor = torch.empty(shape, dtype=tensor_dtype, device=world.device)
                dist.recv(tensor, src=leader)
                yield name, tensor
