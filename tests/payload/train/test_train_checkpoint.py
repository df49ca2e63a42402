"""DCP checkpoints of an FSDP2 + EP=2 model on two gloo ranks: an asynchronous save written
while training goes on resumes to a bitwise identical continuation; a checkpoint without DCP
metadata (torn write) is never picked; keep_last rotates."""

from pathlib import Path

import torch
import torch.distributed as dist

from payload.train.batch import micro_batches, shard_for_rank
from payload.train.checkpoint import Checkpointer, TrainCounters, latest
from payload.train.parallel import full_hf_tensors, init_world, parallelize
from spec.layout import TrainerLayout
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
    world = init_world(TrainerLayout(1, 2, 2, 2))
    checkpointer = Checkpointer.Config(directory=directory, keep_last=1).build(world)
    model, optimizer = _trainer(world)
    _steps(model, optimizer, world, [0, 1])
    torch.manual_seed(1234 + rank)  # per-rank RNG state the checkpoint must bring back
    checkpointer.save(model, optimizer, TrainCounters(step=2, policy_version=2, groups_consumed=6), wait=False)
    rng_after_save = torch.rand(3)
    # Training goes on while the save is written: it must hold step 2's state, not these.
    _steps(model, optimizer, world, [2, 3])
    uninterrupted = dict(full_hf_tensors(model, world))
    assert latest(directory) is None or rank != 0  # not complete until waited for
    checkpointer.wait()
    dist.barrier()

    model, optimizer = _trainer(world)  # a fresh process's state: initial weights, empty Adam
    counters = checkpointer.load(latest(directory), model, optimizer)
    rng_after_load = torch.rand(3)
    _steps(model, optimizer, world, [2, 3])
    resumed = dict(full_hf_tensors(model, world))
    # keep_last=1: the next save replaces it.
    checkpointer.save(model, optimizer, TrainCounters(step=4, policy_version=4, groups_consumed=12), wait=True)
    dist.barrier()
    kept = sorted(p.name for p in Path(directory).iterdir() if p.name.startswith("step-"))
    checkpointer.close()
    return counters, torch.equal(rng_after_save, rng_after_load), uninterrupted, resumed, kept


def test_resume_continues_bitwise_identically(gloo_pool, tmp_path):
    results = gloo_pool.run(_resume, str(tmp_path))
    for counters, same_rng, _, _, kept in results:
        assert counters == TrainCounters(step=2, policy_version=2, groups_consumed=6)
        assert same_rng
        assert kept == ["step-00000004"]
    _, _, uninterrupted, resumed, _ = results[0]
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


def test_replay_log_keeps_what_resume_needs_without_the_routes(tmp_path):
    """The per-step fsync'd log holds tokens, logprobs and rewards, not the routed experts
    (gigabytes a step at scale): see payload/train/checkpoint.py."""
    import numpy as np

    from payload.queue.experience import ExperienceGroup, Sample
    from types import SimpleNamespace

    prompt = np.arange(1, 6)
    samples = [Sample(np.arange(10, 10 + n), -np.linspace(0.1, 1, n), "stop", reward=float(n),
                      routed_experts_SLK=np.full((len(prompt) + n - 1, 48, 8), 7, dtype=np.uint8)) for n in (40, 60)]
    group = ExperienceGroup("t1", "p1", 3, prompt, samples, label="42")
    checkpointer = Checkpointer.Config(directory=str(tmp_path)).build(SimpleNamespace(rank=0, is_main=True))
    checkpointer.record(7, [group])
    size = (tmp_path / "replay" / "step-00000007.groups").stat().st_size
    routes = sum(s.routed_experts_SLK.nbytes for s in samples)
    assert size < routes / 10
    (back,) = checkpointer.replayed(7)
    assert (back.task_id, back.policy_version, back.label) == ("t1", 3, "42")
    for got, sent in zip(back.samples, samples):
        assert np.array_equal(got.token_ids_T, sent.token_ids_T) and np.array_equal(got.logprobs_T, sent.logprobs_T)
        assert got.reward == sent.reward and got.routed_experts_SLK is None
    assert samples[0].routed_experts_SLK is not None  # the trainer's own copy is untouched
