"""HF export from two gloo ranks (FSDP2 + EP=2): every rank writes its own bf16 shards with host
memory bounded by one shard (measured), the directory is the layout transformers and SGLang's
loader read (index naming every file), and it loads in transformers with the trainer's logits."""

import json

import pytest
import torch
import torch.distributed as dist
import transformers
from safetensors import safe_open

from payload.model import load_hf_state_dict
from payload.model.qwen3_moe import Qwen3MoeForCausalLM
from payload.train.batch import micro_batches, shard_for_rank
from payload.train.export import INDEX, export_hf
from payload.train.parallel import full_hf_tensors, init_world, parallelize
from spec.layout import TrainerLayout
from payload.train.step import LossConfig, train_step
from train_cases import batch, tiny_model

SHARD_BYTES = 48 * 1024  # small: many files per rank, and a bound the largest tensor (32 KiB) fits


def _export(rank, world_size, path):
    world = init_world(TrainerLayout(1, 2, 2, 2))
    model = parallelize(tiny_model(), world, ep_backend="all_to_all")
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-2)
    samples = shard_for_rank(batch(0), world.rank, world.world_size)
    train_step(model, optimizer, micro_batches(samples, 2, 3), LossConfig(max_grad_norm=0.5), group=dist.group.WORLD)
    writer = export_hf(model, world, path, dtype=torch.bfloat16, shard_bytes=SHARD_BYTES)
    reference = dict(full_hf_tensors(model, world, torch.bfloat16))
    return writer.files, writer.total_bytes, writer.peak_held_bytes, reference


def test_every_rank_writes_its_shards_streaming_and_transformers_loads_them(gloo_pool, tmp_path):
    path = tmp_path / "step-00000001"
    results = gloo_pool.run(_export, str(path))
    reference = results[0][3]
    # Both ranks wrote a share, each holding at most one shard of tensors at a time.
    for files, total, peak, _ in results:
        assert files and total > 0
        assert 0 < peak <= SHARD_BYTES
    assert abs(results[0][1] - results[1][1]) < 0.5 * (results[0][1] + results[1][1])
    assert not (tmp_path / "step-00000001.partial").exists()

    # The layout: every safetensors file is named by the index and every tensor is in it once.
    index = json.loads((path / INDEX).read_text())
    files = sorted(p.name for p in path.glob("*.safetensors"))
    assert sorted(set(index["weight_map"].values())) == files
    assert files == [f"model-{i:05d}-of-{len(files):05d}.safetensors" for i in range(1, len(files) + 1)]
    stored = {}
    for name in files:
        with safe_open(str(path / name), framework="pt") as f:
            stored.update({k: f.get_tensor(k) for k in f.keys()})
    assert stored.keys() == reference.keys() == index["weight_map"].keys()
    assert index["metadata"]["total_size"] == sum(t.numel() * 2 for t in stored.values())
    for name, tensor in reference.items():
        assert stored[name].dtype == torch.bfloat16 and torch.equal(stored[name], tensor), name

    # transformers reads it; its logits are the trainer's weights' logits.
    hf = transformers.Qwen3MoeForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
    ours = Qwen3MoeForCausalLM(tiny_model().config).eval()
    load_hf_state_dict(ours, {k: v.float() for k, v in reference.items()})
    ids = torch.randint(0, ours.config.vocab_size, (2, 12), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        torch.testing.assert_close(hf(ids).logits, ours(ids).logits, rtol=0, atol=1e-4)


@pytest.mark.parametrize("shard_bytes", [SHARD_BYTES, 1 << 30])
def test_single_process_writer_streams_within_a_shard(tmp_path, shard_bytes):
    from payload.model import iter_hf_tensors
    from payload.train.export import ShardWriter

    model = tiny_model()
    writer = ShardWriter(tmp_path, "part", shard_bytes)
    for name, tensor in iter_hf_tensors(model):
        writer.add(name, tensor)
    writer.flush()
    assert writer.peak_held_bytes <= shard_bytes
    assert (len(writer.files) == 1) == (shard_bytes == 1 << 30)  # small shards: several files
    assert writer.total_bytes == sum(t.numel() * 2 for _, t in iter_hf_tensors(model))
