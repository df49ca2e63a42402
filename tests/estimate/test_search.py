"""estimate/search.py: `plan --model-config M --search-splits`."""

import pytest

from estimate.footprint import FIT_FRACTION

from estimate.checks import load_environment
from payload.__main__ import main
from estimate.search import reshaped_layout, search_splits, verified_best
from estimate.throughput import choose_staleness, estimate_rates, loop_spec


@pytest.fixture(scope="module")
def env():
    return load_environment("p5en-48")


@pytest.fixture(scope="module")
def env235():
    """p5en-48 planned for Qwen3-235B-A22B (its layout resolved for that model)."""
    return load_environment("p5en-48", model="Qwen3-235B-A22B")


def estimate(env, model):
    assert env.layout.model == model
    return estimate_rates(env)


def test_30b_search_keeps_the_rollout_nodes_and_feeds_them_more_groups(env):
    e = estimate(env, "Qwen3-30B-A3B")
    rows, best, shipped = search_splits(env, e, in_flight=(1536, 2048), train_nodes=(16, 28, 32))
    # The shipped split is what plan prints for the environment: choose_staleness at 16:32, 2048 in flight.
    spec = loop_spec(env, e)
    _, pick = choose_staleness(spec, spec.split(16, 32), e.prompt_tokens)
    assert (shipped.label, shipped.tokens_per_s_per_gpu) == ("16:32 @2048", pick.tokens_per_s_per_gpu)
    # The feeder's window claims a batch at each publish: no lock-step waves form, and a group
    # is trained about max_staleness versions after its claim: nothing dropped, under 2% masked.
    assert shipped.prediction.stale_dropped_fraction == 0
    assert all(r.prediction.stale_dropped_fraction < 0.02 and r.prediction.stale_masked_fraction < 0.02 for r in rows)
    assert best.tokens_per_s_per_gpu == pytest.approx(max(r.tokens_per_s_per_gpu for r in rows), rel=0.005)
    # Moving nodes to the trainer loses more rollout than it gains; more groups in flight feed
    # the same replicas better (the simulator agrees at 2048: tests/estimate/test_waves.py).
    assert (best.train_nodes, best.groups_in_flight) == (16, 2048)
    assert all(r.tokens_per_s_per_gpu < best.tokens_per_s_per_gpu for r in rows if r.train_nodes > 16)


def test_235b_candidates_keep_whole_pipeline_stages(env235):
    env = env235
    e = estimate(env, "Qwen3-235B-A22B")
    rows, best, shipped = search_splits(env, e, in_flight=(1536,))
    assert {r.train_nodes % 4 for r in rows} == {0}  # PP 4: whole stages
    assert best.tokens_per_s_per_gpu >= shipped.tokens_per_s_per_gpu


def test_the_picked_split_is_verified_to_fit(env235):
    """235B's picked layout (PP 16 x EP 8 x FSDP 8) has whole stages only at multiples of 16 train
    nodes: the search skips 8 and 24 (no layout exists there), keeps 16 and 32 (two replicas of
    the same stages), and the pick is verified against the fit line before it is picked; its
    own rate is the one held."""
    env = env235
    e = estimate(env, "Qwen3-235B-A22B")
    rows, best, _ = search_splits(env, e, in_flight=(1536,), train_nodes=(8, 16, 24, 32))
    assert {r.train_nodes for r in rows} == {16, 32}
    pick, checks = verified_best(env, e, rows)
    assert checks and checks[-1].fits and pick.train_nodes == checks[-1].choice.train_nodes == 16
    assert checks[-1].memory_gb <= FIT_FRACTION * 141
    assert checks[-1].trainer_tokens_per_s_per_node == pytest.approx(checks[-1].held_tokens_per_s_per_node)


def test_reshaped_layouts_keep_stages_and_ep_and_take_the_widest_shard(env, env235):
    e = estimate(env, "Qwen3-30B-A3B")
    shipped = e.trainer.layout  # EP 8, FSDP 128
    assert reshaped_layout(shipped, 30).shard == 120 and reshaped_layout(shipped, 32).shard == 128
    assert reshaped_layout(shipped, 28).shard == 112 and reshaped_layout(shipped, 3).shard == 24
    big = estimate(env235, "Qwen3-235B-A22B").trainer.layout  # PP 16, FSDP 8
    assert reshaped_layout(big, 8) is None and reshaped_layout(big, 24) is None
    assert reshaped_layout(big, 32).pipeline == 16 and reshaped_layout(big, 32).shard == 8  # a stage is one node
    assert reshaped_layout(big, 32).replicas == 2


def test_plan_search_splits_prints_the_best_beside_the_shipped(capsys):
    code = main(["plan", "--env", "p5en-48", "--model-config", "Qwen3-235B-A22B", "--search-splits", "--in-flight", "1536"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "split search over 48 nodes" in out and "shipped 16:32 @2048" in out and "best: " in out


def test_a_bad_in_flight_list_is_one_line(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["plan", "--env", "p5en-48", "--model-config", "Qwen3-30B-A3B", "--search-splits", "--in-flight", "2048,x"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "--in-flight" in err and "expected whole numbers >= 1" in err
