"""Replica-aware checkpoints on 2 x 2 real gloo ranks (2 HSDP replicas of 2 ranks, EP 2): only
replica 0 stages and writes; a resume reads every byte of the checkpoint once, on replica 0,
and the other replica receives its shards over the dp_replicate group; every rank (both
replicas) comes back bitwise, RNG states included."""

from pathlib import Path

import pytest
import torch
import torch.distributed as dist
from torch.distributed.checkpoint import FileSystemReader

from payload.train.batch import micro_batches, shard_for_rank
from payload.train.checkpoint import Checkpointer, TrainCounters, latest
from payload.train.parallel import full_hf_tensors, init_world, parallelize
from spec.layout import TrainerLayout
from payload.train.step import LossConfig, train_step
from train_cases import batch, tiny_model
from train_dist_pool import GlooPool

REPLICAS, SHARD = 2, 2


@pytest.fixture(scope="module")
def pool():
    pool = GlooPool(world_size=REPLICAS * SHARD, timeout_s=300)
    yield pool
    pool.close()


def _locals(model, optimizer) -> dict[str, torch.Tensor]:
    """This rank's own shards of the weights and of Adam's state, copied."""
    out = {f"p/{n}": p.to_local().detach().clone() for n, p in model.named_parameters()}
    for i, state in enumerate(optimizer.state.values()):
        for key, value in state.items():
            out[f"o/{i}/{key}"] = (value.to_local() if hasattr(value, "to_local") else value).detach().clone()
    return out


def _save_and_resume(rank, world_size, directory):
    world = init_world(TrainerLayout(REPLICAS, SHARD, 2, SHARD))
    checkpointer = Checkpointer.Config(directory=directory).build(world)
    model = parallelize(tiny_model(), world, ep_backend="all_to_all")
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    samples = shard_for_rank(batch(0, prompts=2), rank, world_size)
    train_step(model, optimizer, micro_batches(samples, 2, 1), LossConfig(max_grad_norm=0.5), group=dist.group.WORLD,
               norm_group=world.replica_group)
    saved = _locals(model, optimizer)
    local_bytes = sum(t.numel() * t.element_size() for t in saved.values())
    torch.manual_seed(77 + rank)
    checkpointer.save(model, optimizer, TrainCounters(step=1, policy_version=1, groups_consumed=2), wait=True)
    rng_after_save = torch.rand(3)
    trained = dict(full_hf_tensors(model, world))
    dist.barrier()

    fresh = parallelize(tiny_model(seed=5), world, ep_backend="all_to_all")
    fresh_optimizer = torch.optim.AdamW(fresh.parameters(), lr=1e-2)
    counters = checkpointer.load(latest(directory), fresh, fresh_optimizer)
    rng_after_load = torch.rand(3)
    loaded = _locals(fresh, fresh_optimizer)
    same_shards = saved.keys() == loaded.keys() and all(torch.equal(saved[k], loaded[k]) for k in saved)
    resumed = dict(full_hf_tensors(fresh, world))
    same_model = trained.keys() == resumed.keys() and all(torch.equal(trained[k], resumed[k]) for k in trained)
    checkpointer.close()
    return dict(staged=checkpointer.staged_bytes, read=checkpointer.read_bytes, local_bytes=local_bytes,
                counters=counters, same_rng=torch.equal(rng_after_save, rng_after_load), same_shards=same_shards,
                same_model=same_model)


def test_one_replica_stages_writes_and_reads_each_shard_once(pool, tmp_path):
    results = pool.run(_save_and_resume, str(tmp_path))
    checkpoint = tmp_path / "step-00000001"
    on_disk = sum(f.stat().st_size for f in checkpoint.glob("*.distcp"))
    items = FileSystemReader(checkpoint).read_metadata().storage_data
    assert sum(info.length for info in items.values()) == on_disk  # the files hold the items, nothing else
    # Values every rank holds whole (Adam's step counts and param groups, the counters, the
    # layout: small) are read by each rank of replica 0; every sharded byte by exactly one rank.
    whole = sum(info.length for index, info in items.items()
                if index.fqn.endswith(".step") or index.fqn.startswith(("counters.", "layout.", "optimizer.param_groups.")))
    replica0, replica1 = results[:SHARD], results[SHARD:]
    # Staging: replica 0's ranks hold their own shards (plus every peer's RNG state), replica 1 nothing.
    assert [r["staged"] for r in replica1] == [0] * SHARD
    for mine, peer in zip(replica0, replica1):
        assert mine["local_bytes"] == peer["local_bytes"]
        assert mine["staged"] == mine["local_bytes"] + REPLICAS * torch.get_rng_state().numel()  # + RNG states
    # Resume: every byte of the checkpoint's data files is read once, all of it by replica 0.
    assert [r["read"] for r in replica1] == [0] * SHARD
    assert sum(r["read"] for r in replica0) == on_disk + (SHARD - 1) * whole
    assert whole < on_disk / 20
    for r in results:
        assert r["counters"] == TrainCounters(step=1, policy_version=1, groups_consumed=2)
        assert r["same_shards"] and r["same_rng"] and r["same_model"]
