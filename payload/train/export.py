"""Hugging Face export of the policy, for SGLang (restarts, /update_weights_from_disk, the
publisher's rollback and catch-up) and for evaluation: config.json, bf16 safetensors shards and
model.safetensors.index.json, the layout transformers and SGLang 0.5.23's DefaultModelLoader
read (it loads the files the index's weight_map names).

Every rank writes its own shards (`export_hf`): a MoE layer's experts are written by the ranks
of one EP group (layer l by group l mod G, so all nodes write), each its own experts, with no
gather at all; every other tensor is gathered (its FSDP shards, in bf16) and written by one rank
in turn. A rank holds at most one shard file's tensors in host memory (`shard_bytes`), and
writes it as soon as it is full. Rank 0 then names the files model-0000i-of-0000n, writes the
index and renames the directory from `.partial` into place: rollout servers may load it at any
moment, so it appears complete or not at all.

With job.rollout.precision fp8 the export is what those servers load: the attention and expert
linears as SGLang's 128 x 128 block FP8 with their weight_scale_inv (each pair in one shard
file) and config.json's quantization_config (payload/sync/wire.py); half the bytes.

At p5en-48's scale (estimate/costs.py): Qwen3-30B-A3B is 61 GB bf16, 13 s at FSx's
4.7 GB/s with 128 writers; Qwen3-235B-A22B 470 GB, 100 s (33 s at 14 GB/s). Host memory: one
shard a rank (2 GiB by default) instead of the model (470 GB for 235B).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path

import torch
import torch.distributed as dist
from safetensors.torch import save_file
from torch.distributed.tensor import DTensor

from payload.model import Qwen3MoeConfig
from payload.model.checkpoint import EXPERT_PARAM, hf_expert_tensors
from payload.sync import fp8
from payload.sync.wire import Precision, WireFormat

SHARD_BYTES = 2 * 2**30
INDEX = "model.safetensors.index.json"
_WEIGHT_FILES = ("config.json", "model.safetensors", INDEX)


class ShardWriter:
    """Streams named tensors into safetensors files of at most `shard_bytes` (a larger tensor
    goes alone): only the file being filled is held in host memory."""

    def __init__(self, directory: Path, prefix: str, shard_bytes: int = SHARD_BYTES, dtype: torch.dtype = torch.bfloat16,
                 precision: Precision = "bf16"):
        self.directory, self.prefix, self.shard_bytes, self.dtype = directory, prefix, shard_bytes, dtype
        # fp8: the linears as SGLang's block FP8 + weight_scale_inv (payload/sync/wire.py), what
        # servers started with rollout.precision fp8 load; everything else in `dtype`.
        self.wire = WireFormat(dtype, precision)
        self.files: list[str] = []
        self.weight_map: dict[str, str] = {}
        self.total_bytes = 0
        self.peak_held_bytes = 0  # the most bytes of tensors held at once (the bound tests measure)
        self._shard: dict[str, torch.Tensor] = {}
        self._held = 0

    def add(self, name: str, tensor: torch.Tensor) -> None:
        nbytes = self.wire.nbytes(name, tensor)
        if self._shard and self._held + nbytes > self.shard_bytes:
            self.flush()
        # A copy in host memory (safetensors refuses views sharing storage), cast on the way.
        tensors, dtypes = self.wire.encode([(name, tensor.detach())])
        for (wire_name, wire_tensor), wire_dtype in zip(tensors, dtypes):
            self._shard[wire_name] = wire_tensor.to("cpu", dtype=wire_dtype, copy=True).contiguous()
        self._held += nbytes
        self.total_bytes += nbytes
        self.peak_held_bytes = max(self.peak_held_bytes, self._held)

    def flush(self) -> None:
        if not self._shard:
            return
        name = f"{self.prefix}-{len(self.files):05d}.safetensors"
        save_file(self._shard, str(self.directory / name), metadata={"format": "pt"})
        self.files.append(name)
        self.weight_map.update(dict.fromkeys(self._shard, name))
        self._shard, self._held = {}, 0


def _finish(partial: Path, path: Path, files: list[str], weight_map: dict[str, str], total: int,
            config: Qwen3MoeConfig, base_model: str | Path | None, dtype: torch.dtype,
            precision: Precision = "bf16") -> Path:
    """Name the shards as Hugging Face does, write the index, config and tokenizer files, and
    move the directory into place."""
    final = ["model.safetensors"] if len(files) == 1 else [
        f"model-{i:05d}-of-{len(files):05d}.safetensors" for i in range(1, len(files) + 1)]
    renamed = dict(zip(files, final))
    for old, new in renamed.items():
        (partial / old).rename(partial / new)
    if len(files) > 1:
        index = {"metadata": {"total_size": total}, "weight_map": {n: renamed[f] for n, f in sorted(weight_map.items())}}
        (partial / INDEX).write_text(json.dumps(index, indent=2) + "\n")
    hf = config.to_hf_dict()
    hf["torch_dtype"] = str(dtype).removeprefix("torch.")
    if precision == "fp8":
        hf["quantization_config"] = fp8.quantization_config()
    (partial / "config.json").write_text(json.dumps(hf, indent=2) + "\n")
    if base_model is not None:
        for extra in Path(base_model).iterdir():
            if extra.is_file() and extra.name not in _WEIGHT_FILES and not extra.name.endswith(".safetensors"):
                shutil.copy2(extra, partial / extra.name)
    shutil.rmtree(path, ignore_errors=True)
    partial.rename(path)
    return path


def _fresh(path: Path) -> Path:
    partial = path.with_name(path.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    return partial


def write_hf_directory(
    tensors: Iterable[tuple[str, torch.Tensor]],
    config: Qwen3MoeConfig,
    path: str | Path,
    base_model: str | Path | None = None,
    dtype: torch.dtype = torch.bfloat16,
    shard_bytes: int = SHARD_BYTES,
    precision: Precision = "bf16",
) -> Path:
    """One process: write HF-named `tensors` as a checkpoint directory at `path`, streaming."""
    path = Path(path)
    partial = _fresh(path)
    writer = ShardWriter(partial, "part", shard_bytes, dtype, precision)
    for name, tensor in tensors:
        writer.add(name, tensor)
    writer.flush()
    return _finish(partial, path, writer.files, writer.weight_map, writer.total_bytes, config, base_model, dtype,
                   precision)


@torch.no_grad()
def owned_hf_tensors(model, world, dtype: torch.dtype) -> Iterator[tuple[str, torch.Tensor]]:
    """The HF-named tensors this rank writes (collective: every rank drains it). Shards are
    cast to `dtype` before any gather."""
    tied = model.config.tie_word_embeddings
    # Within this rank's pipeline stage (all of the world without PP): each stage writes its own
    # layers, so every stage's ranks write at once.
    ranks, rank = world.stage_world_size, world.dp_rank
    ep_groups = ranks // world.ep_size
    my_group = rank // world.ep_size  # rank = replica · S + edp_shard · P + ep_rank (parallel.py)
    for index, (name, param) in enumerate(model.named_parameters()):
        local = param.detach().to(dtype)
        full = local.full_tensor() if isinstance(local, DTensor) else local  # this rank's EP slice, for experts
        match = EXPERT_PARAM.match(name)
        if not match:
            if index % ranks == rank and not (tied and name == "lm_head.weight"):
                yield name, full
            continue
        prefix, kind = match.groups()
        experts = model.get_submodule(prefix)
        layer = int(prefix.split(".")[2])
        if layer % ep_groups != my_group:
            continue
        yield from hf_expert_tensors(experts, prefix, kind, full)


def export_hf(
    model,
    world,
    path: str | Path,
    base_model: str | Path | None = None,
    dtype: torch.dtype = torch.bfloat16,
    shard_bytes: int = SHARD_BYTES,
    precision: Precision = "bf16",
) -> ShardWriter:
    """Every rank writes its shards of the model at `path` (collective); returns this rank's
    writer (its files, bytes and peak host memory)."""
    path = Path(path)
    partial = path.with_name(path.name + ".partial")
    if world.is_main:
        _fresh(path)
    dist.barrier()
    writer = ShardWriter(partial, f"rank{world.rank:05d}", shard_bytes, dtype, precision)
    for name, tensor in owned_hf_tensors(model, world, dtype):
        writer.add(name, tensor)
    writer.flush()
    written = [None] * world.world_size if world.is_main else None
    dist.gather_object((writer.files, writer.weight_map, writer.total_bytes), written, dst=0)
    if world.is_main:
        files = [f for rank_files, _, _ in written for f in rank_files]
        weight_map = {n: f for _, rank_map, _ in written for n, f in rank_map.items()}
        _finish(partial, path, files, weight_map, sum(t for _, _, t in written), model.config, base_model, dtype,
                precision)
    dist.barrier()
    return writer
