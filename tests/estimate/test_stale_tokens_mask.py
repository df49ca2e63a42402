"""rollout.stale_tokens mask in the loop models: a group decoded across publishes keeps the
version of every token (SGLang's weight_versions), is dropped only once its newest tokens are
more than max_staleness versions old, and the tokens older than that are masked out of the loss.

The simulator counts it token by token (each replica notes its token clock at every version
bump, each request where on that clock it started); the closed form from each group's token
profile (estimate.planner._profile) in the uniform-phase regime, from the wave's in lock-step
waves. They must agree, on both sides of the waves, with the dataset feeder's window (how the
job runs: a batch of tasks a publish) and with an unlimited feed (where the waves are clearest)."""

from pathlib import Path

import pytest

from estimate.checks import load_environment
from estimate.planner import _waves, predict
from estimate.simulator import Simulator
from estimate.throughput import Assumptions, estimate_rates, loop_spec

THIRTY = str(Path(__file__).resolve().parents[2] / "bench" / "environments" / "nemo-rl-qwen3-30b.yaml")
_specs: dict = {}


def case(env_name: str, model: str, mean: float | None, pause: str, **changes):
    if (env_name, model, mean, pause) not in _specs:
        env = load_environment(env_name, model=model)
        rates = estimate_rates(env, response_mean=mean, a=Assumptions(pause_mode=pause))
        _specs[env_name, model, mean, pause] = env, loop_spec(env, rates)
    env, spec = _specs[env_name, model, mean, pause]
    spec = spec.with_(**changes)
    return spec, spec.split(env.pools.train.desired_size, env.pools.rollout.desired_size)


def simulate(spec, split, steps=24):
    return Simulator.Config(spec, split, steps=steps, warmup_steps=steps // 3).build().run()


@pytest.mark.parametrize("env_name,model,mean,pause,staleness,window,waves", [
    ("p5en-48", "Qwen3-30B-A3B", None, "retract", 4, False, True),  # the shipped 30B unlimited: waves of 3 batches
    ("p5en-48", "Qwen3-30B-A3B", None, "in_place", 3, False, True),
    ("p5en-48", "Qwen3-30B-A3B", 4096, "retract", 2, False, False),  # groups dephased, most tokens masked
    ("p5en-48", "Qwen3-30B-A3B", None, "retract", 4, True, False),  # the shipped 30B as it runs
    ("p5en-48", "Qwen3-30B-A3B", None, "in_place", 2, True, False),
    ("p5en-48", "Qwen3-235B-A22B", None, "in_place", 1, True, False),  # replicas full, requests queued
    (THIRTY, "Qwen3-30B-A3B", 3073, "in_place", 1, True, True),  # one batch a wave: nothing stale
])
def test_the_closed_form_follows_the_simulator_token_by_token(env_name, model, mean, pause, staleness, window, waves):
    # The unlimited feed's waves at 1536 in flight (2048 over the high-water mark half-breaks
    # them: tests/estimate/test_waves.py); the window at what p5en-48 ships.
    in_flight = {} if window or env_name != "p5en-48" else {"groups_in_flight": 1536}
    spec, split = case(env_name, model, mean, pause, stale_tokens="mask", max_staleness=staleness, feed_window=window,
                       **in_flight)
    assert (_waves(spec, split) is not None) is waves
    plan, sim = predict(spec, split), simulate(spec, split)
    assert plan.step_time_s == pytest.approx(sim.step_time_s, rel=0.10)
    assert plan.stale_dropped_fraction == pytest.approx(sim.stale_dropped_fraction, abs=0.05)
    assert plan.stale_masked_fraction == pytest.approx(sim.stale_masked_fraction, abs=0.05)
    assert plan.trained_tokens_per_s == pytest.approx(sim.trained_tokens_per_s, rel=0.10)


def test_mask_trains_what_drop_group_drops_in_the_shipped_waves():
    """The 30B at max_staleness 4, 1536 in flight, on an unlimited feed: drop_group would drop a sixth of
    its groups (a wave's third batch, every other wave); mask keeps them, their first tokens
    masked, and trains more. (With the feeder's window both drop and mask under 2%: below.)"""
    dropping, split = case("p5en-48", "Qwen3-30B-A3B", None, "retract", stale_tokens="drop_group", feed_window=False,
                           groups_in_flight=1536)
    masking = dropping.with_(stale_tokens="mask")
    for model in (lambda s: predict(s, split), lambda s: simulate(s, split)):
        dropped, masked = model(dropping), model(masking)
        assert dropped.stale_dropped_fraction > 0.15 and dropped.stale_masked_fraction == 0
        assert masked.stale_dropped_fraction == 0 and 0 < masked.stale_masked_fraction < 0.10
        assert masked.trained_tokens_per_s > 1.05 * dropped.trained_tokens_per_s  # plan 1.08x, sim 1.18x


def test_with_nothing_stale_mask_and_drop_group_are_the_same_run():
    """Where no token is ever max_staleness versions old the two settings are one rule: the same
    seed gives the same run, step for step."""
    spec, split = case("p5en-48", "Qwen3-30B-A3B", None, "retract", max_staleness=8, stale_tokens="drop_group")
    dropping, masking = simulate(spec, split, steps=12), simulate(spec.with_(stale_tokens="mask"), split, steps=12)
    assert masking.stale_masked_fraction == 0 and masking == dropping


def test_the_feeder_s_window_leaves_little_to_drop_or_mask_in_the_shipped_job():
    """The shipped 30B as it runs: a batch of tasks a publish staggers the claims, no waves form,
    and under either setting under 2% of the groups are dropped or tokens masked; mask trains at
    least as much as drop_group."""
    dropping, split = case("p5en-48", "Qwen3-30B-A3B", None, "retract", stale_tokens="drop_group", feed_window=True)
    masking = dropping.with_(stale_tokens="mask")
    for model in (lambda s: predict(s, split), lambda s: simulate(s, split)):
        dropped, masked = model(dropping), model(masking)
        assert dropped.stale_dropped_fraction < 0.02 and masked.stale_masked_fraction < 0.02
        assert masked.trained_tokens_per_s >= 0.99 * dropped.trained_tokens_per_s
