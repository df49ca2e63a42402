"""`python -m payload train` end to end on CPU against a real redis-server buffer.

Resume: run A trains 4 steps uninterrupted (its buffer also holds equal-reward groups, which
DAPO filtering drops). Run B, on a buffer with the same informative groups, is SIGKILLed once
step 3's groups are in the replay log (they are acknowledged in Redis by then), restarted
with `--resume auto`, and finishes; its step-4 checkpoint equals A's bit for bit, and its MLflow
run (a real `mlflow server`) is one run that the restart resumed. Bad job
configs exit 2 with one line naming the field.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from torch.distributed.checkpoint.format_utils import dcp_to_torch_save

from payload.model import save_pretrained
from payload.queue.base import RolloutQueue, Stage
from payload.queue.experience import ExperienceGroup, Sample, Task
from payload.train.tracking import TAG_FINAL_EXPORT, TAG_RESTARTS
from tests.mlflow_server import server as mlflow_server
from tests.payload.queue.redis_server import started
from train_cases import GROUP_SIZE, tiny_model

REPO = Path(__file__).resolve().parents[3]
PROMPTS_PER_STEP = 2


@pytest.fixture(scope="module")
def redis_url():
    server = started()
    yield server.url
    server.close()


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("model")
    save_pretrained(tiny_model(), path)
    return path


def write_job(path: Path, model_dir: Path, checkpoints: Path, **algorithm) -> Path:
    job = {
        "model": {"path": str(model_dir), "dtype": "float32", "activation_checkpointing": False},
        "parallel": {"expert_parallel_size": 1, "ep_backend": "local"},
        "algorithm": {"group_size": GROUP_SIZE, "learning_rate": 1e-2, "tis_cap": 2.0, **algorithm},
        "batch": {"prompts_per_step": PROMPTS_PER_STEP, "micro_batch_size": 4, "max_response_tokens": 8},
        "rollout": {"max_staleness": 100},
        "checkpoint": {"directory": str(checkpoints), "interval_steps": 2, "keep_last": 2, "export_interval_steps": 2},
    }
    path.write_text(yaml.safe_dump(job))
    return path


def fill(url: str, namespace: str, first: int, count: int, equal_reward_every: int = 0) -> int:
    """Groups `first` .. `first + count - 1`, deterministic, through the queue's real path;
    with `equal_reward_every`, an extra group whose rewards are all equal after every that
    many (DAPO filtering must drop them without changing what is trained). Returns how many
    such groups it added."""
    queue = RolloutQueue.Config(backend="redis", url=url, namespace=namespace).build()
    added = 0

    def put(task_id, g, reward=None):
        prompt = g.integers(1, 256, g.integers(2, 6))
        queue.submit([Task(task_id, task_id, prompt, GROUP_SIZE)])
        delivery = queue.claim(Stage.ROLLOUT, "worker", block_s=1)
        samples = []
        for _ in range(GROUP_SIZE):
            n = int(g.integers(1, 7))
            r = float(g.random()) if reward is None else reward
            samples.append(Sample(g.integers(1, 256, n), -g.random(n) * 5, "stop", reward=r))
        queue.complete(delivery, ExperienceGroup(task_id, task_id, 0, prompt, samples))

    for i in range(first, first + count):
        put(f"task{i}", np.random.default_rng(i))
        if equal_reward_every and (i + 1) % equal_reward_every == 0:
            put(f"equal{i}", np.random.default_rng(10_000 + i), reward=1.0)
            added += 1
    queue.close()
    return added


def train(job: Path, url: str, namespace: str, *extra: str, wait: bool = True, **env_vars: str):
    command = [sys.executable, "-m", "payload", "train", "--job-config", str(job), "--queue-url", url, "--namespace", namespace,
               "--metrics-port", "0", "--max-steps", "4", *extra]
    env = dict(os.environ, PYTHONPATH=str(REPO), OMP_NUM_THREADS="1", **env_vars)
    proc = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if wait:
        out, _ = proc.communicate(timeout=240)
        assert proc.returncode == 0, out
    return proc


def model_tensors(checkpoint: Path, tmp: Path) -> dict[str, torch.Tensor]:
    dcp_to_torch_save(checkpoint, tmp)
    return torch.load(tmp, weights_only=False)["model"]


@pytest.fixture
def mlflow_url(tmp_path):
    (tmp_path / "mlflow").mkdir()
    with mlflow_server.started(tmp_path / "mlflow") as (url, _):
        yield url


def test_kill_and_resume_auto_continue_bitwise(tmp_path, model_dir, redis_url, mlflow_url):
    equal_groups = fill(redis_url, "a", 0, 4 * PROMPTS_PER_STEP, equal_reward_every=3)
    job_a = write_job(tmp_path / "a.yaml", model_dir, tmp_path / "ckpt-a")
    train(job_a, redis_url, "a", "--metrics-jsonl", str(tmp_path / "a.jsonl"))

    # B: only 3 steps of experience, so it cannot finish; killed once step 3 has its groups and
    # step 2's checkpoint, written in the background, is complete. It logs to a real MLflow
    # server: the restarted trainer goes on in the same run.
    fill(redis_url, "b", 0, 3 * PROMPTS_PER_STEP)
    job_b = write_job(tmp_path / "b.yaml", model_dir, tmp_path / "ckpt-b")
    proc = train(job_b, redis_url, "b", wait=False, MLFLOW_TRACKING_URI=mlflow_url)
    step3 = tmp_path / "ckpt-b" / "replay" / "step-00000003.groups"
    deadline = time.monotonic() + 240
    while not (step3.exists() and (tmp_path / "ckpt-b" / "step-00000002" / ".metadata").is_file()):
        assert proc.poll() is None, proc.stdout.read()
        assert time.monotonic() < deadline
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert (tmp_path / "ckpt-b" / "step-00000002" / ".metadata").is_file()
    assert not (tmp_path / "ckpt-b" / "step-00000004").exists()
    fill(redis_url, "b", 3 * PROMPTS_PER_STEP, PROMPTS_PER_STEP)
    train(job_b, redis_url, "b", "--resume", "auto", MLFLOW_TRACKING_URI=mlflow_url)
    [run] = mlflow_server.read_runs(mlflow_url, "moe-grpo", ["loss"])
    steps = [step for step, _ in run["history"]["loss"]]
    # Steps 1-2 (and 3, if it was logged before the kill) by the first process; 3-4 by the restart.
    assert steps in ([1, 2, 3, 4], [1, 2, 3, 3, 4]), steps
    assert run["status"] == "FINISHED" and run["tags"][TAG_RESTARTS] == "1"
    assert run["tags"][TAG_FINAL_EXPORT] == str(tmp_path / "ckpt-b" / "hf" / "step-00000004")

    a = model_tensors(tmp_path / "ckpt-a" / "step-00000004", tmp_path / "a.pt")
    b = model_tensors(tmp_path / "ckpt-b" / "step-00000004", tmp_path / "b.pt")
    assert a.keys() == b.keys()
    for name in a:
        assert torch.equal(a[name], b[name]), name
    initial = dict(tiny_model().state_dict())
    assert not torch.equal(a["model.embed_tokens.weight"], initial["model.embed_tokens.weight"])

    # One JSONL record per step with the balance fields and the loss terms.
    import json

    records = [json.loads(line) for line in (tmp_path / "a.jsonl").read_text().splitlines()]
    assert [r["step"] for r in records] == [1, 2, 3, 4]
    assert all(r["groups"] == PROMPTS_PER_STEP and r["kind"] == "train_step" for r in records)
    assert sum(r["groups_dropped_filtered"] for r in records) == equal_groups == 2
    assert all(r["tokens"] > 0 and r["tokens_per_s"] > 0 and "clip_fraction" in r and "grad_norm" in r for r in records)
    # Each names the model it trained (no job.model.architecture: the model directory's name, the
    # key architecture_of reads), which `plan --from-metrics` checks against the environment's.
    assert {r["model"] for r in records} == {model_dir.name}
    # ...and the device it ran on: the CPU demo's rates are refused for a GPU environment.
    assert {r["device"] for r in records} == {"cpu"}
    planned = subprocess.run([sys.executable, "-m", "payload", "plan", "--env", "p5en-48", "--from-metrics",
                              str(tmp_path / "a.jsonl")], capture_output=True, text=True)
    assert planned.returncode == 2 and planned.stderr.strip().endswith(
        "measured on device cpu, not this environment's NVIDIA H200: its rates do not transfer (use --model "
        "for a first-principles estimate)") and len(planned.stderr.strip().splitlines()) == 1
    # The HF export of step 4 loads as the trained model.
    from payload.model import load_pretrained

    exported = load_pretrained(tmp_path / "ckpt-a" / "hf" / "step-00000004", dtype=torch.float32)
    torch.testing.assert_close(exported.state_dict()["lm_head.weight"], a["lm_head.weight"], rtol=0, atol=0)


@pytest.mark.parametrize("change,message", [
    ({"algorithm": {"aggregation": "sum"}}, "job.algorithm.aggregation"),
    ({"parallel": {"expert_parallel_size": 3}}, "job.parallel.expert_parallel_size 3 is more than one node's 1 GPUs"),
    ({"batch": {"prompts_per_step": 3, "micro_batch_size": 5}}, "batch.micro_batch_size 5 must divide prompts_per_step × group_size (3 × 4)"),
])
def test_bad_job_config_exits_2_naming_the_field(tmp_path, model_dir, change, message):
    job = yaml.safe_load(write_job(tmp_path / "job.yaml", model_dir, tmp_path / "ckpt").read_text())
    for section, values in change.items():
        job[section].update(values)
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(job))
    result = subprocess.run([sys.executable, "-m", "payload", "train", "--job-config", str(tmp_path / "job.yaml"),
                             "--queue-url", "memory", "--metrics-port", "0"],
                            cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_sigterm_to_every_rank_stops_both_and_checkpoints(tmp_path, model_dir, redis_url):
    """What torchrun does when the pod is deleted or the spot node reclaimed: SIGTERM to every
    local rank. Both ranks must live through it, agree to stop, write the checkpoint, exit 0."""
    import socket

    fill(redis_url, "term", 0, 2 * 2 * PROMPTS_PER_STEP)
    job = yaml.safe_load(write_job(tmp_path / "job.yaml", model_dir, tmp_path / "ckpt").read_text())
    job["batch"]["prompts_per_step"] = 2 * PROMPTS_PER_STEP  # two ranks, a whole micro-batch each
    job["checkpoint"]["interval_steps"] = 100  # only the stop writes one
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(job))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    metrics = tmp_path / "metrics.jsonl"
    procs = [
        train(tmp_path / "job.yaml", redis_url, "term", "--resume", "none", "--metrics-jsonl", str(metrics), wait=False,
              RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE="2", MASTER_ADDR="127.0.0.1", MASTER_PORT=port)
        for rank in (0, 1)
    ]
    try:
        deadline = time.monotonic() + 240
        # Two steps of experience only (of --max-steps 4): the trainer then waits for a third.
        while not metrics.is_file() or metrics.read_text().count("\n") < 2:
            assert all(p.poll() is None for p in procs), [p.communicate()[0] for p in procs]
            assert time.monotonic() < deadline
            time.sleep(0.1)
        for p in procs:
            p.send_signal(signal.SIGTERM)
        outs = [p.communicate(timeout=120)[0] for p in procs]
    finally:
        for p in procs:
            p.kill()
    assert [p.returncode for p in procs] == [0, 0], outs
    assert (tmp_path / "ckpt" / "step-00000002" / ".metadata").is_file()


def test_a_publish_probe_interval_below_one_exits_2_naming_it(tmp_path, model_dir):
    job = write_job(tmp_path / "job.yaml", model_dir, tmp_path / "ckpt")
    result = subprocess.run([sys.executable, "-m", "payload", "train", "--job-config", str(job), "--queue-url", "memory",
                             "--metrics-port", "0", "--publish-probe-interval", "0"],
                            cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 2, result.stderr
    assert "--publish-probe-interval 0: must be at least 1" in result.stderr and "Traceback" not in result.stderr
