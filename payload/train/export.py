"""Periodic Hugging Face export of the policy, for SGLang (restarts, /update_weights_from_disk,
the publisher's rollback) and for evaluation.

The trainer's weights are sharded (FSDP, EP), so the export streams full tensors from
`parallel.full_hf_tensors` one at a time into safetensors shards on rank 0; no rank ever
holds the whole model. The directory appears under its final name only when complete (rename),
because rollout servers may load it at any moment. Tokenizer and generation files are copied
from the base model so the directory can also start a fresh SGLang server.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable
from pathlib import Path

import torch
from safetensors.torch import save_file

from payload.model import Qwen3MoeConfig

_WEIGHT_FILES = ("config.json", "model.safetensors", "model.safetensors.index.json")


def write_hf_directory(
    tensors: Iterable[tuple[str, torch.Tensor]],
    config: Qwen3MoeConfig,
    path: str | Path,
    base_model: str | Path | None = None,
    dtype: torch.dtype = torch.bfloat16,
    max_shard_bytes: int = 5 * 2**30,
) -> Path:
    """Write `tensors` (HF names) as a checkpoint directory at `path`; returns `path`."""
    path = Path(path)
    partial = path.with_name(path.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)

    shards: list[dict[str, torch.Tensor]] = [{}]
    files: list[str] = []
    size = total = 0

    def flush() -> None:
        name = f"shard-{len(files):05d}.safetensors"
        save_file(shards[-1], str(partial / name), metadata={"format": "pt"})
        files.append(name)

    weight_map: dict[str, int] = {}
    for name, tensor in tensors:
        tensor = tensor.detach().to("cpu", dtype=dtype, copy=True).contiguous()
        nbytes = tensor.numel() * tensor.element_size()
        if shards[-1] and size + nbytes > max_shard_bytes:
            flush()
            shards.append({})
            size = 0
        shards[-1][name] = tensor
        weight_map[name] = len(shards) - 1
        size += nbytes
        total += nbytes
    flush()
    del shards

    # HF's naming: a single file is model.safetensors, several are model-0000i-of-0000n.
    final = ["model.safetensors"] if len(files) == 1 else [
        f"model-{i:05d}-of-{len(files):05d}.safetensors" for i in range(1, len(files) + 1)
    ]
    for old, new in zip(files, final):
        (partial / old).rename(partial / new)
    if len(files) > 1:
        index = {"metadata": {"total_size": total}, "weight_map": {n: final[i] for n, i in weight_map.items()}}
        (partial / "model.safetensors.index.json").write_text(json.dumps(index, indent=2) + "\n")
    hf = config.to_hf_dict()
    hf["torch_dtype"] = str(dtype).removeprefix("torch.")
    (partial / "config.json").write_text(json.dumps(hf, indent=2) + "\n")
    if base_model is not None:
        for extra in Path(base_model).iterdir():
            if extra.is_file() and extra.name not in _WEIGHT_FILES and not extra.name.endswith(".safetensors"):
                shutil.copy2(extra, partial / extra.name)

    shutil.rmtree(path, ignore_errors=True)
    partial.rename(path)
    return path
