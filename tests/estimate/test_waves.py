"""The closed form's lock-step waves (estimate.planner._waves) against the discrete-event loop,
on each side of where they form: the planner's step within 10% of the simulator's, the share of
groups dropped stale within 0.10 and of server slots decoding within 0.05.

Waves form when most groups have a response that reaches the cap (so a group lasts a fixed
time), the wave's requests all fit the replicas' slots, the trainer waits for each wave and a
landed wave does not hold the buffer over its high-water mark. Each case says which side it is.

Most cases run an unlimited feed (LoopSpec.feed_window False), where the waves are clearest; the
dataset feeder's window breaks them wherever it leaves fewer tasks than a landed wave's groups to
re-claim (the shipped 30B), and keeps them where it holds two waves (NeMo-RL's workload): the
cases marked "window"."""

from pathlib import Path

import pytest

from estimate.checks import load_environment
from estimate.planner import _waves, predict
from estimate.simulator import Simulator
from estimate.throughput import Assumptions, estimate_rates, loop_spec

THIRTY = str(Path(__file__).resolve().parents[2] / "bench" / "environments" / "nemo-rl-qwen3-30b.yaml")
_specs: dict = {}


def spec_of(env_name: str, mean: float | None):
    if (env_name, mean) not in _specs:
        env = load_environment(env_name, model="Qwen3-30B-A3B")
        # The waves as drop_group sees them (tests/estimate/test_stale_tokens_mask.py: under mask),
        # of an unlimited feed unless a case asks for the window.
        # 1536 in flight (p5en-48 shipped that when the waves were found; 2048 over its high-water
        # mark half-breaks them on an unlimited feed: HALF_BROKEN).
        # p5en-48 with retracting pauses, as its waves were found and its cases below were set
        # (it now pauses in place: its own job is checked in test_nemo_rl_workloads.py and
        # test_stale_tokens_mask.py; in place, the 3072-over-the-slots case reads 74 % busy in
        # the closed form against the simulator's 80 %). NeMo-RL's file pauses in place.
        a = Assumptions(pause_mode="retract") if env.name == "p5en-48" else Assumptions()
        rates = estimate_rates(env, response_mean=mean, a=a)
        spec = loop_spec(env, rates).with_(stale_tokens="drop_group", feed_window=False)
        if env.name == "p5en-48":
            spec = spec.with_(groups_in_flight=1536)
        _specs[env_name, mean] = env, spec
    return _specs[env_name, mean]


# A strict xfail, the one disagreement found on either side: 2048 groups in flight over a
# high-water mark of 1024 on an unlimited feed (plan 119 s with 13% dropped, sim 139 s with 27%):
# claims that wait for room half-break the waves, which neither model follows (with a mark of
# 4096 both agree, below; with the feeder's window, as the job runs, both agree too).
HALF_BROKEN = pytest.mark.xfail(strict=True, reason="waves half broken by the high-water mark")


@pytest.mark.parametrize("env_name,mean,changes,waves", [
    ("p5en-48", None, {"max_staleness": 2}, True),  # the shipped 30B at 2: half its batches dropped
    ("p5en-48", None, {"max_staleness": 6}, True),  # at 6: none
    ("p5en-48", None, {"groups_in_flight": 2048, "high_water_groups": 4096}, True),
    ("p5en-48", 12000, {}, True),  # nearly every group reaches the cap; its requests need 1.08 x the slots
    (THIRTY, 2000, {}, True),  # NeMo-RL's workload with shorter responses, one batch in flight
    ("p5en-48", 4096, {}, False),  # shorter responses: a quarter of the groups reach the cap
    ("p5en-48", None, {"groups_in_flight": 3072, "high_water_groups": 2048}, False),  # over the slots
    (THIRTY, 3073, {"groups_in_flight": 128, "high_water_groups": 128, "max_staleness": 2}, False),  # queued
    pytest.param("p5en-48", None, {"groups_in_flight": 2048}, False, marks=HALF_BROKEN),
    ("p5en-48", None, {"feed_window": True}, False),  # window: the shipped 30B, claims a batch a publish
    ("p5en-48", None, {"feed_window": True, "groups_in_flight": 2048}, False),  # window
    (THIRTY, 2000, {"feed_window": True}, True),  # window of two batches: a wave re-claims at once
])
def test_the_closed_form_follows_the_simulator_on_both_sides_of_the_waves(env_name, mean, changes, waves):
    env, base = spec_of(env_name, mean)
    spec = base.with_(**changes)
    split = spec.split(env.pools.train.desired_size, env.pools.rollout.desired_size)
    assert (_waves(spec, split) is not None) is waves
    plan = predict(spec, split)
    sim = Simulator.Config(spec, split, steps=24, warmup_steps=8).build().run()
    assert plan.step_time_s == pytest.approx(sim.step_time_s, rel=0.10)
    assert plan.stale_dropped_fraction == pytest.approx(sim.stale_dropped_fraction, abs=0.10)
    assert 1 - plan.rollout_idle_fraction == pytest.approx(1 - sim.rollout_idle_fraction, abs=0.05)
