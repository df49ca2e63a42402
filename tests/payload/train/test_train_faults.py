"""Faults of the trainer on a real Redis, through `python -m payload train`.

A: killed before its first checkpoint completed. Its first step's groups are acknowledged in
the buffer and written to the replay log; the restarted trainer (`--resume auto`) must train
them again from the base model, not start over on the buffer (before: 2 of 4 groups lost).
F: every weight publish fails; the run must stop with an error, not drop its data as stale.
"""

import json
import signal
import time

import msgpack
import numpy as np
import pytest
import redis
import yaml

from payload.queue.base import FeedCursor, RolloutQueue
from payload.queue.experience import decode_group
from payload.common.ports import free_port
from test_train_cli import PROMPTS_PER_STEP, fill, model_dir, redis_url, train, write_job  # noqa: F401 - fixtures

pytestmark = pytest.mark.slow


def replayed(checkpoints, step):
    path = checkpoints / "replay" / f"step-{step:08d}.groups"
    return [decode_group(b) for b in msgpack.unpackb(path.read_bytes())]


def buffered(url, namespace):
    """The groups waiting in the buffer stream, read without consuming them."""
    client = redis.Redis.from_url(url)
    try:
        return [decode_group(fields[b"d"]) for _, fields in client.xrange("{" + namespace + "}:experiences")]
    finally:
        client.close()


def mean_reward(groups):
    return float(np.mean(np.concatenate([g.rewards_G for g in groups])))


def test_groups_acknowledged_before_the_first_checkpoint_are_replayed(tmp_path, model_dir, redis_url):
    namespace = "first-ckpt"
    fill(redis_url, namespace, 0, PROMPTS_PER_STEP)  # one step's worth: the trainer waits for step 2
    checkpoints = tmp_path / "ckpt"
    job = write_job(tmp_path / "job.yaml", model_dir, checkpoints)  # first checkpoint at step 2
    proc = train(job, redis_url, namespace, "--max-steps", "100", wait=False)
    queue = RolloutQueue.Config(backend="redis", url=redis_url, namespace=namespace).build()
    deadline = time.monotonic() + 200
    # Step 1's groups logged and acknowledged (the buffer has none left to hand out).
    while not ((checkpoints / "replay" / "step-00000001.groups").exists() and queue.buffer_fill() == 0):
        assert proc.poll() is None, proc.stdout.read()
        assert time.monotonic() < deadline
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not list(checkpoints.glob("step-*"))  # no checkpoint at all
    first = replayed(checkpoints, 1)
    assert sorted(g.task_id for g in first) == [f"task{i}" for i in range(PROMPTS_PER_STEP)]

    fill(redis_url, namespace, PROMPTS_PER_STEP, PROMPTS_PER_STEP)
    second = buffered(redis_url, namespace)
    assert queue.submit_feed([], FeedCursor(2 * PROMPTS_PER_STEP, "plan", finished=True), expected=None)
    started = time.monotonic()
    train(job, redis_url, namespace, "--max-steps", "100", "--resume", "auto", "--metrics-jsonl",
          str(tmp_path / "m.jsonl"))
    records = [json.loads(line) for line in (tmp_path / "m.jsonl").read_text().splitlines()]
    # Step 1 again from the log, then step 2 from the buffer: every group trained once (the
    # logs are pruned at the final checkpoint; each step's mean reward names its groups).
    assert [(r["step"], r["groups"]) for r in records] == [(1, PROMPTS_PER_STEP), (2, PROMPTS_PER_STEP)]
    assert [r["replayed"] for r in records] == [True, False]  # readers keep the later record of a step
    assert sorted(g.task_id for g in second) == [f"task{i}" for i in range(PROMPTS_PER_STEP, 2 * PROMPTS_PER_STEP)]
    assert [r["mean_reward"] for r in records] == pytest.approx([mean_reward(first), mean_reward(second)], abs=1e-6)
    assert mean_reward(first) != pytest.approx(mean_reward(second), abs=1e-6)
    assert queue.stats().stale_dropped == 0 and queue.stats().duplicates == 0
    assert queue.trainer_progress().groups_dropped == 0
    assert queue.exhausted()
    print(f"recovered in {time.monotonic() - started:.1f} s")
    queue.close()


def test_a_run_whose_publishes_keep_failing_stops_instead_of_dropping_its_data(tmp_path, model_dir, redis_url):
    """F: the one rollout server never takes a publish (nothing listens on its port). Before:
    the trainer trained on, every later group was dropped as stale and the run 'finished' its
    data at step 2 with exit 0. Now: with max_staleness 1 the second failed publish in a row stops
    it with one line, checkpointed, and the rest of the data is still in the buffer."""
    namespace = "publish-fails"
    fill(redis_url, namespace, 0, 4 * PROMPTS_PER_STEP)
    queue = RolloutQueue.Config(backend="redis", url=redis_url, namespace=namespace).build()
    assert queue.submit_feed([], FeedCursor(4 * PROMPTS_PER_STEP, "plan", finished=True), expected=None)
    checkpoints = tmp_path / "ckpt"
    job = write_job(tmp_path / "job.yaml", model_dir, checkpoints)
    config = yaml.safe_load(job.read_text())
    config["rollout"]["max_staleness"] = 1
    config["checkpoint"]["interval_steps"] = 10
    job.write_text(yaml.safe_dump(config))
    dead_server = f"http://127.0.0.1:{free_port()}"
    proc = train(job, redis_url, namespace, "--max-steps", "100", "--rollout-servers", dead_server, wait=False)
    out, _ = proc.communicate(timeout=240)
    assert proc.returncode == 1, out
    [error] = [line for line in out.splitlines() if line.startswith("error:")]
    assert "2 weight publishes in a row failed (rollout.max_staleness 1)" in error and "stopped at step 2" in error
    assert "Traceback" not in out
    assert (checkpoints / "step-00000002" / ".metadata").is_file()
    # Nothing dropped as stale; the two steps not trained wait in the buffer for the fixed run.
    assert queue.stats().stale_dropped == 0 and queue.trainer_progress().groups_dropped == 0
    assert queue.buffer_fill() == 2 * PROMPTS_PER_STEP
    queue.close()
