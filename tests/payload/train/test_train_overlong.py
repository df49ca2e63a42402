"""DAPO's soft overlong punishment (algorithm.overlong_penalty) against a float64 reference
written from the paper's formula one sample at a time, the shaped rewards through the GRPO
normalisation, the job setting's errors, and the length statistics in the trainer's per-step
metrics: Prometheus gauges from `_record`, and metrics.jsonl from a real `python -m payload train`."""

import json
import math
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from prometheus_client import generate_latest

from payload.queue.experience import ExperienceGroup, Sample
from payload.train.advantages import group_advantages
from payload.train.shaping import length_metrics, overlong_penalty, shaped_rewards
from spec.job import JobConfigError, OverlongPenalty, parse_job_config
from test_train_cli import model_dir, redis_url  # noqa: F401 - fixtures
from test_train_loss import reference_advantages


def reference_penalty(length: int, l_max: int, l_cache: int, factor: float) -> float:
    """DAPO §3.4, R_length(y), times factor: one Python float at a time."""
    if length <= l_max - l_cache:
        return 0.0
    if length <= l_max:
        return factor * ((l_max - l_cache) - length) / l_cache
    return -factor


@pytest.mark.parametrize("l_max, l_cache, factor", [(64, 16, 1.0), (64, 64, 0.5), (20, 1, 2.0), (4096, 1024, 1.0)])
def test_penalty_matches_float64_reference(l_max, l_cache, factor):
    g = torch.Generator().manual_seed(l_max + l_cache)
    lengths = torch.randint(0, l_max + 8, (40,), generator=g, dtype=torch.int64)
    # The boundaries: the buffer's edge, its first token, L_max, one past it.
    lengths = torch.cat([lengths, torch.tensor([l_max - l_cache, l_max - l_cache + 1, l_max, l_max + 1])])
    got = overlong_penalty(lengths.to(torch.float64), l_max, l_cache, factor)
    assert got.dtype == torch.float64
    expected = [reference_penalty(int(n), l_max, l_cache, factor) for n in lengths]
    assert got.tolist() == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert got[-4].item() == 0.0 and got[-3].item() == pytest.approx(-factor / l_cache, rel=1e-15)
    assert got[-2].item() == -factor and got[-1].item() == -factor  # truncated at L_max, and beyond: -factor
    # Integer lengths come back as float32 at least.
    assert overlong_penalty(lengths, l_max, l_cache, factor).dtype == torch.float32


def test_shaping_comes_before_the_group_normalisation():
    """Two groups of 4: the first all correct (equal raw rewards, no signal) but of different
    lengths, so the penalty alone ranks them; the second mixed."""
    l_max, l_cache = 16, 8
    raw = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0])
    lengths = [3, 9, 12, 16, 8, 16, 10, 14]
    shaped, penalty = shaped_rewards(raw, lengths, l_max, OverlongPenalty(buffer_tokens=l_cache))
    expected_penalty = [reference_penalty(n, l_max, l_cache, 1.0) for n in lengths]
    assert penalty.dtype == np.float64 and penalty.tolist() == pytest.approx(expected_penalty, rel=1e-12, abs=1e-15)
    assert shaped.tolist() == pytest.approx([r + p for r, p in zip(raw, expected_penalty)], rel=1e-12, abs=1e-15)
    for scale in ("group", "batch", "none"):
        got = group_advantages(torch.tensor(shaped), 4, scale)
        reference = reference_advantages([r + p for r, p in zip(raw, expected_penalty)], 4, scale, 1e-6)
        assert got.tolist() == pytest.approx(reference, rel=1e-12, abs=1e-15)
    # The all-correct group now carries signal: the shortest answer is the best one.
    adv = group_advantages(torch.tensor(shaped), 4).tolist()
    assert adv[0] > adv[1] > adv[2] > adv[3]
    # Off: the rewards are the verifiers', unchanged, and no penalty.
    off, zero = shaped_rewards(raw.astype(np.float32), lengths, l_max, None)
    assert off.tolist() == raw.tolist() and not zero.any()


def test_length_metrics_match_reference():
    lengths = [3, 9, 12, 16, 8, 16, 10, 14, 1, 16]
    truncated = [n == 16 for n in lengths]
    penalty = np.array([reference_penalty(n, 16, 8, 1.0) for n in lengths])
    got = length_metrics(lengths, truncated, penalty)
    ordered = sorted(lengths)
    rank = 0.95 * (len(ordered) - 1)  # linear interpolation between closest ranks
    p95 = ordered[int(rank)] + (rank - int(rank)) * (ordered[int(rank) + 1] - ordered[int(rank)])
    assert got == pytest.approx({
        "response_length_mean": sum(lengths) / len(lengths), "response_length_max": 16, "response_length_p95": p95,
        "response_clip_ratio": 0.3, "overlong_penalty_mean": math.fsum(penalty) / len(penalty)}, rel=1e-12)
    assert length_metrics([], [], np.zeros(0)) == {}


def test_setting_is_off_by_default_left_out_of_the_rendered_job_and_bad_values_name_the_field():
    job = parse_job_config({}, "test")
    assert job.algorithm.overlong_penalty is None
    assert "overlong_penalty" not in job.model_dump(mode="json")["algorithm"]
    on = parse_job_config({"algorithm": {"overlong_penalty": {"buffer_tokens": 4096}}}, "test")
    assert on.algorithm.overlong_penalty == OverlongPenalty(buffer_tokens=4096, factor=1.0)
    assert parse_job_config(on.model_dump(mode="json"), "test") == on
    bad = {
        "job.algorithm.overlong_penalty.buffer_tokens: Input should be greater than or equal to 1": {"buffer_tokens": 0},
        "job.algorithm.overlong_penalty.buffer_tokens: required field is missing": {"factor": 1.0},
        "job.algorithm.overlong_penalty.factor: Input should be greater than 0": {"buffer_tokens": 8, "factor": 0},
        "unknown key 'buffr_tokens' in job.algorithm.overlong_penalty: did you mean 'buffer_tokens'?":
            {"buffer_tokens": 8, "buffr_tokens": 8},
        "job: algorithm.overlong_penalty.buffer_tokens 8193 must be at most batch.max_response_tokens 8192":
            {"buffer_tokens": 8193},
    }
    for message, value in bad.items():
        with pytest.raises(JobConfigError) as err:
            parse_job_config({"algorithm": {"overlong_penalty": value}}, "test")
        assert str(err.value).startswith(f"test: {message}") and "\n" not in str(err.value), str(err.value)


def _group(task_id: str, lengths: list[int], rewards: list[float], cap: int) -> ExperienceGroup:
    rng = np.random.default_rng(len(task_id))
    samples = [Sample(rng.integers(1, 256, n), -rng.random(n), "length" if n >= cap else "stop", reward=r)
               for n, r in zip(lengths, rewards)]
    return ExperienceGroup(task_id, task_id, 0, rng.integers(1, 256, 3), samples)


def test_record_sets_the_length_gauges_and_the_jsonl_line(tmp_path):
    from payload.train.trainer import Batch, Trainer, TrainerMetrics

    job = parse_job_config({"algorithm": {"group_size": 4, "overlong_penalty": {"buffer_tokens": 4, "factor": 0.5}},
                            "batch": {"max_response_tokens": 8}}, "test")
    this = SimpleNamespace(metrics=TrainerMetrics(), queue=SimpleNamespace(buffer_fill=lambda: 0), tracker=None,
                           config=SimpleNamespace(job=job, metrics_jsonl=str(tmp_path / "m.jsonl")),
                           world=SimpleNamespace(device=torch.device("cpu")))
    this._rewards = lambda samples: Trainer._rewards(this, samples)
    # Sample generations and TensorBoard are off here (their own test: test_train_samples.py).
    this.events, this._log_samples = None, lambda step, batch: None
    batch = Batch([_group("a", [2, 5, 7, 8], [1, 1, 1, 1], 8), _group("b", [8, 1, 6, 4], [0, 1, 0, 1], 8)])
    Trainer._record(this, 1, batch, {"step_seconds": 1.0}, 0.0)
    lengths = [2, 5, 7, 8, 8, 1, 6, 4]
    expected = {"response_length_mean": 41 / 8, "response_length_max": 8.0,
                "response_length_p95": float(np.percentile(lengths, 95)), "response_clip_ratio": 0.25,
                "overlong_penalty_mean": np.mean([reference_penalty(n, 8, 4, 0.5) for n in lengths])}
    text = generate_latest(this.metrics.registry).decode()
    for name, value in expected.items():
        (line,) = [x for x in text.splitlines() if x.startswith(f"rl_trainer_{name} ")]
        assert float(line.split()[1]) == pytest.approx(value, rel=1e-6), line
    (record,) = [json.loads(x) for x in (tmp_path / "m.jsonl").read_text().splitlines()]
    assert {k: record[k] for k in expected} == pytest.approx(expected, rel=1e-12)
    assert record["mean_reward"] == pytest.approx(6 / 8)  # the verifiers' reward, before shaping


@pytest.mark.slow
def test_local_run_trains_a_group_only_the_penalty_separates_and_logs_length_statistics(tmp_path, model_dir, redis_url):
    """`python -m payload train` on CPU against a real redis buffer, max_response_tokens 8 and a
    4-token buffer: the all-correct group of lengths 2, 5, 7, 8 (the last truncated) has equal
    raw rewards, which DAPO filtering would drop; shaped, it is trained, and metrics.jsonl
    carries the step's length statistics."""
    from payload.queue.base import RolloutQueue, Stage
    from payload.queue.experience import Task
    from test_train_cli import train, write_job

    queue = RolloutQueue.Config(backend="redis", url=redis_url, namespace="overlong").build()
    groups = [_group("all-correct", [2, 5, 7, 8], [1, 1, 1, 1], 8), _group("mixed", [8, 1, 6, 4], [0, 1, 0, 1], 8)]
    for group in groups:
        queue.submit([Task(group.task_id, group.task_id, group.prompt_tokens_P, 4)])
        queue.complete(queue.claim(Stage.ROLLOUT, "worker", block_s=1), group)
    queue.close()
    job = write_job(tmp_path / "job.yaml", model_dir, tmp_path / "ckpt", overlong_penalty={"buffer_tokens": 4})
    train(job, redis_url, "overlong", "--max-steps", "1", "--metrics-jsonl", str(tmp_path / "m.jsonl"))
    (record,) = [json.loads(x) for x in (tmp_path / "m.jsonl").read_text().splitlines()]
    lengths = [2, 5, 7, 8, 8, 1, 6, 4]
    assert record["groups"] == 2 and record["groups_dropped_filtered"] == 0
    assert record["response_length_mean"] == pytest.approx(41 / 8)
    assert record["response_length_max"] == 8
    assert record["response_length_p95"] == pytest.approx(float(np.percentile(lengths, 95)))
    assert record["response_clip_ratio"] == 0.25
    assert record["overlong_penalty_mean"] == pytest.approx(np.mean([reference_penalty(n, 8, 4, 1.0) for n in lengths]))
