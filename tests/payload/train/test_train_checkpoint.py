"""DCP checkpoints of an FSDP2 + EP=2 model on two gloo ranks: resuming gives a bitwise
identical continuation; a checkpoint without DCP metadata (torn write) is never picked."""

import torch
import torch.distributed as dist

from payload.train.batch import micro_batches, shard_for_rank
from payload.train.checkpoint import Checkpointer, TrainCounters, latest
from payload.train.parallel import full_hf_tensors, init_world, parallelize
from payload.train.step import LossConfig, train_step
from train_cases import batch, tiny_model

CONFIG = LossConfig(max_grad_norm=0.05)


def _trainer(world):
    model = parallelize(tiny_model(), world, ep_backend="all_to_all")
    return model, torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.01)


def _steps(model, optimizer, world, steps):
    for step in steps:
        samples = shard_for_rank(batch(step), world.rank, world.world_size)
        train_step(model, optimizer, micro_batches(samples, 2, 3), CONFIG, group=dist.group.WORLD)


def _resume(rank, world_size, directory):
    world = init_world(ep_size=2)
    checkpointer = Checkpointer.Config(directory=directory, keep_last=1).build(world)
    model, optimizer = _trainer(world)
    _steps(model, optimizer, world, [0, 1])
    torch.manual_seed(1234 + rank)  # per-rank RNG state the checkpoint must bring back
    checkpointer.save(model, optimizer, TrainCounters(step=2, policy_version=2, groups_consumed=6))
    rng_after_save = torch.rand(3)
    _steps(model, optimizer, world, [2, 3])
    uninterrupted = dict(full_hf_tensors(model, world))

    model, optimizer = _trainer(world)  # a fresh process's state: initial weights, empty Adam
    counters = checkpointer.load(latest(directory), model, optimizer)
    rng_after_load = torch.rand(3)
    _steps(model, optimizer, world, [2, 3])
    resumed = dict(full_hf_tensors(model, world))
    return counters, torch.equal(rng_after_save, rng_after_load), uninterrupted, resumed


def test_resume_continues_bitwise_identically(gloo_pool, tmp_path):
    results = gloo_pool.run(_resume, str(tmp_path))
    for counters, same_rng, _, _ in results:
        assert counters == TrainCounters(step=2, policy_version=2, groups_consumed=6)
        assert same_rng
    _, _, uninterrupted, resumed = results[0]
    assert uninterrupted.keys() == resumed.keys() and len(uninterrupted) > 0
    for name in uninterrupted:
        assert torch.equal(uninterrupted[name], resumed[name]), name


def test_latest_skips_partial_and_torn_checkpoints(tmp_path):
    (tmp_path / "step-00000004").mkdir()
    (tmp_path / "step-00000004" / ".metadata").write_bytes(b"x")
    (tmp_path / "step-00000006.partial").mkdir()  # still being written
    (tmp_path / "step-00000006.partial" / ".metadata").write_bytes(b"x")
    (tmp_path / "step-00000008").mkdir()  # renamed by hand, or metadata lost: not complete
    assert latest(tmp_path).name == "step-00000004"
    assert latest(tmp_path / "missing") is None
