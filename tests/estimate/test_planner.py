"""Planner math against cases small enough to work out by hand."""

import math

import numpy as np
import pytest

from estimate.loop import BalanceError, LoopSpec, Rates, ResponseLengths, Spot
from estimate.planner import make_plan, predict


def hand_spec(**changes) -> LoopSpec:
    # One 8-GPU replica per node; a step trains 10 groups × 4 responses × ~1000 tokens = 40,000.
    rates = Rates(
        rollout_tokens_per_s_per_node=changes.pop("rollout", 4000.0),
        trainer_tokens_per_s_per_node=changes.pop("trainer", 1000.0),
        publish_s=5.0,
        response_tokens_mean=1000,
    )
    base = dict(prompts_per_step=10, group_size=4, max_staleness=1000, high_water_groups=10, groups_in_flight=1000,
                lengths=ResponseLengths(1000, 0.3, 4000), rates=rates, server_slots=4)
    return LoopSpec(**(base | changes))


def test_lengths_have_the_requested_mean_and_cut():
    lengths = ResponseLengths(4000, 0.8, 16384)
    draws = lengths.sample(np.random.default_rng(0), 400_000)
    assert draws.max() == 16384
    assert draws.mean() == pytest.approx(4000, rel=0.01)
    longest = lengths.sample(np.random.default_rng(1), (100_000, 16)).max(axis=1)
    assert lengths.mean_max(16) == pytest.approx(longest.mean(), rel=0.01)
    assert lengths.max_quantiles(16).mean() == pytest.approx(longest.mean(), rel=0.01)


def test_trainer_bound_step_is_train_time_plus_publish():
    spec = hand_spec()
    p = predict(spec, spec.split(2, 2))
    # Trainer: 40,000 tokens / (2 × 1000) = 20 s, + 5 s publish. Rollout: 8000 tokens/s, 5 s of work.
    assert p.bound == "trainer"
    assert p.step_time_s == pytest.approx(25.0)
    assert p.trainer_idle_fraction == pytest.approx(0.0, abs=1e-9)
    assert p.trainer_publish_fraction == pytest.approx(5 / 25)
    assert p.rollout_idle_fraction == pytest.approx(1 - 5 / 25)
    assert p.trained_tokens_per_s == pytest.approx(40_000 / 25)
    assert p.stale_dropped_fraction == 0
    # 500 groups queue on each replica: Little's law, 500 × 4000 tokens / 4000 tokens/s.
    assert p.group_latency_s == pytest.approx(500.0)
    # FIFO age: the high-water mark plus half the claim burst (1000 - 10 groups), drained 10 a
    # step, then the 500 s latency over 20 s of decoding a step.
    assert p.staleness_mean == pytest.approx((10 + 990 / 2) / 10 + 500 / 20)


def test_rollout_bound_step_is_production_time_plus_publish():
    spec = hand_spec(trainer=100_000.0, groups_in_flight=10, server_slots=1, rollout=1000.0)
    p = predict(spec, spec.split(2, 1))
    # Rollout: 40,000 tokens at 1000 tokens/s = 40 s of decoding, + 5 s publish; trainer 0.2 s.
    assert p.bound == "rollout"
    assert p.step_time_s == pytest.approx(45.0, rel=1e-5)
    assert p.trainer_idle_fraction == pytest.approx((45 - 5 - 0.2) / 45, rel=1e-5)
    assert p.rollout_idle_fraction == pytest.approx(5 / 45, rel=1e-5)
    assert p.stale_dropped_fraction == 0


def test_underfed_replica_decodes_only_what_its_requests_allow():
    # Lengths nearly constant, so a group holds its 4 requests until it ends. A request decodes
    # at 4000 / 100 slots = 40 tokens/s; 5 groups per replica keep 20 requests going: 800 of 4000.
    spec = hand_spec(lengths=ResponseLengths(1000, 1e-4, 4000), server_slots=100, groups_in_flight=10)
    p = predict(spec, spec.split(2, 2))
    per_request = 4000 / 100
    assert p.replica_utilisation == pytest.approx(5 * 4 * per_request / 4000, rel=1e-3)
    assert p.group_latency_s == pytest.approx(1000 / per_request, rel=1e-3)


def test_spot_reclaims_take_replicas_down_and_lose_half_a_latency_of_work():
    spot = Spot(reclaims_per_node_hour=1.0, replacement_s=600, notice_s=120)
    spec = hand_spec(trainer=100_000.0, groups_in_flight=10, server_slots=1, rollout=1000.0, spot=spot)
    p = predict(spec, spec.split(2, 4))
    per_s = 1 / 3600
    serving = 4 / (1 + per_s * 720)
    latency = (10 / serving) * 4000 / 1000  # Little's law, slots full
    fleet = serving * 1000 * (1 - per_s * latency / 2)
    assert p.group_latency_s == pytest.approx(latency)
    assert p.step_time_s == pytest.approx(5 + 40_000 / fleet, rel=1e-5)


def test_stale_drops_lengthen_the_step_and_favour_short_groups(spec_factory):
    # An unlimited feed: workers re-claim at once, so a group's claim falls anywhere in a step
    # (the feeder's window, which claims a batch at each publish, drops fewer: test_simulator).
    tight, loose = spec_factory(max_staleness=1, feed_window=False), spec_factory(max_staleness=50, feed_window=False)
    split = tight.split(4, 4)
    p_tight, p_loose = predict(tight, split), predict(loose, split)
    assert p_loose.stale_dropped_fraction == 0
    assert p_tight.stale_dropped_fraction > 0.2
    assert p_tight.bound == "staleness"
    assert p_tight.step_time_s > p_loose.step_time_s
    assert p_tight.staleness_mean <= 1
    # The groups that survive are the ones that finished quickly: fewer tokens than average.
    trained_per_group = p_tight.trained_tokens_per_s * p_tight.step_time_s / tight.prompts_per_step
    assert trained_per_group < 0.97 * tight.group_tokens_mean


def test_plan_recommends_the_fastest_split_inside_the_pool_limits(spec_factory):
    spec = spec_factory(trainer=5000.0, max_staleness=4)
    plan = make_plan(spec, 8, current=(2, 6), train_limits=(1, 3), rollout_limits=(5, 7))
    steps = {(t, 8 - t): predict(spec, spec.split(t, 8 - t)).step_time_s for t in range(1, 8)}
    inside = {k: v for k, v in steps.items() if k[0] <= 3}
    assert (plan.recommended.split.train_nodes, plan.recommended.split.rollout_nodes) == min(inside, key=inside.get)
    assert plan.current.split.label == "2:6"
    # The best split overall needs more trainers than the limits allow.
    best = min(steps, key=steps.get)
    assert best[0] > 3
    assert (plan.unconstrained.split.train_nodes, plan.unconstrained.split.rollout_nodes) == best
    assert len(plan.candidates) == 7


def test_plan_trainer_needs_whole_expert_parallel_meshes(spec_factory):
    spec = spec_factory(train_gpu_multiple=32)  # 4 nodes of 8 GPUs
    plan = make_plan(spec, 12, current=None, train_limits=(0, 12), rollout_limits=(0, 12))
    assert [p.split.train_nodes for p in plan.candidates] == [4, 8]
    with pytest.raises(BalanceError, match="split 6:6: .*multiple of the parallel layout's 32 GPUs"):
        spec.split(6, 6)


@pytest.mark.parametrize(
    "budget,current,limits,message",
    [
        (1, None, ((0, 8), (0, 8)), "node budget 1: smaller than one trainer"),
        (8, (4, 4), ((1, 3), (0, 8)), r"split 4:4: 4 train nodes is outside pools.train min_size..max_size 1..3"),
        (8, None, ((1, 2), (1, 2)), "no split of 8 nodes fits the pools"),
    ],
)
def test_plan_errors_name_the_value(spec_factory, budget, current, limits, message):
    with pytest.raises(BalanceError, match=message):
        make_plan(spec_factory(), budget, current, *limits)


def test_replica_bigger_than_a_node_takes_whole_nodes(spec_factory):
    spec = spec_factory(replica_gpus=16)
    assert spec.replica_nodes == 2
    assert spec.replicas(5) == 2
    with pytest.raises(BalanceError, match="one rollout replica needs 16 GPUs"):
        spec.split(7, 1)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(rollout_tokens_per_s_per_node=0, trainer_tokens_per_s_per_node=1, publish_s=1), "rollout tokens/s per node 0"),
        (dict(rollout_tokens_per_s_per_node=1, trainer_tokens_per_s_per_node=-5, publish_s=1), "trainer tokens/s per node -5"),
        (dict(rollout_tokens_per_s_per_node=1, trainer_tokens_per_s_per_node=1, publish_s=-1), "publish seconds -1"),
        (dict(rollout_tokens_per_s_per_node=math.nan, trainer_tokens_per_s_per_node=1, publish_s=1), "nan"),
    ],
)
def test_rates_must_be_positive(kwargs, message):
    with pytest.raises(BalanceError, match=message):
        Rates(**kwargs)


def test_mean_length_must_fit_under_the_generation_limit():
    with pytest.raises(BalanceError, match="mean response length 9000: must lie between 0 and batch.max_response_tokens 8192"):
        ResponseLengths(9000, 0.8, 8192)
