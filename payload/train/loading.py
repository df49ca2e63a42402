"""Build the trainer's model already sharded, and read into each rank only the bytes it keeps.

    model = load_sharded(path, world, compute_dtype=torch.bfloat16)

The model is built on the meta device (no memory), expert-parallelised and FSDP2-sharded there
(payload.train.parallel.parallelize), then `to_empty` allocates each rank's fp32 shards alone on
its device. Each parameter's shard is a row range of the global tensor (FSDP2 shards dim 0;
HSDP replicas hold the same range), which `safe_open(...).get_slice(name)[a:b]` reads from the
Hugging Face safetensors without touching the rest of the file; expert shards are a range of
the rank's experts, read expert by expert. Nothing is read twice inside one replica, and no
rank ever holds a full-precision copy of a tensor it does not keep.

At 16 nodes and Qwen3-235B-A22B (470 GB of bf16 weights on FSx; p5en-48's PP 4 × EP 8 × FSDP
32): a rank builds only its pipeline stage (payload.train.pipeline) and reads its shard of it,
470 GB / 128 = 3.7 GB, each byte read once in all, against 470 GB per rank when every rank read
every non-expert weight plus its expert slice whole. At FSx's ~1.2 GB/s per client, 3 s per
rank; the GPU holds the rank's 15 GB fp32 shard.
"""

from __future__ import annotations

import re
from pathlib import Path

import torch
from torch.distributed.tensor import DTensor
from torch.distributed.tensor._utils import compute_local_shape_and_global_offset

from payload import ep
from payload.model import ModelConfigError, Qwen3MoeConfig, Qwen3MoeForCausalLM
from payload.model.checkpoint import open_safetensors
from payload.train.parallel import EXPERT_PARAM, World, parallelize

_EXPERT_NAME = re.compile(r"^(model\.layers\.\d+\.mlp\.experts)\.(\d+)\.(gate|up|down)_proj\.weight$")


class SafetensorsSlices:
    """Row ranges of HF-named tensors of a checkpoint directory, read lazily; counts the bytes
    it returns (what a rank read from the file system)."""

    def __init__(self, path: str | Path) -> None:
        path = Path(path)
        self.weight_map, self._handles = open_safetensors(path)
        self.source = str(path)
        self.bytes_read = 0

    def shape(self, name: str) -> tuple[int, ...]:
        return tuple(self._handles[self.weight_map[name]].get_slice(name).get_shape())

    def rows(self, name: str, start: int, stop: int) -> torch.Tensor:
        """Rows [start, stop) of `name` (dim 0), in the file's dtype, on the CPU."""
        tensor = self._handles[self.weight_map[name]].get_slice(name)[start:stop]
        self.bytes_read += tensor.numel() * tensor.element_size()
        return tensor


def _row_range(param: torch.Tensor) -> tuple[int, int]:
    """The global dim-0 rows this rank's shard of `param` holds (the whole tensor if not a DTensor)."""
    if not isinstance(param, DTensor):
        return 0, param.shape[0]
    shape, offset = compute_local_shape_and_global_offset(param.shape, param.device_mesh, param.placements)
    return offset[0], offset[0] + shape[0]


def _check_names(model: Qwen3MoeForCausalLM, slices: SafetensorsSlices, whole: bool = True) -> None:
    """Every tensor the architecture needs is in the checkpoint, and (`whole` model, not a
    pipeline stage) nothing else is."""
    config = model.config
    wanted: set[str] = set()
    for name, _ in model.named_parameters():
        match = EXPERT_PARAM.match(name)
        if not match:
            if not (config.tie_word_embeddings and name == "lm_head.weight"):
                wanted.add(name)
            continue
        prefix, kind = match.groups()
        parts = ("gate", "up") if kind == "gate_up_proj" else ("down",)
        wanted.update(f"{prefix}.{e}.{p}_proj.weight" for e in range(config.num_experts) for p in parts)
    missing = sorted(wanted - slices.weight_map.keys())
    if missing:
        raise ModelConfigError(f"{slices.source}: missing tensor {missing[0]} ({len(missing)} missing in all)")
    if not whole:
        return
    extra = sorted(n for n in slices.weight_map.keys() - wanted if not (n == "lm_head.weight" and config.tie_word_embeddings))
    if extra:
        raise ModelConfigError(f"{slices.source}: unexpected tensor {extra[0]} (not part of this Qwen3-MoE config)")


def _copy(target: torch.Tensor, source: torch.Tensor, name: str, source_name: str) -> None:
    if tuple(target.shape) != tuple(source.shape):
        raise ModelConfigError(f"{source_name}: tensor {name} has shape {tuple(source.shape)}, the config needs {tuple(target.shape)}")
    target.copy_(source)


@torch.no_grad()
def load_shards(model: Qwen3MoeForCausalLM, slices: SafetensorsSlices) -> None:
    """Fill every parameter's local shard of a `parallelize`d, `to_empty` model from `slices`."""
    _check_names(model, slices, whole=isinstance(model, Qwen3MoeForCausalLM))
    for name, param in model.named_parameters():
        local = param.to_local() if isinstance(param, DTensor) else param
        start, stop = _row_range(param)
        match = EXPERT_PARAM.match(name)
        if not match:
            expected = tuple(param.shape)
            if slices.shape(name) != expected:
                raise ModelConfigError(
                    f"{slices.source}: tensor {name} has shape {slices.shape(name)}, the config needs {expected}"
                )
            if stop > start:
                _copy(local, slices.rows(name, start, stop), name, slices.source)
            continue
        prefix, kind = match.groups()
        experts = model.get_submodule(prefix)
        f = experts.intermediate_size
        for row, e in enumerate(range(experts.expert_offset + start, experts.expert_offset + stop)):
            if kind == "gate_up_proj":
                for part, rows in (("gate", slice(0, f)), ("up", slice(f, 2 * f))):
                    hf = f"{prefix}.{e}.{part}_proj.weight"
                    _copy(local[row, rows], slices.rows(hf, 0, f), hf, slices.source)
            else:
                hf = f"{prefix}.{e}.down_proj.weight"
                _copy(local[row], slices.rows(hf, 0, local.shape[1]), hf, slices.source)


def load_sharded(
    path: str | Path,
    world: World,
    ep_backend: str | ep.Config = "auto",  # payload.ep.Config, or a backend name
    compute_dtype: torch.dtype | None = None,
    compile_layers: bool = False,
    mean_sample_tokens: int = 4096,
    **runtime,
) -> tuple[Qwen3MoeForCausalLM, int]:
    """The checkpoint at `path` as this rank's fp32 shards of a `parallelize`d model (its
    pipeline stage under PP, split for `mean_sample_tokens`); returns the model and the bytes
    this rank read. `runtime`: Qwen3MoeConfig's run-time switches."""
    config = Qwen3MoeConfig.from_pretrained(path).replace(**runtime)
    slices = SafetensorsSlices(path)
    with torch.device("meta"):
        model = Qwen3MoeForCausalLM(config)
    if world.pp_size > 1:  # this rank's stage only: it reads its own layers' tensors
        from payload.train.pipeline import build_stage

        model = build_stage(model, world, mean_sample_tokens)
    model = parallelize(model, world, ep_backend, compute_dtype, compile_layers)
    model.to_empty(device=world.device)
    load_shards(model, slices)
    return model, slices.bytes_read
