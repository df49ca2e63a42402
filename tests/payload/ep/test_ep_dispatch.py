"""The dispatch/combine contract, against every backend this machine can run, and expert
parallelism of the whole model against EP=1 — in real gloo processes."""

from __future__ import annotations

import pytest
import torch

import ep_cases
from gloo_pool import GlooPool
from payload import ep
from payload.model import Qwen3MoeForCausalLM, save_pretrained, tiny_config

TOL = 1e-5


@pytest.fixture(scope="module")
def pool():
    p = GlooPool()
    yield p
    p.close()


# ---- the contract ----

# (tokens per rank, experts, top-k, routing) — uneven ranks, a rank with no tokens, and routing
# where only the first experts (all on rank 0) receive anything.
SCENARIOS = {
    "uneven": ([5, 9, 3, 7], 8, 2, "uniform"),
    "empty_rank": ([6, 0, 4, 1], 8, 3, "uniform"),
    "skewed": ([4, 6, 2, 5], 8, 2, "first_experts"),
}


def _check(results):
    for r in results:
        assert r["out"] < TOL and r["grad_x"] < TOL and r["grad_w"] < TOL, r
        assert r["counts_ok"], r


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_local_backend_contract(scenario):
    tokens, experts, top_k, skew = SCENARIOS[scenario]
    # One process holding everything: the group is None, the problem is all ranks' tokens.
    _check([ep_cases.dispatch_contract(None, "local", [sum(tokens)], experts, top_k, skew, seed=1)])


@pytest.mark.parametrize("ep_size", [2, 4])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_all_to_all_contract(pool, ep_size, scenario):
    tokens, experts, top_k, skew = SCENARIOS[scenario]
    results = pool.run(ep_cases.dispatch_contract, ep_size, "all_to_all", tokens[:ep_size], experts, top_k, skew, 7)
    _check(results)
    assert all(r["dispatcher"] == "AllToAllDispatcher" for r in results)
    if skew == "first_experts":
        assert results[0]["rows"] > 0 and all(r["rows"] == 0 for r in results[1:])


@pytest.mark.gpu
def test_deepep_contract(pool):
    from payload.ep.deepep import deepep_unavailable_reason

    reason = deepep_unavailable_reason()
    if reason:
        pytest.skip(reason)
    _check(pool.run(ep_cases.dispatch_contract, 2, "deepep", [5, 9], 8, 2, "uniform", 3))


# ---- the whole model ----


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    torch.manual_seed(0)
    # Three layers, the middle one dense, so sharding must skip it.
    model = Qwen3MoeForCausalLM(tiny_config(num_hidden_layers=3, mlp_only_layers=[1], vocab_size=64))
    path = tmp_path_factory.mktemp("ckpt")
    save_pretrained(model, path)
    return str(path)


@pytest.mark.parametrize(
    "ep_size,rows,skewed",
    [(2, [2, 1], False), (4, [1, 2, 0, 1], False), (4, [1, 1, 1, 1], True)],
    ids=["ep2", "ep4-empty-rank", "ep4-skewed"],
)
def test_model_expert_parallel_equals_single_process(pool, checkpoint, ep_size, rows, skewed):
    results = pool.run(ep_cases.model_equivalence, ep_size, checkpoint, rows, 6, skewed, 11)
    for rank, diffs in enumerate(results):
        assert diffs.pop("routing_equal"), f"rank {rank}: routing differs"
        worst = max(diffs, key=diffs.get)
        assert diffs[worst] < TOL, f"rank {rank}: {worst} differs by {diffs[worst]:.2e}"
        # Every parameter was compared, experts included.
        assert any("experts.gate_up_proj" in n for n in diffs) and "model.embed_tokens.weight" in diffs


# ---- configuration errors ----


def test_experts_must_divide_over_ranks(pool):
    (message, *_) = pool.run(ep_cases.build_message, 4, "all_to_all", 6)
    assert message == "num_experts=6 is not divisible by the expert-parallel size 4"


def test_local_backend_refuses_a_group(pool):
    (message, _) = pool.run(ep_cases.build_message, 2, "local")
    assert "'local' holds every expert in one process; the group has 2 ranks" in message


def test_unknown_backend_is_named():
    with pytest.raises(ep.EPConfigError, match="ep backend 'nccl': must be one of auto, deepep, all_to_all, local"):
        ep.Config(backend="nccl")


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the error on a machine without CUDA")
def test_deepep_without_gpu_is_a_clear_error(pool):
    (message, _) = pool.run(ep_cases.build_message, 2, "deepep")
    assert message.startswith("ep backend 'deepep': the deepep backend needs a CUDA GPU")
    assert message.endswith("choose ep backend 'all_to_all' or 'auto'")


def test_auto_picks_all_to_all_without_deepep_and_local_alone(pool):
    from payload.ep.deepep import deepep_unavailable_reason

    expected = "AllToAllDispatcher" if deepep_unavailable_reason() else "DeepEPDispatcher"
    assert pool.run(ep_cases.build_message, 2, "auto") == [expected, expected]
    assert type(ep.build(ep.Config(backend="auto"), 8, None)).__name__ == "LocalDispatcher"
