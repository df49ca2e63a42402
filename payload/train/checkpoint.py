"""Distributed checkpoints (torch.distributed.checkpoint) and the experience replay log.

    <directory>/step-00000100/        a complete checkpoint (DCP files + .metadata)
    <directory>/step-00000150.partial/ one being written, or left by a crash: never loaded
    <directory>/replay/step-00000101.groups   the groups step 101 trained on

A checkpoint holds the model and optimizer shards, every rank's RNG state, the trainer's
counters (step, policy version, groups consumed) and the layout that wrote it. It is written
under `.partial` and renamed once DCP has written its metadata, so `latest()` can never pick a
torn one.

Layout-free. Every tensor is stored under a name of the whole model and its global shape, so a
checkpoint resumes at another pipeline size, EP size, shard size or node count, and under
another stage split (which moves with the job's token lengths): DCP reads each rank's piece of
each global tensor from whatever pieces were written (resharding), and a stage asks only for
its own layers' names.

    model.<fqn>                    the parameter (pipeline stages keep the whole model's names;
                                   experts one global [E, ...] tensor, parallel.py)
    optimizer.state.<fqn>.<name>   Adam's exp_avg / exp_avg_sq / step for that parameter: the
                                   keys of torch's flatten_optimizer_state_dict (state_dict.py)
    optimizer.param_groups.<i>.<h> group i's hyperparameters, stored once (no parameter ids:
                                   which parameters a group holds is the optimizer's own
                                   construction, build_optimizer: one group)
    counters.*, layout.*           the step and data position; the layout that wrote it
    rng_cpu_rank<r>, rng_cuda_rank<r>  rank r's RNG states

Param groups were the layout-bound part: DCP keeps one copy of a non-tensor value per key, so
keyed by group index the stages' groups collided, and keyed per stage (the previous format,
`optimizer.param_groups_stage<k>`) a world with fewer stages asked for a key no stage wrote.
Every stage's group i must have the same hyperparameters (save checks it); torch's and
torchtitan's flat format instead repeats them under every parameter's name.

RNG states are per rank and restored only at the layout that wrote them (a resume at the same
layout continues bitwise). At another layout a rank's stream has no counterpart (rank 5 of PP 2
is not rank 5 of PP 1, and a larger world has ranks no one saved), so every rank reseeds
deterministically from (step, rank): two resumes of one checkpoint at one layout are alike.
Nothing in a training step draws random numbers today (no dropout; sampling is the rollout
servers'), so the reseed changes no result; the state is kept for whatever does later.

Checkpoints of the previous format (param groups per stage) still load, at any layout: their
tensors have the keys above, and every stage's groups held the same hyperparameters.

Replicas. Under HSDP the R = W / S replicas hold equal copies of every shard. Only replica 0
(global ranks 0..S-1) stages and writes: its DTensors are re-viewed over the replica's own
sub-mesh (the dp_replicate dimension dropped, storage shared), so DCP sees each shard exactly
once and the other replicas stage nothing (DCP's own de-duplication runs only after every rank
has staged its copy). The RNG states of the other replicas' ranks reach their replica-0 peer
over the dp_replicate group (a few KB). A resume is the mirror: replica 0 reads each shard once
from FSx, then broadcasts every local shard to its peers over the dp_replicate group (EFA).

Saves are asynchronous (`dcp.async_save`): `save` copies replica 0's shards into host memory
(pinned on GPUs) and returns; a background thread writes them, coordinating over a gloo group
of replica 0's ranks so it never shares a communicator with training. The next `save` (or
`wait`) waits for the previous write; `poll`, called every step and while rank 0 waits for
experience, renames a finished one complete and prunes to `keep_last` (and removes partial
ones a crash left).

Bytes and seconds at p5en-48 (16 train nodes; estimate/costs.py, `payload plan`): a
checkpoint is 12 bytes a parameter (fp32 weights, Adam m and v): Qwen3-30B-A3B 366 GB, staged
by the 8 GPUs of replica 0's node (S = 8, 16 replicas): 366 GB of pinned host memory on that
node, 1.8 s of device-to-host at 25 GB/s a GPU, nothing on the other 15 (before: every node
staged a full copy, 16 x 366 GB); written at FSx's rate (4.7 GB/s on 4.8 TiB x 1000 MB/s/TiB:
78 s) in the background. Qwen3-235B-A22B (S = 64, 2 replicas): 2.82 TB over 8 nodes, 353 GB a
node, 1.8 s; 602 s at 4.7 GB/s. Resume reads the checkpoint once (78 s / 602 s) and sends it to
the other replicas over EFA at the HSDP all-reduce's rate (each rank forwards its own shard:
366 GB / 8 GPUs at ~37.5 GB/s a GPU, ~1.2 s for 30B; 2.82 TB / 64 GPUs, ~1.2 s for 235B).

SIGTERM: the trainer finishes its step, starts a save and waits for it. The trainer chart's
grace period is sized to the modeled write; where FSx cannot write a checkpoint in it, SIGKILL
lands mid-write, the `.partial` directory is never renamed, and the last completed checkpoint
stands (the replay log still holds the steps after it, so nothing acknowledged is lost).

The replay log is the buffer position: rank 0 writes every step's groups before training on
them and only then acknowledges them to the buffer. A trainer resumed from step S re-reads
steps S+1... from the log before it consumes anything new, so it trains on exactly the data
the lost steps had (bitwise-identical continuation) and nothing acknowledged is lost.

What resume needs, and so what is fsync'd each step, is the groups without their routed
experts: tokens, logprobs, rewards, ids (512 prompts x 16 samples x ~4,000 tokens x 8 bytes
= ~260 MB a step at p5en-48's job, 0.06 s at 4.7 GB/s). The routes (token x layer x top-k:
13.8-27 GB a step for 30B-235B) are not written: a resumed step (at most
checkpoint.interval_steps of them) routes with the trainer's own router, so with routing
replay the continuation is the same data, not bitwise the same computation.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import time
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path

import msgpack
import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.filesystem import FileSystemReader
from torch.distributed.checkpoint.staging import DefaultStager, StagingOptions
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
from torch.distributed.tensor import DTensor, Replicate

from payload.queue.experience import ExperienceGroup, decode_group, encode_group
from payload.train.parallel import EXPERT_PARAM, World, global_expert_view
from spec.layout import TrainerLayout

log = logging.getLogger(__name__)

_STEP_DIR = re.compile(r"^step-(\d{8})$")


def _step_dir(directory: Path, step: int) -> Path:
    return directory / f"step-{step:08d}"


def latest(directory: str | os.PathLike) -> Path | None:
    """The newest complete checkpoint under `directory` (None if there is none)."""
    directory = Path(directory)
    if not directory.is_dir():
        return None
    complete = [
        (int(m.group(1)), p)
        for p in directory.iterdir()
        if (m := _STEP_DIR.match(p.name)) and (p / ".metadata").is_file()
    ]
    return max(complete)[1] if complete else None


def step_of(path: str | os.PathLike) -> int:
    match = _STEP_DIR.match(Path(path).name)
    if not match:
        raise ValueError(f"{path} is not a checkpoint directory (step-NNNNNNNN)")
    return int(match.group(1))


class CountingReader(FileSystemReader):
    """DCP's file reader, counting the bytes it reads (the resume's FSx traffic, logged)."""

    def __init__(self, path: str | os.PathLike) -> None:
        super().__init__(path)
        self.bytes_read = 0

    def _slice_file(self, file, sinfo):
        self.bytes_read += sinfo.length
        return super()._slice_file(file, sinfo)


REPLICATE_DIM = "dp_replicate"  # payload.train.parallel's mesh dimension of the HSDP replicas


def replica_view(value):
    """A DTensor replicated over the HSDP replicas, as a DTensor over this rank's replica only
    (same local shard, same storage): what DCP writes and reads once. Others pass through."""
    if not isinstance(value, DTensor) or REPLICATE_DIM not in (value.device_mesh.mesh_dim_names or ()):
        return value
    names = value.device_mesh.mesh_dim_names
    keep = [i for i, name in enumerate(names) if name != REPLICATE_DIM]
    if not isinstance(value.placements[names.index(REPLICATE_DIM)], Replicate):
        raise ValueError(f"a tensor sharded over {REPLICATE_DIM}: {value.placements}")
    mesh = value.device_mesh[tuple(names[i] for i in keep)] if len(keep) > 1 else value.device_mesh[names[keep[0]]]
    return DTensor.from_local(value.to_local(), mesh, [value.placements[i] for i in keep], run_check=False,
                              shape=value.shape, stride=value.stride())


def local_tensors(state) -> list[torch.Tensor]:
    """Every tensor of a (nested) state dict, local shards of DTensors, in a fixed order."""
    if isinstance(state, dict):
        return [t for key in sorted(state, key=str) for t in local_tensors(state[key])]
    if isinstance(state, (list, tuple)):
        return [t for item in state for t in local_tensors(item)]
    if isinstance(state, DTensor):
        return [state.to_local()]
    return [state] if isinstance(state, torch.Tensor) else []


class CheckpointFormatError(ValueError):
    """A checkpoint this trainer cannot resume (or save) as asked: one line naming what to do."""


def layout_record(layout: TrainerLayout) -> dict[str, int]:
    """The sizes a checkpoint records of the layout that wrote it (TrainerLayout's arguments)."""
    return {"nodes": layout.nodes, "gpus_per_node": layout.gpus_per_node, "pipeline": layout.pipeline,
            "expert_parallel": layout.expert_parallel, "shard": layout.shard}


def reseed(step: int, rank: int) -> int:
    """The seed of `rank`'s RNG after resuming step `step` at another layout: deterministic,
    different for every rank and step."""
    return (step << 20) + rank


def layout_free_state(model, optimizer, world: World) -> tuple[dict, dict, dict]:
    """({"model": {fqn: tensor}, "optimizer": {"state": {fqn: {name: tensor}}, "param_groups":
    [hyperparameters]}}, the native model and optimizer state dicts): every tensor under a
    name of the whole model, with its global shape (a DTensor, or a plain tensor every rank
    holds whole), sharing storage with the model and optimizer."""
    model_sd, optim_sd = get_state_dict(model, optimizer)
    num_experts = model.config.num_experts

    def view(fqn: str, value):  # plain tensors (Adam's step) are whole and equal on every rank
        expert = isinstance(value, DTensor) and EXPERT_PARAM.match(fqn)
        return global_expert_view(value, world, num_experts) if expert else value

    state = {
        "model": {fqn: view(fqn, v) for fqn, v in model_sd.items()},
        "optimizer": {
            "state": {fqn: {k: view(fqn, v) for k, v in entries.items()} for fqn, entries in optim_sd["state"].items()},
            "param_groups": [{h: v for h, v in group.items() if h != "params"} for group in optim_sd["param_groups"]],
        },
    }
    return state, model_sd, optim_sd


def _param_groups_key(keys: set[str], groups: int, path) -> str:
    """Where a checkpoint keeps its param groups' hyperparameters: `param_groups` (once), or
    the previous format's `param_groups_stage0` (every stage's were the same); refuses one
    with another number of groups than this optimizer's."""
    for key in ("param_groups", "param_groups_stage0"):
        saved = {k.split(".")[2] for k in keys if k.startswith(f"optimizer.{key}.")}
        if saved:
            if len(saved) != groups:
                raise CheckpointFormatError(
                    f"{path} holds {len(saved)} optimizer param groups, this optimizer {groups}: resume it with "
                    "the optimizer that wrote it, or start from its HF export (checkpoint.directory/hf)")
            return key
    raise CheckpointFormatError(f"{path} has no optimizer param groups (not a trainer checkpoint): "
                                "resume from a trainer checkpoint, or start from an HF export")


@dataclass
class TrainCounters:
    step: int = 0
    policy_version: int = 0
    groups_consumed: int = 0


class Checkpointer:
    @dataclass
    class Config:
        directory: str = "/fsx/checkpoints"
        interval_steps: int = 50
        keep_last: int = 3

        def build(self, world: World) -> "Checkpointer":
            return Checkpointer(self, world)

    def __init__(self, config: Config, world: World):
        self.config = config
        self.world = world
        self.directory = Path(config.directory)
        self.replay_dir = self.directory / "replay"
        # (upload future, partial dir, final dir) of the save being written in the background.
        self._pending: tuple[Future, Path, Path] | None = None
        self._group: dist.ProcessGroup | None = None  # replica 0's gloo group (DCP's planning, the writer)
        self._stager: DefaultStager | None = None
        # Ranks of the other replicas holding this rank's shards (None: a single replica).
        self._peers: dist.ProcessGroup | None = None
        self.staged_bytes = 0  # what the last save staged on this rank (0 outside replica 0)
        self.read_bytes = 0  # what the last load read from storage on this rank

    @property
    def writes(self) -> bool:
        """This rank is in replica 0 (of its pipeline stage), which alone stages, writes and
        reads checkpoints."""
        return self.world.rank % self.world.stage_world_size < self.world.shard_size

    def _groups(self) -> None:
        """Replica 0's gloo group and this rank's dp_replicate group (collective: every rank)."""
        if self._group is not None:
            return
        stage, shard = self.world.stage_world_size, self.world.shard_size
        self._group = dist.new_group(ranks=[r for r in range(self.world.world_size) if r % stage < shard], backend="gloo")
        if self.world.replicas > 1:
            self._peers = self.world.dense_mesh[REPLICATE_DIM].get_group()

    # -- state --------------------------------------------------------------------------------

    def _state(self, model, optimizer, counters: TrainCounters) -> tuple[dict, dict, dict]:
        """(what DCP reads/writes, the native model and optimizer state dicts). Expert entries
        are global views sharing storage with the shards, so DCP loads straight into them."""
        state, model_sd, optim_sd = layout_free_state(model, optimizer, self.world)
        state["model"] = {fqn: replica_view(v) for fqn, v in state["model"].items()}
        state["optimizer"]["state"] = {fqn: {k: replica_view(v) for k, v in entries.items()}
                                       for fqn, entries in state["optimizer"]["state"].items()}
        state["counters"] = vars(counters).copy()
        state["layout"] = layout_record(self.world.layout)
        return state, model_sd, optim_sd

    def _check_param_groups(self, groups: list[dict]) -> None:
        """Every stage's optimizer has the same hyperparameters group by group (collective over
        replica 0's ranks; inside a stage they are equal by construction)."""
        if self.world.pp_size == 1:
            return
        everyone = [None] * dist.get_world_size(self._group)
        dist.all_gather_object(everyone, groups, group=self._group)
        if any(other != everyone[0] for other in everyone):
            raise CheckpointFormatError(
                "pipeline stages' optimizers have different param groups; a checkpoint stores each group's "
                f"hyperparameters once, so every stage must build the same groups: {everyone}")

    def _peer_ranks(self) -> list[int]:
        """This rank and the ranks holding the same shards in the other replicas, replica order."""
        stage, shard = self.world.stage_world_size, self.world.shard_size
        base = self.world.rank - self.world.rank % stage  # this pipeline stage's first rank
        return [base + self.world.rank % shard + r * shard for r in range(self.world.replicas)]

    def _rng_states(self) -> dict[str, torch.Tensor]:
        """This rank's RNG states and its peers' (replica 0 writes them all): unique keys per
        rank, which DCP keeps (it de-duplicates equal keys only)."""
        mine = {f"rng_cpu_rank{self.world.rank}": torch.get_rng_state()}
        if torch.cuda.is_available():
            mine[f"rng_cuda_rank{self.world.rank}"] = torch.cuda.get_rng_state()
        if self._peers is None:
            return mine
        everyone = [None] * self.world.replicas
        dist.all_gather_object(everyone, mine, group=self._peers)
        return {k: v for states in everyone for k, v in states.items()}

    def save(self, model, optimizer, counters: TrainCounters, wait: bool = True) -> Path:
        """Stage this step's state in host memory and write it in the background (collective);
        returns the directory it will have once complete. `wait`: until it is (the trainer's
        periodic saves pass False and go on training)."""
        self.wait()
        final = _step_dir(self.directory, counters.step)
        partial = final.with_name(final.name + ".partial")
        if self.world.is_main:
            shutil.rmtree(partial, ignore_errors=True)
            partial.mkdir(parents=True)
        dist.barrier()
        self._groups()
        state, _, _ = self._state(model, optimizer, counters)
        rng = self._rng_states()
        if not self.writes:  # another replica holds (and writes) the same shards
            self.staged_bytes = 0
            return final
        if self._stager is None and torch.cuda.is_available():  # reused pinned buffers: PCIe speed
            self._stager = DefaultStager(StagingOptions(use_pinned_memory=True, use_shared_memory=False,
                                                        use_async_staging=False, use_non_blocking_copy=False))
        self._check_param_groups(state["optimizer"]["param_groups"])
        state.update(rng)
        self.staged_bytes = sum(t.numel() * t.element_size() for t in local_tensors(state))
        started = time.monotonic()
        future = dcp.async_save(state, checkpoint_id=str(partial), process_group=self._group, async_stager=self._stager)
        log.info("checkpoint step %d: %.2f GB staged in host memory in %.1f s; writing %s in the background",
                 counters.step, self.staged_bytes / 1e9, time.monotonic() - started, partial)
        self._pending = (future, partial, final)
        if wait:
            self.wait()
        return final

    def wait(self) -> Path | None:
        """Wait for the save being written (collective in effect: every rank waits for its own
        writes, rank 0's future also for the metadata), then mark it complete."""
        if self._pending is None:
            return None
        future, partial, final = self._pending
        self._pending = None
        started = time.monotonic()
        future.result()  # every rank's shards and (rank 0) the .metadata are on disk
        if self.world.is_main:
            shutil.rmtree(final, ignore_errors=True)
            partial.rename(final)
            self._prune()
            log.info("checkpoint %s complete (waited %.1f s for the write)", final, time.monotonic() - started)
        return final

    def poll(self) -> Path | None:
        """Mark the background save complete if its write has finished; never blocks (rank 0
        renames on its own future, which covers every rank's writes)."""
        if self._pending is None or not self._pending[0].done():
            return None
        return self.wait()

    def close(self) -> None:
        self.wait()
        if self._stager is not None:
            self._stager.close()
            self._stager = None

    def load(self, path: str | os.PathLike, model, optimizer) -> TrainCounters:
        """Replica 0 reads every shard once; the other replicas receive theirs from it. The
        checkpoint may come from another layout (module docstring)."""
        self._groups()
        state, model_sd, optim_sd = self._state(model, optimizer, TrainCounters())
        started = time.monotonic()
        box = [None, None, None, None]  # counters, the saved layout, param groups, RNG states by peer
        if self.writes:
            reader = CountingReader(path)
            keys = set(reader.read_metadata().state_dict_metadata)
            groups_key = _param_groups_key(keys, len(state["optimizer"]["param_groups"]), path)
            state["optimizer"][groups_key] = [
                {h: v for h, v in group.items() if f"optimizer.{groups_key}.{i}.{h}" in keys}
                for i, group in enumerate(state["optimizer"].pop("param_groups"))
            ]
            if not any(k.startswith("layout.") for k in keys):
                del state["layout"]  # the previous format
            rng = {k: v for peer in self._peer_ranks() for k, v in self._rng_templates(peer).items()}
            if rng.keys() <= keys:
                state.update(rng)
            dcp.load(state, storage_reader=reader, process_group=self._group)
            self.read_bytes = reader.bytes_read
            saved = state.get("layout")
            # The previous format has no layout: its RNG states are taken for one world of the same size.
            saved_ranks = sum(k.startswith("rng_cpu_rank") for k in keys)
            same = (saved == layout_record(self.world.layout) if saved is not None
                    else rng.keys() <= keys and saved_ranks == self.world.world_size)
            rng_by_peer = None
            if same:
                rng_by_peer = [{k: state[k] for k in self._rng_templates(peer)} for peer in self._peer_ranks()]
            box = [state["counters"], saved, state["optimizer"][groups_key], rng_by_peer]
        else:
            self.read_bytes = 0
        if self._peers is not None:
            source = self._peer_ranks()[0]
            for tensor in local_tensors({"model": state["model"], "optimizer": state["optimizer"]["state"]}):
                dist.broadcast(tensor, src=source, group=self._peers)
            dist.broadcast_object_list(box, src=source, group=self._peers)
        counters, saved, groups, rng_by_peer = box
        # Tensors were loaded in place; this applies the non-tensor parts (param groups).
        for native, loaded in zip(optim_sd["param_groups"], groups, strict=True):
            native.update(loaded)
        set_state_dict(model, optimizer, model_state_dict=model_sd, optim_state_dict=optim_sd)
        if rng_by_peer is not None:
            mine = rng_by_peer[self.world.rank % self.world.stage_world_size // self.world.shard_size]
            torch.set_rng_state(mine[f"rng_cpu_rank{self.world.rank}"])
            if torch.cuda.is_available():
                torch.cuda.set_rng_state(mine[f"rng_cuda_rank{self.world.rank}"])
        else:
            torch.manual_seed(reseed(counters["step"], self.world.rank))  # every device's generator
        if self.world.is_main and saved != layout_record(self.world.layout):
            written = TrainerLayout(**saved).describe() if saved is not None else "an unrecorded layout"
            log.info("checkpoint %s was written at %s, resumed at %s: resharded; RNG %s", path, written,
                     self.world.layout.describe(), "states restored" if rng_by_peer else "reseeded from (step, rank)")
        log.info("resumed from %s: read %.2f GB on this rank in %.1f s (replicas: %d, only replica 0 reads)",
                 path, self.read_bytes / 1e9, time.monotonic() - started, self.world.replicas)
        return TrainCounters(**counters)

    @staticmethod
    def _rng_templates(rank: int) -> dict[str, torch.Tensor]:
        """Tensors of the right size for `rank`'s saved RNG states, loaded into in place."""
        out = {f"rng_cpu_rank{rank}": torch.get_rng_state()}
        if torch.cuda.is_available():
            out[f"rng_cuda_rank{rank}"] = torch.cuda.get_rng_state()
        return out

    def _prune(self) -> None:
        complete = sorted(p for p in self.directory.iterdir() if _STEP_DIR.match(p.name) and (p / ".metadata").is_file())
        for old in complete[: -self.config.keep_last]:
            shutil.rmtree(old, ignore_errors=True)
        for torn in self.directory.glob("step-*.partial"):  # left by a crash; none is being written now
            shutil.rmtree(torn, ignore_errors=True)
        kept = complete[-self.config.keep_last :]
        oldest = step_of(kept[0]) if kept else 0
        if self.replay_dir.is_dir():
            for log in self.replay_dir.glob("step-*.groups"):
                if int(log.stem.removeprefix("step-")) <= oldest:
                    log.unlink(missing_ok=True)

    # -- replay log (rank 0) -----------------------------------------------------------------

    def _replay_path(self, step: int) -> Path:
        return self.replay_dir / f"step-{step:08d}.groups"

    def record(self, step: int, groups: list[ExperienceGroup]) -> None:
        """Durably write the groups step `step` trains on (before they are acknowledged),
        without their routed experts (see the module docstring)."""
        self.replay_dir.mkdir(parents=True, exist_ok=True)
        path = self._replay_path(step)
        tmp = path.with_suffix(".tmp")
        unrouted = [replace(g, samples=[replace(s, routed_experts_SLK=None) for s in g.samples]) for g in groups]
        with open(tmp, "wb") as f:
            f.write(msgpack.packb([encode_group(g) for g in unrouted]))
            f.flush()
            os.fsync(f.fileno())
        tmp.rename(path)

    def replayed(self, step: int) -> list[ExperienceGroup] | None:
        """The groups a previous run trained step `step` on, if it got that far."""
        path = self._replay_path(step)
        if not path.is_file():
            return None
        return [decode_group(b) for b in msgpack.unpackb(path.read_bytes())]
