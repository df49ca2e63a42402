"""FSDP2 + expert parallelism on two real gloo processes equals one process without either.

Two ranks, EP=2 (each holds 4 of the 8 experts per layer; all_to_all dispatch), every other
parameter sharded by FSDP2 over both; each rank trains on half of every batch. The reference
is a plain model on one process with the whole batch, 3 steps with gradient clipping active.

Tolerances: with SGD (lr 1) the weights are the summed gradients, and they match to fp32
reduction-order noise (atol 1e-7). AdamW divides by √v, which turns that noise on elements
whose gradient is ~0 into up to a fraction of a full lr step, so there the bound is 1% of the
largest possible movement (lr · steps).
"""

import math

import pytest
import torch
import torch.distributed as dist

from payload.train.batch import micro_batches, shard_for_rank
from payload.train.parallel import full_hf_tensors, init_world, parallelize
from spec.layout import TrainerLayout
from payload.train.step import LossConfig, train_step
from payload.model import iter_hf_tensors
from train_cases import batch, tiny_model

STEPS = 3
MICRO = 2
# Small enough that clipping scales every step's gradients.
CONFIG = LossConfig(kl_coef=0.0, tis_cap=2.0, dual_clip=3.0, max_grad_norm=0.05)


def micro_count(n, world):
    return math.ceil(math.ceil(n / world) / MICRO)


LR = {"sgd": 1.0, "adamw": 1e-2}
ATOL = {"sgd": 1e-7, "adamw": 0.01 * LR["adamw"] * STEPS}


def make_optimizer(kind, params):
    if kind == "sgd":
        return torch.optim.SGD(params, lr=LR[kind])
    return torch.optim.AdamW(params, lr=LR[kind], weight_decay=0.01)


def _distributed(rank, world_size, kind):
    world = init_world(TrainerLayout(1, 2, 2, 2))
    model = parallelize(tiny_model(), world, ep_backend="all_to_all")
    optimizer = make_optimizer(kind, model.parameters())
    norms = []
    for step in range(STEPS):
        samples = batch(step)
        mine = shard_for_rank(samples, rank, world_size)
        metrics = train_step(model, optimizer, micro_batches(mine, MICRO, micro_count(len(samples), world_size)),
                             CONFIG, group=dist.group.WORLD)
        norms.append((metrics["grad_norm"], metrics["loss"]))
    weights = {name: t.clone() for name, t in full_hf_tensors(model, world)}
    return norms, weights


@pytest.mark.parametrize("kind", ["sgd", "adamw"])
def test_two_ranks_with_expert_parallel_match_one_process(gloo_pool, kind):
    (norms0, weights), (norms1, nothing) = gloo_pool.run(_distributed, kind)
    assert nothing == {}  # only rank 0 receives full tensors
    assert norms0 == norms1  # the global norm is the same number on every rank

    model = tiny_model()
    optimizer = make_optimizer(kind, model.parameters())
    expected_norms = []
    for step in range(STEPS):
        samples = batch(step)
        metrics = train_step(model, optimizer, micro_batches(samples, MICRO, micro_count(len(samples), 1)), CONFIG)
        expected_norms.append((metrics["grad_norm"], metrics["loss"]))

    assert_matches_one_process(norms0, expected_norms, weights, model, kind, CONFIG.max_grad_norm)


def assert_matches_one_process(history, expected_history, weights, model, kind, max_grad_norm):
    """A distributed run's (grad norm, loss) per step and final full tensors against one process's
    `model` trained on the same batches: the global numbers step by step, clipping active, every
    tensor equal within fp32 tolerance and moved from its initial value (every rank's experts)."""
    for got, expected in zip(history, expected_history, strict=True):
        # abs: the GRPO loss is a difference of O(0.1) terms and can land near zero (0.0031 at
        # one step of the HSDP test), where fp32 summation order alone moves it by ~1e-7.
        assert got == pytest.approx(expected, rel=1e-5, abs=1e-6)
    assert all(norm > max_grad_norm for norm, _ in expected_history)  # clipping was active
    expected = dict(iter_hf_tensors(model))
    initial = dict(iter_hf_tensors(tiny_model()))
    assert weights.keys() == expected.keys()
    for name, tensor in expected.items():
        torch.testing.assert_close(weights[name], tensor, rtol=1e-5, atol=ATOL[kind], msg=name)
        assert not torch.equal(tensor, initial[name]), name


def _reshard_policy_run(rank, world_size, policy):
    """One SGD step of two micro-batches (gradient accumulation toggles resharding) under
    `policy`; the layers' reshard flags, FSDP2's own post-forward setting, the full weights."""
    world = init_world(TrainerLayout(1, 2, 2, 2))
    try:
        parallelize(tiny_model(), world, ep_backend="all_to_all", reshard_after_forward="sometimes")
    except ValueError as exc:
        refused = str(exc)
    model = parallelize(tiny_model(), world, ep_backend="all_to_all", reshard_after_forward=policy)
    optimizer = make_optimizer("sgd", model.parameters())
    samples = shard_for_rank(batch(0), rank, world_size)
    train_step(model, optimizer, micro_batches(samples, MICRO, micro_count(len(batch(0)), world_size)), CONFIG,
               group=dist.group.WORLD)
    layers = list(model.model.layers)
    flags = [layer.fsdp_reshard_after_forward for layer in layers]
    # FSDP2 keeps the last micro-batch's setting; None = no reshard after forward.
    fsdp = [layer._get_fsdp_state()._fsdp_param_group.post_forward_mesh_info is not None for layer in layers]
    return flags, fsdp, refused, {name: t.clone() for name, t in full_hf_tensors(model, world)}


def test_reshard_policies_change_memory_not_results(gloo_pool):
    runs = {policy: gloo_pool.run(_reshard_policy_run, policy)[0] for policy in ("default", "always", "never")}
    layers = len(runs["default"][0])
    assert runs["default"][0] == runs["default"][1] == [True] * (layers - 1) + [False]  # torchtitan's default
    assert runs["always"][0] == runs["always"][1] == [True] * layers
    assert runs["never"][0] == runs["never"][1] == [False] * layers
    assert "reshard_after_forward 'sometimes' must be one of default, always, never" in runs["default"][2]
    for policy in ("always", "never"):
        for name, tensor in runs["default"][3].items():
            assert torch.equal(runs[policy][3][name], tensor), (policy, name)
