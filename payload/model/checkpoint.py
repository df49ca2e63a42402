"""Hugging Face checkpoint directories (config.json + *.safetensors, sharded or not), both ways.

On disk experts are stored one by one, as the released Qwen3-MoE checkpoints, `transformers`
(save_original_format) and SGLang have them:
    model.layers.N.mlp.experts.E.{gate_proj,up_proj}.weight [F, D], ...down_proj.weight [D, F]
in memory they are stacked per layer (moe.GroupedExperts). Only the experts this rank holds
(after payload.ep.apply_expert_parallel) are read or produced, under their global ids.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import torch

from spec.model_shape import ModelConfigError, Qwen3MoeConfig
from payload.model.qwen3_moe import Qwen3MoeForCausalLM

SAFETENSORS_INDEX = "model.safetensors.index.json"
SAFETENSORS_SINGLE = "model.safetensors"
# A stacked expert parameter (moe.GroupedExperts) and its layer prefix / kind.
EXPERT_PARAM = re.compile(r"^(model\.layers\.\d+\.mlp\.experts)\.(gate_up_proj|down_proj)$")


def iter_hf_tensors(model: Qwen3MoeForCausalLM) -> Iterator[tuple[str, torch.Tensor]]:
    """(HF name, tensor) for every weight this process holds; expert tensors are views."""
    tied = model.config.tie_word_embeddings
    for name, param in model.state_dict(keep_vars=False).items():
        if tied and name == "lm_head.weight":
            continue
        match = EXPERT_PARAM.match(name)
        if not match:
            yield name, param
            continue
        prefix, kind = match.groups()
        yield from hf_expert_tensors(model.get_submodule(prefix), prefix, kind, param)


def hf_expert_tensors(experts, prefix: str, kind: str, stacked: torch.Tensor) -> Iterator[tuple[str, torch.Tensor]]:
    """(HF name, view) per expert of one stacked parameter holding `experts`' local experts."""
    for local, tensor in enumerate(stacked):
        e = experts.expert_offset + local
        if kind == "gate_up_proj":
            gate, up = tensor.split(experts.intermediate_size, dim=0)
            yield f"{prefix}.{e}.gate_proj.weight", gate
            yield f"{prefix}.{e}.up_proj.weight", up
        else:
            yield f"{prefix}.{e}.down_proj.weight", tensor


def expected_hf_shapes(model: Qwen3MoeForCausalLM) -> dict[str, tuple[int, ...]]:
    return {name: tuple(t.shape) for name, t in iter_hf_tensors(model)}


@torch.no_grad()
def load_hf_state_dict(model: Qwen3MoeForCausalLM, tensors: Mapping[str, torch.Tensor], source: str = "checkpoint") -> None:
    """Copy HF-named tensors into the model (every tensor it holds must be there, with its shape).

    `tensors` may be lazy (a Mapping that reads on access), so a rank holding some experts reads
    only those. Extra tensors that name experts other ranks hold are fine; anything else extra is
    an error, since it means the checkpoint is not the architecture the config describes.
    """
    wanted = expected_hf_shapes(model)
    missing = [name for name in wanted if name not in tensors]
    if missing:
        raise ModelConfigError(f"{source}: missing tensor {missing[0]} ({len(missing)} missing in all)")
    expert_name = re.compile(r"^model\.layers\.\d+\.mlp\.experts\.\d+\.(gate|up|down)_proj\.weight$")
    unexpected = [
        name
        for name in tensors
        if name not in wanted and not expert_name.match(name) and not (name == "lm_head.weight" and model.config.tie_word_embeddings)
    ]
    if unexpected:
        raise ModelConfigError(f"{source}: unexpected tensor {unexpected[0]} (not part of this Qwen3-MoE config)")
    targets = dict(iter_hf_tensors(model))
    for name, target in targets.items():
        tensor = tensors[name]
        if tuple(tensor.shape) != tuple(target.shape):
            raise ModelConfigError(
                f"{source}: tensor {name} has shape {tuple(tensor.shape)}, the config needs {tuple(target.shape)}"
            )
        target.copy_(tensor)


def open_safetensors(path: Path) -> tuple[dict[str, str], dict[str, object]]:
    """(tensor name -> file, file -> lazy safetensors handle) of a checkpoint directory,
    sharded (with its index) or single-file; nothing is read yet."""
    from safetensors import safe_open

    index = path / SAFETENSORS_INDEX
    if index.is_file():
        weight_map = json.loads(index.read_text())["weight_map"]
    elif (path / SAFETENSORS_SINGLE).is_file():
        weight_map = None
    else:
        raise ModelConfigError(f"{path}: no {SAFETENSORS_SINGLE} or {SAFETENSORS_INDEX}")
    files = sorted(set(weight_map.values())) if weight_map else [SAFETENSORS_SINGLE]
    handles = {}
    for file in files:
        if not (path / file).is_file():
            raise ModelConfigError(f"{path}: shard {file} listed in {SAFETENSORS_INDEX} does not exist")
        handles[file] = safe_open(str(path / file), framework="pt")
    if weight_map is None:
        weight_map = dict.fromkeys(handles[SAFETENSORS_SINGLE].keys(), SAFETENSORS_SINGLE)
    return weight_map, handles


class _SafetensorsDirectory(Mapping):
    """HF-named tensors of a checkpoint directory, read on access."""

    def __init__(self, path: Path) -> None:
        self._weight_map, self._handles = open_safetensors(path)

    def __getitem__(self, name: str) -> torch.Tensor:
        return self._handles[self._weight_map[name]].get_tensor(name)

    def __iter__(self):
        return iter(self._weight_map)

    def __len__(self) -> int:
        return len(self._weight_map)

    def __contains__(self, name: object) -> bool:
        return name in self._weight_map


def load_pretrained(
    path: str | Path,
    dtype: torch.dtype = torch.bfloat16,
    device: torch.device | str = "cpu",
    ep_group=None,
    ep_backend: str = "auto",
    **runtime,
) -> Qwen3MoeForCausalLM:
    """Build the model a Qwen3-MoE checkpoint directory describes and read its weights.

    With `ep_group` the experts are sharded over that process group first (payload.ep) and each
    rank reads only its own. `runtime` sets Qwen3MoeConfig's run-time switches
    (activation_checkpointing, experts_impl, experts_precision, lm_head_keep_logits).
    """
    path = Path(path)
    config = Qwen3MoeConfig.from_pretrained(path).replace(**runtime)
    tensors = _SafetensorsDirectory(path)
    with torch.device("meta"):
        model = Qwen3MoeForCausalLM(config)
    if ep_group is not None:
        from payload.ep import Config as EPConfig, apply_expert_parallel

        apply_expert_parallel(model, ep_group, EPConfig(backend=ep_backend))
    model.to(dtype)  # on meta: free, so the real allocation below is already in `dtype`
    model.to_empty(device=device)
    model.tie_weights()
    load_hf_state_dict(model, tensors, source=str(path))
    return model


def save_pretrained(model: Qwen3MoeForCausalLM, path: str | Path, max_shard_bytes: int = 5 * 2**30) -> None:
    """Write config.json and safetensors shards (with an index when more than one) that
    `transformers.Qwen3MoeForCausalLM.from_pretrained` and SGLang load."""
    from safetensors.torch import save_file

    if any(block.dispatcher.ep_size > 1 for block in model.moe_blocks):
        raise ModelConfigError(
            "save_pretrained needs every expert in this process; this model is expert-parallel "
            "(gather the experts, or save per rank with iter_hf_tensors)"
        )
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    config = model.config.to_hf_dict()
    config["torch_dtype"] = str(next(model.parameters()).dtype).removeprefix("torch.")
    (path / "config.json").write_text(json.dumps(config, indent=2) + "\n")

    tensors = dict(iter_hf_tensors(model))  # views, no copies
    shards: list[list[str]] = [[]]
    size = 0
    for name, tensor in tensors.items():
        nbytes = tensor.numel() * tensor.element_size()
        if shards[-1] and size + nbytes > max_shard_bytes:
            shards.append([])
            size = 0
        shards[-1].append(name)
        size += nbytes
    for stale in list(path.glob("model*.safetensors")) + [path / SAFETENSORS_INDEX]:
        stale.unlink(missing_ok=True)
    files = (
        [SAFETENSORS_SINGLE]
        if len(shards) == 1
        else [f"model-{i:05d}-of-{len(shards):05d}.safetensors" for i in range(1, len(shards) + 1)]
    )
    weight_map = {}
    for file, names in zip(files, shards):
        # One shard in host memory at a time; copies, since safetensors refuses views that share storage.
        save_file({n: tensors[n].detach().to("cpu", copy=True).contiguous() for n in names}, str(path / file), metadata={"format": "pt"})
        weight_map.update(dict.fromkeys(names, file))
    if len(shards) > 1:
        total = sum(t.numel() * t.element_size() for t in tensors.values())
        index = {"metadata": {"total_size": total}, "weight_map": weight_map}
        (path / SAFETENSORS_INDEX).write_text(json.dumps(index, indent=2) + "\n")
