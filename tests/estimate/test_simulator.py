"""The SimPy model: reproducible under a seed, in agreement with the planner, and spot-aware."""

import dataclasses

import pytest

from estimate.loop import BalanceError, Spot
from estimate.planner import predict
from estimate.simulator import Simulator


def simulate(spec, train, rollout, steps=30, warmup=5, seed=1, **kwargs):
    return Simulator.Config(spec, spec.split(train, rollout), steps=steps, warmup_steps=warmup, seed=seed,
                            **kwargs).build().run()


def test_same_seed_same_run_other_seed_other_run(spec_factory):
    spec = spec_factory(filtered=0.1, spot=Spot(30.0, replacement_s=20, notice_s=2))
    first, again = simulate(spec, 3, 5, steps=12, seed=7), simulate(spec, 3, 5, steps=12, seed=7)
    other = simulate(spec, 3, 5, steps=12, seed=8)
    assert dataclasses.asdict(first) == dataclasses.asdict(again)
    assert first.reclaims > 0
    assert first.step_time_s != other.step_time_s


# Splits of 8 nodes in three regimes: trainer-bound with a stale-dropping buffer (few trainers),
# staleness-bound, and rollout-bound (few rollout nodes); with the feeder's window (claims wait
# for their batch's publish) and with an unlimited feed.
@pytest.mark.parametrize("window", [True, False])
@pytest.mark.parametrize(
    "changes,splits",
    [
        (dict(), [(1, 7), (4, 4), (7, 1)]),
        (dict(trainer=5000.0, max_staleness=4), [(2, 6), (4, 4), (6, 2)]),
    ],
)
def test_planner_agrees_with_the_simulator(spec_factory, changes, splits, window):
    spec = spec_factory(**changes).with_(feed_window=window)
    for train, rollout in splits:
        sim = simulate(spec, train, rollout)
        plan = predict(spec, spec.split(train, rollout))
        label = f"{train}:{rollout}"
        assert plan.step_time_s == pytest.approx(sim.step_time_s, rel=0.10), label
        assert plan.trainer_idle_fraction == pytest.approx(sim.trainer_idle_fraction, abs=0.05), label
        assert plan.rollout_idle_fraction == pytest.approx(sim.rollout_idle_fraction, abs=0.05), label
        assert plan.stale_dropped_fraction == pytest.approx(sim.stale_dropped_fraction, abs=0.05), label


def test_backpressure_holds_the_buffer_and_nothing_goes_stale(spec_factory):
    # Slow trainer, loose staleness bound: workers stop at the high-water mark.
    spec = spec_factory(trainer=2000.0, max_staleness=50, high_water_groups=64)
    sim = simulate(spec, 2, 6)
    assert sim.trainer_idle_fraction < 0.01
    assert sim.stale_dropped_fraction == 0
    assert sim.wasted_tokens_fraction < 0.05
    # Each step trains 32 groups of ~4000 tokens at 4000 tokens/s, then publishes for 1 s.
    assert sim.step_time_s == pytest.approx(32 * 4000 / 4000 + 1, rel=0.05)


def test_a_reclaimed_replica_does_not_stall_the_asynchronous_loop(spec_factory):
    calm = spec_factory(trainer=5000.0, max_staleness=4)
    stormy = calm.with_(spot=Spot(20.0, replacement_s=60, notice_s=5, hand_back=False))
    base, spot = simulate(calm, 4, 4, steps=40), simulate(stormy, 4, 4, steps=40)
    assert spot.reclaims >= 3
    assert spot.trained_tokens_per_s > 0.75 * base.trained_tokens_per_s


def test_without_hand_back_a_synchronous_loop_waits_out_the_visibility_timeout(spec_factory):
    sync = spec_factory(max_staleness=0)
    runs = {}
    for hand_back in (True, False):
        spec = sync.with_(spot=Spot(20.0, replacement_s=60, notice_s=0, hand_back=hand_back))
        runs[hand_back] = simulate(spec, 4, 4, steps=40, feed_window_groups=32, visibility_timeout_s=300)
    assert runs[True].reclaims >= 3 and runs[False].reclaims >= 3
    assert runs[True].stale_dropped_fraction == 0  # a window of one batch: every group is on-policy
    assert runs[False].step_time_s > 2 * runs[True].step_time_s


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(steps=5, warmup_steps=5), "simulate 5 steps: must exceed the 5 warm-up steps"),
        (dict(feed_window_groups=8), "feed window 8 groups: must hold at least one batch"),
    ],
)
def test_bad_simulation_settings(spec_factory, kwargs, message):
    spec = spec_factory()
    with pytest.raises(BalanceError, match=message):
        Simulator.Config(spec, spec.split(4, 4), **kwargs)
