"""The Capacity Block's end reaches a real trainer process on CPU (issue 46 item 5): with
RL_STOP_AT in its environment (what `make scale` derives from the block's EndDate,
infra/capacity.py), the trainer trains while there is experience, stops at the deadline the
way SIGTERM stops it (every rank agrees, the checkpoint is written and waited for) and exits 0,
without anyone signalling it."""

import json
import time

import pytest
import yaml

from payload.train.deadline import DeadlineError, parse_stop_at, past
from test_train_cli import PROMPTS_PER_STEP, fill, model_dir, redis_url, train, write_job  # noqa: F401 (fixtures)

STOP_AFTER_S = 45


def test_the_trainer_checkpoints_and_exits_0_at_its_stop_at_time(tmp_path, model_dir, redis_url):  # noqa: F811
    fill(redis_url, "stopat", 0, 2 * PROMPTS_PER_STEP)  # two steps of experience, of --max-steps 4
    job = yaml.safe_load(write_job(tmp_path / "job.yaml", model_dir, tmp_path / "ckpt").read_text())
    job["checkpoint"]["interval_steps"] = 100  # only the stop writes one
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(job))
    metrics = tmp_path / "metrics.jsonl"
    stop_at = time.time() + STOP_AFTER_S
    proc = train(tmp_path / "job.yaml", redis_url, "stopat", "--resume", "none", "--metrics-jsonl", str(metrics),
                 wait=False, RL_STOP_AT=f"{stop_at:.3f}")
    try:
        out, _ = proc.communicate(timeout=STOP_AFTER_S + 120)
    finally:
        proc.kill()
    assert proc.returncode == 0, out
    # It stopped on its own, not before the deadline, after the two steps it had data for...
    assert time.time() >= stop_at
    assert [json.loads(line)["step"] for line in metrics.read_text().splitlines()] == [1, 2], out
    assert "RL_STOP_AT reached" in out
    # ... with step 2 checkpointed (the run resumes from it on the next block).
    assert (tmp_path / "ckpt" / "step-00000002" / ".metadata").is_file()


def test_a_bad_stop_at_is_one_line_exit_2(tmp_path, model_dir, redis_url):  # noqa: F811
    proc = train(write_job(tmp_path / "job.yaml", model_dir, tmp_path / "ckpt"), redis_url, "badstop", wait=False,
                 RL_STOP_AT="tomorrow")
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 2 and "RL_STOP_AT='tomorrow': expected seconds since the epoch" in out
    assert "Traceback" not in out


def test_stop_at_forms():
    assert parse_stop_at("2026-12-07T08:30:00Z") == parse_stop_at("2026-12-07T08:30:00+00:00") == 1796632200.0
    assert parse_stop_at("1796632200") == 1796632200.0
    with pytest.raises(DeadlineError, match="time zone"):
        parse_stop_at("2026-12-07T08:30:00")
    assert not past(None) and past(10.0, clock=lambda: 10.0) and not past(10.0, clock=lambda: 9.9)
