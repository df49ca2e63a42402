"""Rates from a run's metrics: the trainer's JSONL records and a Prometheus text export."""

import json

import pytest
from prometheus_client import CollectorRegistry, Counter, generate_latest

from spec import signals
from estimate.loop import BalanceError
from estimate.measure import read_metrics


def step(n, wait_s=2.0, **extra):
    record = signals.TrainStepRecord(
        step=n, wall_time=1000.0 + 27 * n, mean_reward=0.5, groups=10, tokens=40_000, tokens_per_s=40_000 / 27,
        trainer_busy_s=20.0, trainer_wait_s=wait_s, publish_s=5.0, buffer_groups=3, staleness_mean=0.4,
        staleness_max=1, groups_dropped_stale=1, policy_version=n,
    )
    # The trainer appends its loss terms and the equal-reward drops to the same line.
    return json.dumps(json.loads(record.to_json()) | {"groups_dropped_filtered": 2, "loss": 0.1} | extra)


def write(tmp_path, lines, name="metrics.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def test_steps_a_restarted_trainer_replayed_count_once(tmp_path):
    """Issue 49 item 7c: steps 1-3, a restart from the step-1 checkpoint, steps 2-3 again
    (replayed) and 4. Before: 5 steps counted, 2 and 3 twice. Now: the later records win."""
    lines = [step(1), step(2, wait_s=100.0), step(3, wait_s=100.0), step(2, replayed=True), step(3, replayed=True),
             step(4)]
    m = read_metrics(write(tmp_path, lines), train_nodes=2, rollout_nodes=2, group_size=4)
    assert m.steps == 3  # 2, 3 (the replayed ones) and 4; step 1 is start-up
    assert m.trainer_wait_fraction == pytest.approx(6 / 81)  # the first run's 100 s waits are gone


def test_a_later_record_supersedes_its_step_and_every_later_one():
    records = [{"step": s, "run": "a"} for s in (1, 2, 3, 4)] + [{"step": s, "run": "b"} for s in (3, 4, 5)]
    assert [(r["step"], r["run"]) for r in signals.current_records(records)] == [
        (1, "a"), (2, "a"), (3, "b"), (4, "b"), (5, "b")]
    # Replayed from a checkpoint at 1 and stopped again after step 2: the first run's 3 and 4 are gone too.
    again = [{"step": s} for s in (1, 2, 3, 4, 2)]
    assert [r["step"] for r in signals.current_records(again)] == [1, 2]


def test_trainer_records_give_every_rate(tmp_path):
    # Step 1 (start-up) is left out; steps 2 and 3 on 2 train and 2 rollout nodes, groups of 4.
    path = write(tmp_path, [step(1, wait_s=300.0), step(2), step(3)])
    m = read_metrics(path, train_nodes=2, rollout_nodes=2, group_size=4)
    assert m.steps == 2
    assert m.rates.trainer_tokens_per_s_per_node == pytest.approx(80_000 / 40 / 2)
    assert m.rates.publish_s == pytest.approx(5.0)
    assert m.rates.response_tokens_mean == pytest.approx(80_000 / (20 * 4))
    assert m.rates.filtered_fraction == pytest.approx(4 / 24)
    # Produced: the trained tokens plus 6 dropped groups of 4000 tokens, over 54 s less 10 s of publishing.
    assert m.rates.rollout_tokens_per_s_per_node == pytest.approx((80_000 + 6 * 4000) / 44 / 2)
    assert m.trainer_wait_fraction == pytest.approx(4 / 54)
    assert m.notes == []


def test_a_trainer_that_never_waited_only_bounds_the_rollout_rate(tmp_path):
    path = write(tmp_path, [step(1, wait_s=0.0), step(2, wait_s=0.0), step(3, wait_s=0.0)])
    m = read_metrics(path, 2, 2, 4)
    assert m.trainer_wait_fraction == 0
    assert any("lower bound" in note for note in m.notes)


def test_rollout_records_give_the_flat_out_rate(tmp_path):
    # Workers over steps 2–3 (wall 1027..1081): 120,000 tokens, paused a quarter of their time.
    rollout = [signals.RolloutRecord(wall_time=1040.0 + i, worker=f"w{i}", interval_s=27, groups=7, tokens=30_000,
                                     busy_s=15.0, idle_s=5.0).to_json() for i in range(4)]
    early = signals.RolloutRecord(wall_time=900.0, worker="w0", interval_s=27, groups=1, tokens=10**9, busy_s=1,
                                  idle_s=0).to_json()
    path = write(tmp_path, [step(1), early, step(2), *rollout, step(3)])
    m = read_metrics(path, 2, 2, 4)
    assert m.rates.rollout_tokens_per_s_per_node == pytest.approx(120_000 / (44 * 0.75) / 2)


def test_prometheus_export_of_the_real_exporters(tmp_path):
    registry = CollectorRegistry()

    def counter(name, value, labels=None):
        c = Counter(name, signals.HELP[name], labelnames=list(labels or {}), registry=registry)
        (c.labels(**labels) if labels else c).inc(value)

    counter(signals.TRAINER_STEPS, 4)
    counter(signals.TRAINER_GROUPS_CONSUMED, 40)
    counter(signals.TRAINER_TOKENS_CONSUMED, 160_000)
    counter(signals.TRAINER_BUSY_SECONDS, 80)
    counter(signals.TRAINER_IDLE_SECONDS, 8)
    counter(signals.TRAINER_PUBLISH_SECONDS, 20)
    c = Counter(signals.ROLLOUT_GROUPS_DROPPED, "drops", [signals.DROP_REASON_LABEL], registry=registry)
    c.labels(signals.DROP_REASON_STALE).inc(4)
    c.labels(signals.DROP_REASON_FILTERED).inc(8)
    path = tmp_path / "metrics.prom"
    path.write_bytes(generate_latest(registry))
    m = read_metrics(path, train_nodes=4, rollout_nodes=2, group_size=4)
    assert m.steps == 4
    assert m.rates.trainer_tokens_per_s_per_node == pytest.approx(160_000 / 80 / 4)
    assert m.rates.publish_s == pytest.approx(5.0)
    assert m.rates.filtered_fraction == pytest.approx(8 / 48)
    assert m.rates.rollout_tokens_per_s_per_node == pytest.approx((160_000 + 12 * 4000) / 88 / 2)


@pytest.mark.parametrize(
    "content,message",
    [
        ([], "empty"),
        (["{\"kind\": \"rollout\"}"], "0 train_step record"),
        (["{\"kind\": \"train_step\", \"step\": 1}", "{\"kind\": \"train_step\", \"step\": 2}"],
         "train_step record without groups, tokens"),
        (["not json {"], "neither metrics JSONL nor Prometheus text"),
        (["{\"kind\": \"train_step\"", "x"], ":1: not a JSON object"),
    ],
)
def test_unreadable_metrics_are_one_line_errors(tmp_path, content, message):
    path = write(tmp_path, content)
    with pytest.raises(BalanceError, match=message):
        read_metrics(path, 1, 1, 4)


def test_missing_file(tmp_path):
    with pytest.raises(BalanceError, match="--from-metrics .*nope.jsonl: no such file"):
        read_metrics(tmp_path / "nope.jsonl", 1, 1, 4)


def test_the_trainers_own_response_length_wins_over_the_group_size_guess(tmp_path):
    # The demo's groups need not be the environment's group size; the trainer writes the mean.
    path = write(tmp_path, [step(n, response_length_mean=250.0) for n in (1, 2, 3)])
    m = read_metrics(path, 1, 1, group_size=4)
    assert m.rates.response_tokens_mean == pytest.approx(250.0)
