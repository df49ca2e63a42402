"""Fill-dependent decode (estimate.loop.DecodeSpeed): a step reads the running requests' KV, so a
replica that runs fewer requests decodes each faster; the planner and the simulator both use it."""

import pytest

from estimate.checks import load_environment
from estimate.loop import DecodeSpeed, ResponseLengths
from estimate.planner import predict
from estimate.simulator import Simulator
from estimate.throughput import estimate_rates, loop_spec

# A replica where weights take 10 ms a step and each running request's KV 0.1 ms: 16.4 ms at 64.
DECODE = DecodeSpeed(dense_s=0.004, experts_s=0.006, expert_share=1.0, kv_s=1e-4, flops_s=0.0, fixed_s=0.0)


def test_a_step_reads_the_weights_once_and_each_running_requests_kv():
    assert DECODE.step_s(64) == pytest.approx(0.0164)
    assert DECODE.step_s(1) == pytest.approx(0.0101) and DECODE.step_s(0) == DECODE.step_s(1)
    # Experts a batch touches: a layer's E, each missed by a request with probability 1 - K/E.
    sparse = DecodeSpeed(dense_s=0.0, experts_s=1.0, expert_share=8 / 128, kv_s=0.0, flops_s=0.0, fixed_s=0.0)
    assert sparse.step_s(1) == pytest.approx(8 / 128) and sparse.step_s(512) == pytest.approx(1.0)
    # Compute-bound past the read; eager launches above the CUDA graph.
    assert DecodeSpeed(0.001, 0.0, 1.0, 0.0, 1e-4, 0.002, graph_max_bs=64, eager_s=0.005).step_s(100) == pytest.approx(
        0.01 + 0.002 + 0.005)


def test_a_request_decodes_faster_as_its_replica_drains(spec_factory):
    spec = spec_factory(decode=DECODE)
    assert spec.request_tokens_per_s_at(64) == spec.request_tokens_per_s
    assert spec.request_tokens_per_s_at(100) == spec.request_tokens_per_s  # queued beyond the slots
    assert spec.request_tokens_per_s_at(8) == pytest.approx(spec.request_tokens_per_s * 0.0164 / 0.0108)
    assert spec_factory().request_tokens_per_s_at(8) == spec_factory().request_tokens_per_s  # no model: one speed


def test_the_simulated_replica_runs_at_the_speed_of_its_batch(spec_factory):
    """One group of 8 near-equal responses on one replica: all 8 run the whole time, so the group
    takes a response's length at request_tokens_per_s_at(8), not at the full replica's speed."""
    lengths = ResponseLengths(500, 1e-3, 2048)
    fixed = spec_factory(lengths=lengths, groups_in_flight=1, prompts_per_step=1, publish_s=1e-9)
    shared = fixed.with_(decode=DECODE)
    one, drains = [Simulator.Config(s, s.split(1, 1), steps=6, warmup_steps=2).build().run() for s in (fixed, shared)]
    assert one.group_latency_s == pytest.approx(500 / fixed.request_tokens_per_s, rel=5e-3)
    assert drains.group_latency_s == pytest.approx(500 / shared.request_tokens_per_s_at(8), rel=5e-3)
    assert drains.group_latency_s < 0.7 * one.group_latency_s


def test_an_underfed_replica_gives_more_than_its_share_of_slots(spec_factory):
    """The planner's replica rate with 16 of 64 slots fed: 25% without the model, more with it,
    and the simulator agrees on the step."""
    spec = spec_factory(decode=DECODE, groups_in_flight=16)
    split = spec.split(4, 4)
    without = predict(spec.with_(decode=None), split)
    plan = predict(spec, split)
    assert without.replica_utilisation < plan.replica_utilisation < 1
    sim = Simulator.Config(spec, split, steps=30, warmup_steps=5, seed=1).build().run()
    assert plan.step_time_s == pytest.approx(sim.step_time_s, rel=0.10)


def test_the_planner_fits_the_shipped_30b_with_the_model():
    env = load_environment("p5en-48")
    e = estimate_rates(env)
    spec = loop_spec(env, e)
    assert spec.decode is e.engine.decode and spec.decode.step_s(e.engine.batch) == pytest.approx(e.engine.decode_step_s)
    # Half of a 513-request step is KV: at a third of the batch a request runs about twice as fast.
    assert 1.7 < spec.request_tokens_per_s_at(e.engine.batch / 3) / spec.request_tokens_per_s < 2.5


def test_a_retracting_pause_re_prefills_what_runs_and_an_in_place_one_nothing(spec_factory):
    """rollout.pause_mode: retract frees the running requests' KV, so each publish adds their
    re-prefill (LoopSpec.reprefill_s for a full batch, scaled by the requests running); in place
    the tails go on under the new weights from their KV (partial rollouts) and add nothing."""
    retract = spec_factory(groups_in_flight=16, reprefill_s=8.0)
    in_place = retract.with_(reprefill_s=0.0)
    split = retract.split(4, 4)
    assert retract.publish_s_at(32) == 1.0 + 8.0 * 32 / 64 and retract.publish_s_at(500) == 9.0
    assert in_place.publish_s_at(64) == 1.0
    plans = [predict(s, split) for s in (retract, in_place)]
    paused = [p.trainer_publish_fraction * p.step_time_s for p in plans]
    # 4 groups of 8 a replica with a third or so of their requests still running: 1 s + ~8/5 s.
    assert 1.0 < paused[0] < 1.0 + 8.0 * 32 / 64 and paused[1] == pytest.approx(1.0)
    assert plans[0].step_time_s > plans[1].step_time_s
    for spec, plan in zip((retract, in_place), plans):
        sim = Simulator.Config(spec, split, steps=30, warmup_steps=5, seed=1).build()
        result = sim.run()
        simulated = sum(r[2] for r in sim.records[5:]) / 25
        assert simulated == pytest.approx(plan.trainer_publish_fraction * plan.step_time_s, rel=0.15)
        assert result.step_time_s == pytest.approx(plan.step_time_s, rel=0.10)
