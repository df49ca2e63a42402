"""A checkpoint resumes at another layout: pipeline size, EP size, stage split and node count
(payload/train/checkpoint.py, "Layout-free"), on real gloo ranks.

A 3-layer tiny model, AdamW. Four ranks as two nodes of two:
    PP2    PP 2 x EP 2 x FSDP 2, layers split [0] | [1, 2]
    HSDP   PP 1 x EP 1 x FSDP 2 x 2 replicas
    PP2'   PP 2 x EP 2 x FSDP 2, layers split [0, 1] | [2] (as a change of token lengths moves them)
and two ranks as one node: PP 1 x EP 2 x FSDP 2.

PP2 trains step 0 and saves; it goes on with steps 1 and 2 (the uninterrupted run). HSDP loads
that checkpoint (PP 2 -> 1, EP 2 -> 1), trains step 1 and saves; PP2' loads that (PP 1 -> 2,
EP 1 -> 2, another split) and trains step 2; one node loads the first (4 ranks -> 2). Every
load gives back every saved parameter and Adam moment element-wise (whole tensors gathered by
their whole-model names), the step and data position, and the param groups' hyperparameters
(the fresh optimizers are built with others); every step after a resume matches the
uninterrupted run's to the tolerance the pipeline and FSDP tests hold one process to. A
checkpoint of the previous format (param groups per stage) loads at another layout too.
"""

import math

import pytest
import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint import FileSystemReader
from torch.distributed.tensor import DTensor

from payload.train.batch import micro_batches, packed_for_rank, shard_for_rank, split_for_ranks
from payload.train.checkpoint import Checkpointer, TrainCounters, latest, layout_free_state, reseed
from payload.train.parallel import full_hf_tensors, init_world, parallelize
from payload.train.pipeline import PipelineStageModel, pipeline_train_step
from payload.train.step import train_step
from spec.layout import TrainerLayout
from test_train_parallel import ATOL, CONFIG
from train_cases import batch, tiny_model
from train_dist_pool import GlooPool

LAYERS = 3
PROMPTS = 4  # 16 samples a step
BUDGET = 12  # tokens: several micro-batches per pipeline
LR, WEIGHT_DECAY = 1e-2, 0.01
PP2 = TrainerLayout(2, 2, 2, 2, pipeline=2)
HSDP = TrainerLayout(2, 2, 1, 2)
ONE_NODE = TrainerLayout(1, 2, 2, 2)
SPLIT, OTHER_SPLIT = [range(0, 1), range(1, 3)], [range(0, 2), range(2, 3)]


@pytest.fixture(scope="module")
def pool():
    pool = GlooPool(world_size=4, timeout_s=300)
    yield pool
    pool.close()


def _trainer(layout, split=None, seed=0, lr=LR, weight_decay=WEIGHT_DECAY):
    world = init_world(layout)
    full = tiny_model(seed, num_hidden_layers=LAYERS)
    model = full if world.pp_size == 1 else PipelineStageModel(full, split[world.pp_rank], world.pp_rank, world.pp_size)
    model = parallelize(model, world, ep_backend="all_to_all")
    return world, model, torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)


def _step(model, optimizer, world, step):
    samples = batch(step, prompts=PROMPTS)
    if world.pp_size > 1:
        mine = split_for_ranks(samples, world.stage_world_size)[world.dp_rank]
        metrics = pipeline_train_step(model, optimizer, packed_for_rank(mine, BUDGET, dist.group.WORLD), CONFIG, world)
    else:
        mine = shard_for_rank(samples, world.rank, world.world_size)
        count = math.ceil(math.ceil(len(samples) / world.world_size) / 2)  # the same on every rank
        metrics = train_step(model, optimizer, micro_batches(mine, 2, count), CONFIG, group=dist.group.WORLD,
                             norm_group=world.replica_group)
    return metrics["grad_norm"], metrics["loss"]


def _whole(model, optimizer, world) -> dict[str, torch.Tensor]:
    """Every parameter and optimizer state of this rank's stage as whole tensors under their
    checkpoint names (collective over the stage); on its first rank, {} elsewhere."""
    state, _, _ = layout_free_state(model, optimizer, world)
    named = {f"model.{fqn}": v for fqn, v in state["model"].items()}
    named |= {f"optimizer.state.{fqn}.{k}": v for fqn, entries in state["optimizer"]["state"].items()
              for k, v in entries.items()}
    whole = {k: (v.full_tensor() if isinstance(v, DTensor) else v).detach().clone() for k, v in sorted(named.items())}
    return whole if world.dp_rank == 0 else {}


def _hyperparameters(optimizer):
    return [{h: v for h, v in group.items() if h != "params"} for group in optimizer.param_groups]


def _previous_format_save(model, optimizer, world, path, counters):
    """A checkpoint as the previous format wrote it: param groups under a key per stage."""
    state, _, optim_sd = layout_free_state(model, optimizer, world)
    state["optimizer"] = {"state": state["optimizer"]["state"],
                          f"param_groups_stage{world.pp_rank}": optim_sd["param_groups"]}
    state["counters"] = vars(counters).copy()
    state[f"rng_cpu_rank{world.rank}"] = torch.get_rng_state()
    dcp.save(state, checkpoint_id=path)


def _four_ranks(rank, world_size, directory):
    first, second, previous = f"{directory}/pp2", f"{directory}/hsdp", f"{directory}/previous/step-00000001"
    out = {}
    # PP 2: step 0, save, then the uninterrupted steps 1 and 2.
    world, model, optimizer = _trainer(PP2, SPLIT)
    _step(model, optimizer, world, 0)
    torch.manual_seed(100 + rank)
    Checkpointer.Config(directory=first).build(world).save(model, optimizer, TrainCounters(1, 1, PROMPTS))
    _previous_format_save(model, optimizer, world, previous, TrainCounters(1, 1, PROMPTS))
    out["saved_pp2"] = _whole(model, optimizer, world)
    out["hyper"] = _hyperparameters(optimizer)
    out["uninterrupted"] = [_step(model, optimizer, world, s) for s in (1, 2)]
    out["uninterrupted_weights"] = {k: v.clone() for k, v in full_hf_tensors(model, world)}

    # PP 1, EP 1, two HSDP replicas: load, step 1, save.
    world, model, optimizer = _trainer(HSDP, seed=5, lr=0.5, weight_decay=0.3)
    checkpointer = Checkpointer.Config(directory=second).build(world)
    out["counters_hsdp"] = checkpointer.load(latest(first), model, optimizer)
    out["rng_hsdp"] = torch.rand(3), torch.rand(3, generator=torch.Generator().manual_seed(reseed(1, rank)))
    out["hyper_hsdp"] = _hyperparameters(optimizer)
    out["loaded_hsdp"] = _whole(model, optimizer, world)
    out["resumed"] = [_step(model, optimizer, world, 1)]
    checkpointer.save(model, optimizer, TrainCounters(2, 2, 2 * PROMPTS))
    out["saved_hsdp"] = _whole(model, optimizer, world)

    # PP 2 again, EP 2, the other split: load, step 2.
    world, model, optimizer = _trainer(PP2, OTHER_SPLIT, seed=7, lr=0.5, weight_decay=0.3)
    out["counters_pp2"] = Checkpointer.Config(directory=second).build(world).load(latest(second), model, optimizer)
    out["hyper_pp2"] = _hyperparameters(optimizer)
    out["loaded_pp2"] = _whole(model, optimizer, world)
    out["resumed"].append(_step(model, optimizer, world, 2))
    out["resumed_weights"] = {k: v.clone() for k, v in full_hf_tensors(model, world)}

    # The previous format, saved at PP 2, loads at PP 1.
    world, model, optimizer = _trainer(HSDP, seed=5, lr=0.5, weight_decay=0.3)
    out["counters_previous"] = Checkpointer.Config(directory=second).build(world).load(previous, model, optimizer)
    out["hyper_previous"] = _hyperparameters(optimizer)
    out["loaded_previous"] = _whole(model, optimizer, world)
    return out


def _two_ranks(rank, world_size, path):
    world, model, optimizer = _trainer(ONE_NODE, seed=3, lr=0.5)
    counters = Checkpointer.Config(directory=str(path.parent)).build(world).load(path, model, optimizer)
    loaded = _whole(model, optimizer, world)
    return counters, loaded, _hyperparameters(optimizer), _step(model, optimizer, world, 1)


def _merged(results, key):
    merged = {}
    for r in results:
        assert not merged.keys() & r[key].keys()  # each tensor from one stage
        merged |= r[key]
    return merged


def _assert_equal(got, expected):
    assert got.keys() == expected.keys()
    for name in expected:
        assert torch.equal(got[name], expected[name]), name


def test_checkpoint_resumes_across_pp_ep_split_and_node_count(pool, gloo_pool, tmp_path):
    results = pool.run(_four_ranks, str(tmp_path))
    whole_model = {name for name, _ in tiny_model(num_hidden_layers=LAYERS).named_parameters()}

    # The checkpoint: whole-model names, Adam's moments keyed by them, one copy of the param group.
    keys = set(FileSystemReader(str(latest(tmp_path / "pp2"))).read_metadata().state_dict_metadata)
    assert {f"model.{n}" for n in whole_model} <= keys
    assert {f"optimizer.state.{n}.{m}" for n in whole_model for m in ("exp_avg", "exp_avg_sq", "step")} <= keys
    hyperparameters = results[0]["hyper"][0]
    assert {k for k in keys if ".param_groups" in k} == {f"optimizer.param_groups.0.{h}" for h in hyperparameters}

    saved = _merged(results, "saved_pp2")
    assert {k.removeprefix("model.") for k in saved if k.startswith("model.")} == whole_model
    # PP 2 -> PP 1 (EP 2 -> 1, 2 HSDP replicas), and back to PP 2 under another split.
    _assert_equal(_merged(results, "loaded_hsdp"), saved)
    _assert_equal(_merged(results, "loaded_pp2"), _merged(results, "saved_hsdp"))
    _assert_equal(_merged(results, "loaded_previous"), saved)
    for r in results:
        assert r["counters_hsdp"] == r["counters_previous"] == TrainCounters(1, 1, PROMPTS)
        assert r["counters_pp2"] == TrainCounters(2, 2, 2 * PROMPTS)
        assert r["hyper_hsdp"] == r["hyper_pp2"] == r["hyper_previous"] == r["hyper"]
        assert r["hyper"][0]["lr"] == LR and r["hyper"][0]["weight_decay"] == WEIGHT_DECAY
        # Another layout: every rank's RNG reseeded from (step, rank).
        after_load, expected = r["rng_hsdp"]
        assert torch.equal(after_load, expected)

    # The steps after each resume are the uninterrupted run's.
    uninterrupted = results[0]["uninterrupted"]
    for r in results:  # (grad norm, loss): global numbers, the same on every rank
        for got, expected in zip(r["resumed"], uninterrupted, strict=True):
            assert got == pytest.approx(expected, rel=1e-5, abs=1e-6)
        assert r["uninterrupted"] == uninterrupted
    assert all(norm > CONFIG.max_grad_norm for norm, _ in uninterrupted)  # clipping active
    expected, got = results[0]["uninterrupted_weights"], results[0]["resumed_weights"]
    assert expected.keys() == got.keys() and len(expected) > 0
    for name in expected:
        torch.testing.assert_close(got[name], expected[name], rtol=1e-5, atol=ATOL["adamw"], msg=name)

    # 4 ranks on two nodes -> 2 ranks on one node (PP 1 x EP 2 x FSDP 2).
    one_node = gloo_pool.run(_two_ranks, latest(tmp_path / "pp2"))
    _assert_equal(one_node[0][1], saved)
    for counters, _, hyper, step in one_node:
        assert counters == TrainCounters(1, 1, PROMPTS) and hyper == results[0]["hyper"]
        assert step == pytest.approx(uninterrupted[0], rel=1e-5, abs=1e-6)


def test_a_checkpoint_with_other_param_groups_is_refused_in_one_line():
    from payload.train.checkpoint import CheckpointFormatError, _param_groups_key

    two = {"optimizer.param_groups.0.lr", "optimizer.param_groups.1.lr", "model.lm_head.weight"}
    assert _param_groups_key(two, 2, "ckpt") == "param_groups"
    assert _param_groups_key({"optimizer.param_groups_stage0.0.lr"}, 1, "ckpt") == "param_groups_stage0"
    for keys, groups in ((two, 1), ({"model.lm_head.weight"}, 1)):
        with pytest.raises(CheckpointFormatError) as refused:
            _param_groups_key(keys, groups, "ckpt")
        assert "\n" not in str(refused.value) and "HF export" in str(refused.value)
