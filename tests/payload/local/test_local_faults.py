"""`python -m payload local` on a real Redis under faults a cluster sees: a rollout worker
killed with SIGKILL while it holds a task (item 2 of issue 30), and Redis itself killed and
restarted from its append-only file mid-run (fault E). The run must finish with every process
ridden through it (or restarted, like a Deployment's pod), every submitted task trained exactly
once and nothing left in the queue."""

import json
import os
import signal
import subprocess
import threading
import time

import pytest
import redis
import yaml

from payload.local.launcher import processes_of_run
from tests.payload.local.test_local_demo import ENV, REPO, local, stop_run
from tests.payload.queue.redis_server import started

pytestmark = pytest.mark.slow
STEPS = 4


def start_run(tmp_path, server):
    run = tmp_path / "run"
    launcher = subprocess.Popen(local("--steps", str(STEPS), "--seed", "0", "--redis", server.url, "--output", str(run)),
                                cwd=REPO, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return run, launcher


def steps_done(run) -> int:
    metrics = run / "metrics.jsonl"
    if not metrics.is_file():
        return 0
    return sum('"train_step"' in line for line in metrics.read_text().splitlines())


def held_by_rollout(client) -> int:
    """Tasks the rollout worker holds now (the task stream's pending entries, any namespace)."""
    held = 0
    for key in client.scan_iter("{local-*}:tasks"):
        held += client.xpending(key, "workers")["pending"]
    return held


def rollout_workers(run) -> list[int]:
    found = []
    for pid in processes_of_run(run):
        try:
            if b"rollout" in open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0"):
                found.append(pid)
        except OSError:  # exited meanwhile
            pass
    return found


def assert_nothing_lost(run, launcher, out):
    assert launcher.returncode == 0, out
    assert "Traceback" not in out
    summary = json.loads((run / "summary.json").read_text())
    records = [r for r in map(json.loads, (run / "metrics.jsonl").read_text().splitlines()) if r["kind"] == "train_step"]
    assert [r["step"] for r in records] == list(range(1, STEPS + 1))
    assert summary["tasks_submitted"] == summary["groups_trained"] == STEPS * summary["config"]["prompts_per_step"]
    assert summary["groups_dropped_stale"] == 0
    # No dead letter, no leftover. `duplicates` counts copies the queue refused or the trainer
    # dropped (payload/queue/redis_streams.py: complete's check, ingest's dedupe), never trained
    # ones: a Redis killed between a complete's AOF write and its reply makes the worker send it
    # again after the restart (a CI run met one). Nothing trained twice is the equality above.
    left = {k: v for k, v in summary["queue_left"].items() if k != "duplicates"}
    assert not any(left.values()), summary["queue_left"]
    assert {c["exit_code"] for c in summary["children"].values()} == {0}
    assert processes_of_run(run) == []
    return summary


def test_a_killed_rollout_worker_and_a_killed_redis_lose_nothing(tmp_path):
    """One run, two faults (each costs a whole run's start-up otherwise): the rollout worker is
    SIGKILLed while it holds a task after step 1, and Redis is killed and restarted from its AOF
    after step 2."""
    server = started()
    client = redis.Redis.from_url(server.url)
    run, launcher, restart = tmp_path / "run", None, None
    try:
        run, launcher = start_run(tmp_path, server)
        deadline = time.monotonic() + 400
        while not (steps_done(run) >= 1 and held_by_rollout(client) > 0):
            assert launcher.poll() is None and time.monotonic() < deadline, launcher.communicate()[0]
            time.sleep(0.02)
        [pid] = rollout_workers(run)
        os.kill(pid, signal.SIGKILL)
        while steps_done(run) < 2 or rollout_workers(run) in ([], [pid]):  # until its replacement runs
            assert launcher.poll() is None and time.monotonic() < deadline, launcher.communicate()[0]
            time.sleep(0.05)
        pids = set(processes_of_run(run))  # the restarted worker among them
        server.stop(kill=True)  # feeder, rollout, verifier, both trainer ranks and the launcher all lose it
        restart = threading.Timer(8.0, server.start)
        restart.start()
        out, _ = launcher.communicate(timeout=300)
        restart.join()
        summary = assert_nothing_lost(run, launcher, out)
        assert summary["restarts"] == {"rollout": 1}  # the killed worker; the Redis outage ridden out
        # The groups counted carry routing replay's routes (the worker fails a response without them).
        assert yaml.safe_load((run / "job.yaml").read_text())["rollout"]["return_routed_experts"] is True
        assert {c["pid"] for c in summary["children"].values()} <= pids
    finally:
        if restart is not None:
            restart.cancel()  # a failure before it fired: no Redis started after the test
        stop_run(launcher, run)
        client.close()
        server.close()
