"""Publishes that keep failing end the run the designed way (issue 49 item 2), through
`python -m payload train` on a real Redis with the held-out eval on.

The one rollout server accepts connections and never answers (a server held paused, as a
failed publish leaves it): every publish fails and no group will ever come. Before: after
step 1 the trainer waited for step 2's groups until its stall watchdog (900 s) restarted it,
again and again; with max_staleness 0 the final eval waited on the paused server. Now: the
trainer publishes the same weights again every retry_s while it waits, and max_staleness + 1
failures in a row stop it with one line and a checkpoint, well inside the watchdog, with no
eval waited on."""

import json
import os
import socket
import subprocess
import sys
import time

import numpy as np
import pytest
import yaml

from payload.local.task import VOCAB, write_policy, write_problems
from payload.queue.base import RolloutQueue, Stage
from payload.queue.experience import ExperienceGroup, Sample, Task
from test_train_cli import PROMPTS_PER_STEP, REPO, redis_url  # noqa: F401 - fixture
from train_cases import GROUP_SIZE

pytestmark = pytest.mark.slow
STALL_TIMEOUT_S = 30.0
PROBE_TIMEOUT_S = 5.0  # WeightPublisher.Config.probe_timeout_s: how long a failed publish takes here


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """The local demo's toy policy (with its tokenizer) and its eval set."""
    root = tmp_path_factory.mktemp("toy")
    write_policy(root / "model", seed=0)
    train, evaluation = write_problems(root / "data", seed=0)
    return root / "model", train, evaluation


@pytest.fixture
def paused_server():
    """Accepts connections, never answers: what a held (paused) rollout server looks like."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"


def one_step_of_groups(url, namespace):
    queue = RolloutQueue.Config(backend="redis", url=url, namespace=namespace).build()
    rng = np.random.default_rng(0)
    for i in range(PROMPTS_PER_STEP):
        prompt = rng.integers(2, len(VOCAB), 6)
        queue.submit([Task(f"task{i}", f"task{i}", prompt, GROUP_SIZE)])
        delivery = queue.claim(Stage.ROLLOUT, "worker", block_s=1)
        samples = [Sample(rng.integers(2, len(VOCAB), 1), -rng.random(1), "stop", reward=float(rng.random()))
                   for _ in range(GROUP_SIZE)]
        queue.complete(delivery, ExperienceGroup(f"task{i}", f"task{i}", 0, prompt, samples))
    return queue


@pytest.mark.parametrize("max_staleness", [0, 1, 4])
def test_publishes_that_keep_failing_stop_the_run_checkpointed_without_waiting_on_eval(
        tmp_path, toy, redis_url, paused_server, max_staleness):
    model, train_set, eval_set = toy
    namespace = f"stall-{max_staleness}"
    queue = one_step_of_groups(redis_url, namespace)  # the feed is not finished: step 2 waits
    checkpoints = tmp_path / "ckpt"
    job = tmp_path / "job.yaml"
    job.write_text(yaml.safe_dump({
        "model": {"path": str(model), "dtype": "float32", "activation_checkpointing": False},
        "parallel": {"expert_parallel_size": 1, "ep_backend": "local"},
        "algorithm": {"group_size": GROUP_SIZE, "learning_rate": 1e-2},
        "batch": {"prompts_per_step": PROMPTS_PER_STEP, "micro_batch_size": 4, "max_prompt_tokens": 32,
                  "max_response_tokens": 1},
        "rollout": {"max_staleness": max_staleness},
        "eval": {"interval_steps": 1, "temperature": 0.0},
        "data": {"train": str(train_set), "eval": str(eval_set), "columns": {"prompt": "prompt", "label": "answer"},
                 "verifier": "exact_match", "chat_template": False},
        "checkpoint": {"directory": str(checkpoints), "interval_steps": 10, "keep_last": 2,
                       "export_interval_steps": 10},
    }))
    command = [sys.executable, "-m", "payload", "train", "--job-config", str(job), "--queue-url", redis_url,
               "--namespace", namespace, "--metrics-port", "0", "--max-steps", "100", "--rollout-servers",
               paused_server, "--stall-timeout-s", str(STALL_TIMEOUT_S), "--metrics-jsonl", str(tmp_path / "m.jsonl")]
    started = time.monotonic()
    try:
        proc = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120,
                              env=dict(os.environ, PYTHONPATH=str(REPO), OMP_NUM_THREADS="1"))
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the trainer did not stop: {(exc.stderr or b'').decode()[-4000:]}")
    took = time.monotonic() - started
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    [error] = [line for line in out.splitlines() if line.startswith("error:")]
    failures = max_staleness + 1
    assert f"{failures} weight publishes in a row failed (rollout.max_staleness {max_staleness})" in error, error
    assert "stopped at step 1 (checkpointed)" in error and "Traceback" not in out
    assert (checkpoints / "step-00000001" / ".metadata").is_file()
    assert out.count("publishing version 1 again") == max_staleness
    # The first failure, then max_staleness retries each retry_s apart: about half the watchdog.
    retry_s = STALL_TIMEOUT_S / (2 * failures)
    assert took < STALL_TIMEOUT_S / 2 + failures * PROBE_TIMEOUT_S + 30, (took, out[-3000:])
    assert took > max_staleness * retry_s
    records = [json.loads(line) for line in (tmp_path / "m.jsonl").read_text().splitlines()]
    assert [r["step"] for r in records if r["kind"] == "train_step"] == [1]
    assert not [r for r in records if r["kind"] == "eval"]  # no eval answered: none was waited for
    # The step's groups were trained and acknowledged; nothing dropped or left dead.
    assert queue.buffer_fill() == 0 and queue.stats().stale_dropped == 0
    queue.close()
    print(f"\nmax_staleness {max_staleness}: stopped after {failures} failed publishes in {took:.1f} s "
          f"(retry every {retry_s:.1f} s, watchdog {STALL_TIMEOUT_S:.0f} s)")
