"""`python -m payload feed` against a real redis-server: exactly once across SIGKILL, paced by
the trainer's reported version, end of data through the queue, and bad input submitting nothing."""

import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

from data_helpers import CHAT_TEMPLATE, make_tokenizer, write_jsonl
from payload.data.feeder import Feeder
from payload.data.plan import FeedPlan
from payload.data.prompts import PromptBuilder
from payload.data.source import open_dataset
from spec.job import DataColumns, DataSource
from payload.queue.base import FeedCursor, RolloutQueue, Stage
from payload.queue.experience import decode_task
from tests.payload.queue.redis_server import MISSING_REASON, REDIS_SERVER, RedisServer

REPO = Path(__file__).resolve().parents[3]
ENV = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
ROWS, EPOCHS, PER_STEP = 30, 3, 4


@pytest.fixture(scope="module")
def redis_url():
    if REDIS_SERVER is None:
        pytest.skip(MISSING_REASON)
    server = RedisServer().start()
    yield server.url
    server.close()


def write_job(tmp_path: Path, train: Path, **data) -> Path:
    # The tokenizer has a chat template only where the job asks for one (environments need it).
    model = make_tokenizer(tmp_path / "model", chat_template=CHAT_TEMPLATE if data.get("chat_template") else None)
    job = {"model": {"path": str(model)}, "algorithm": {"group_size": 2},
           "batch": {"prompts_per_step": PER_STEP, "micro_batch_size": 4, "max_prompt_tokens": 32},
           "rollout": {"max_staleness": 0},
           "data": {"train": str(train), "columns": {"prompt": "question"}, "chat_template": False,
                    "verifier": "exact_match", "epochs": EPOCHS, **data}}
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(job))
    return path


def rows(count: int = ROWS) -> list[dict]:
    return [{"question": f"what is {i % 10} plus {i // 10} ?", "answer": str(i % 10 + i // 10)} for i in range(count)]


def feed(job: Path, url: str, namespace: str, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "payload", "feed", "--job-config", str(job), "--queue-url", url,
                             "--namespace", namespace, "--metrics-port", "0", "--cache-dir", str(job.parent / "cache"),
                             *extra], cwd=REPO, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_every_epoch_and_row_is_submitted_exactly_once_across_sigkills(tmp_path, redis_url):
    job = write_job(tmp_path, write_jsonl(tmp_path / "train.jsonl", rows()))
    queue = RolloutQueue.Config(backend="redis", url=redis_url, namespace="kills").build()
    total = ROWS * EPOCHS
    stop = threading.Event()

    def trainer():
        # A trainer that takes a step whenever the feeder has submitted everything it may.
        version = 0
        while not stop.is_set():
            cursor = queue.feed_cursor()
            if cursor is not None and cursor.position >= (version + 1) * PER_STEP and version < total // PER_STEP:
                version += 1
                queue.report_progress(version)
            time.sleep(0.02)

    thread = threading.Thread(target=trainer, daemon=True)
    thread.start()
    rng = random.Random(0)
    kills = 0
    try:
        while True:
            proc = feed(job, redis_url, "kills", "--exit-when-done")
            start = (queue.feed_cursor() or FeedCursor(0, "")).position
            deadline = time.monotonic() + 120
            while (queue.feed_cursor() or FeedCursor(0, "")).position == start and proc.poll() is None:
                assert time.monotonic() < deadline
                time.sleep(0.01)
            if kills < 4 and proc.poll() is None:
                time.sleep(rng.uniform(0.0, 0.4))  # somewhere in its submit / wait cycle
                proc.kill()
                proc.wait()
                kills += 1
                continue
            _, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err
            break
    finally:
        stop.set()
        thread.join()
    cursor = queue.feed_cursor()
    assert cursor.finished and cursor.position == total and kills == 4
    ids = [decode_task(fields[b"d"]).task_id for _, fields in queue.redis.xrange("{kills}:tasks")]
    assert len(ids) == len(set(ids)) == total  # none twice, none missing
    fingerprint = ids[0].split("-e")[0]
    assert set(ids) == {f"{fingerprint}-e{e}-r{r}" for e in range(EPOCHS) for r in range(ROWS)}
    queue.close()


def test_bad_dataset_exits_2_with_one_line_and_submits_nothing(tmp_path, redis_url):
    train = tmp_path / "train.jsonl"
    train.write_text('{"question": "what is 1 plus 1 ?", "answer": "2"}\n{"question": ["x"], "answer": "2"}\n')
    proc = feed(write_job(tmp_path, train), redis_url, "bad")
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2
    # One error line, after the JSON log lines of the health endpoint it serves while reading.
    *logs, line = err.strip().splitlines()
    assert line == f"error: {train}: line 2: column 'question' must be a non-empty string, got a list"
    assert all(json.loads(log)["service"] == "feeder" for log in logs) and "Traceback" not in err
    queue = RolloutQueue.Config(backend="redis", url=redis_url, namespace="bad").build()
    assert queue.feed_cursor() is None and queue.stats().tasks_waiting == 0
    queue.close()


def test_a_cursor_from_other_data_is_refused(tmp_path, redis_url):
    job = write_job(tmp_path, write_jsonl(tmp_path / "train.jsonl", rows()))
    queue = RolloutQueue.Config(backend="redis", url=redis_url, namespace="other").build()
    assert queue.submit_feed([], FeedCursor(8, "another-dataset:0"), expected=None)
    _, err = feed(job, redis_url, "other").communicate(timeout=120)
    assert "error: the queue's feed cursor belongs to another dataset" in err
    assert queue.stats().tasks_waiting == 0
    queue.close()


def test_pacing_follows_the_trainer_and_groups_lost_on_the_way(tmp_path):
    """Memory backend, in process: v + 1 + max_staleness steps of tasks, plus one per group that
    left without training; then the end of the data and `exhausted`."""
    dataset = open_dataset(DataSource(path=str(write_jsonl(tmp_path / "t.jsonl", rows(10)))), tmp_path / "cache")
    model = make_tokenizer(tmp_path / "model", chat_template=None)
    prompts = PromptBuilder.Config(model_path=str(model), columns=DataColumns(prompt="question"),
                                   max_prompt_tokens=32, verifier="exact_match", chat_template=False).build()
    scan = prompts.scan(dataset)
    plan = FeedPlan(dataset.fingerprint, scan.kept, passes=1, seed=0)
    queue = RolloutQueue.Config(backend="memory").build()
    feeder = Feeder.Config(group_size=2, prompts_per_step=3, max_staleness=1, poll_s=0.01).build(
        plan, prompts, dataset, queue)
    stop = threading.Event()
    thread = threading.Thread(target=feeder.run, args=(stop,))
    thread.start()

    def settled(expected: int) -> int:
        deadline = time.monotonic() + 10
        while queue.stats().tasks_waiting + queue.stats().tasks_in_flight != expected:
            assert time.monotonic() < deadline, queue.stats()
            time.sleep(0.01)
        time.sleep(0.05)  # and no more than that
        return queue.stats().tasks_waiting + queue.stats().tasks_in_flight

    assert settled(6) == 6  # version 0, max_staleness 1: steps 1 and 2
    first = queue.claim(Stage.ROLLOUT, "w", block_s=0.1)
    assert first.item.policy_version == 0 and first.item.verifier == "exact_match"
    assert first.item.label == dataset.table[int(first.task_id.rsplit("-r", 1)[1])]["answer"]
    queue.release(first, failed=True)
    queue.report_progress(1)
    assert settled(9) == 9
    # Two groups dropped by the trainer (e.g. equal rewards): two more tasks.
    from tests.payload.queue.test_queue_contract import group_for

    for _ in range(2):
        d = queue.claim(Stage.ROLLOUT, "w", block_s=0.1)
        queue.complete(d, group_for(d.item))
    batch = queue.consume("trainer", 2, 0.1, current_version=1, max_staleness=1)
    queue.ack([g.entry_id for g in batch.groups], dropped=True)
    # 11 allowed now, and the data has 10: the last one goes out and the feed ends.
    assert settled(8) == 8
    thread.join(timeout=10)
    assert not thread.is_alive()
    assert queue.feed_cursor() == FeedCursor(10, plan.fingerprint, finished=True)
    assert not queue.exhausted()  # 8 tasks still to roll out
    while (d := queue.claim(Stage.ROLLOUT, "w", block_s=0.05)) is not None:
        queue.complete(d, group_for(d.item))
    batch = queue.consume("trainer", 100, 0.1, current_version=5, max_staleness=10)
    assert len(batch.groups) == 8 and queue.exhausted()
    stop.set()
    queue.close()


def test_tasks_carry_the_environment_of_their_data_source(tmp_path):
    """data.environment for every row, data.environments per data source in its place."""
    from spec.job import load_job_config

    data = [{**row, "source": "apps" if i % 2 else "gsm"} for i, row in enumerate(rows(6))]
    job = load_job_config(write_job(tmp_path, write_jsonl(tmp_path / "t.jsonl", data), epochs=1,
                                    columns={"prompt": "question", "data_source": "source"},
                                    environment="calculator", environments={"apps": "code"}, chat_template=True))
    dataset = open_dataset(job.data.train, tmp_path / "cache")
    prompts = PromptBuilder.Config.of(job).build()
    plan = FeedPlan(dataset.fingerprint, prompts.scan(dataset).kept, passes=1, seed=0)
    queue = RolloutQueue.Config(backend="memory").build()
    queue.report_progress(5)  # the trainer is far enough on for every row to go out
    stop = threading.Event()
    feeder = Feeder.Config.of(job).build(plan, prompts, dataset, queue)
    thread = threading.Thread(target=feeder.run, args=(stop,))
    thread.start()
    seen = {}
    deadline = time.monotonic() + 10
    while len(seen) < 6 and time.monotonic() < deadline:
        if (d := queue.claim(Stage.ROLLOUT, "w", block_s=0.05)) is not None:
            seen[int(d.task_id.rsplit("-r", 1)[1])] = d.item.environment
    stop.set()
    thread.join(10)
    queue.close()
    assert seen == {i: "code" if i % 2 else "calculator" for i in range(6)}


def test_an_unknown_environment_is_one_line(tmp_path):
    job = write_job(tmp_path, write_jsonl(tmp_path / "t.jsonl", rows(2)), environments={"gsm": "browser"})
    result = subprocess.run([sys.executable, "-m", "payload", "feed", "--job-config", str(job), "--queue-url", "memory",
                             "--metrics-port", "0"], cwd=REPO, env=ENV, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "job.data.environments: data source 'gsm': environment 'browser': not one of calculator, code" in result.stderr
