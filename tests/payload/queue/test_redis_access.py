"""The buffer's ACL users and TLS, on a real redis-server started with the chart's flags and the
files `python -m payload redis-access` writes: each role does its whole job through the queue
API and is refused what it should not do."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from payload.queue.access import CA_CERT, ROLES, WORKER, WORKER_INLINE, client_url, server_args, worker_role
from payload.queue.base import FeedCursor, PolicyPointer, QueueError, RolloutQueue, Stage
from payload.queue.url import PASSWORD_FILE_ENV
from payload.common.ports import free_port
from tests.payload.queue.redis_server import MISSING_REASON, REDIS_SERVER, wait_until_up
from tests.payload.queue.test_queue_contract import group_for, task

NAMESPACE = "rl"
# A refused connection is the answer: no retries.
ONCE = dict(retry=Retry(NoBackoff(), 0), socket_timeout=5)


@pytest.fixture(scope="module")
def access(tmp_path_factory):
    """The operator's command, then redis-server with the chart's access flags."""
    if REDIS_SERVER is None:
        pytest.fail(MISSING_REASON, pytrace=False)
    directory = tmp_path_factory.mktemp("access") / "rl-redis"
    done = subprocess.run([sys.executable, "-m", "payload", "redis-access", "--out", str(directory)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    port = free_port()
    data = tmp_path_factory.mktemp("data")
    process = subprocess.Popen(
        [REDIS_SERVER, *server_args(str(directory), port), "--bind", "127.0.0.1", "--dir", str(data),
         "--appendonly", "yes", "--appendfsync", "always", "--save", ""],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    wait_until_up(process, as_role(directory, port, "monitor"), "redis-server did not start with the ACL/TLS flags")
    yield directory, port
    process.kill()
    process.wait(10)


def as_role(directory: Path, port: int, role: str, password: str | None = None) -> redis.Redis:
    return redis.Redis(host="localhost", port=port, username=role, ssl=True, ssl_ca_certs=str(directory / CA_CERT), **ONCE,
                       password=password if password is not None else (directory / role).read_text())


def queue_as(role: str, access, monkeypatch, **config) -> RolloutQueue:
    """The queue as a pod of `role` opens it: the URL without a password, the password file from the env."""
    directory, port = access
    monkeypatch.setenv(PASSWORD_FILE_ENV, str(directory / role))
    url = client_url(role, "localhost", port, str(directory / CA_CERT))
    assert (directory / role).read_text() not in url
    return RolloutQueue.Config(backend="redis", url=url, namespace=NAMESPACE,
                               **(dict(visibility_timeout_s=0.2, max_deliveries=1) | config)).build()


def refused(client: redis.Redis, *command) -> bool:
    try:
        client.execute_command(*command)
    except redis.exceptions.NoPermissionError:
        return True
    return False


def test_each_role_does_its_job_through_the_queue(access, monkeypatch):
    feeder = queue_as("feeder", access, monkeypatch)
    assert feeder.submit_feed([task(i) for i in range(4)], FeedCursor(4, "plan", finished=True), expected=None)
    assert feeder.feed_cursor() == FeedCursor(4, "plan", finished=True)
    assert feeder.stats().tasks_waiting == 4
    assert feeder.trainer_progress().policy_version == 0

    worker = queue_as(WORKER_INLINE, access, monkeypatch)  # scores inline: both ways out
    assert worker.wait_for_room(1.0)
    first = worker.claim(Stage.ROLLOUT, "w0", block_s=0.1)
    unverified = group_for(first.item, reward=float("nan"))
    assert worker.complete(first, unverified)  # to the verifiers
    second = worker.claim(Stage.ROLLOUT, "w0", block_s=0.1)
    assert worker.complete(second, group_for(second.item))  # verified inline: to the buffer
    assert not worker.complete(second, group_for(second.item))  # a duplicate is taken back out
    third = worker.claim(Stage.ROLLOUT, "w0", block_s=0.1)
    worker.release(third, failed=False, reason="stopping")  # the release script hands it back
    again = worker.claim(Stage.ROLLOUT, "w1", block_s=0.1)
    assert again.task_id == third.task_id
    worker.release(again, failed=True, reason="server error")  # ... and dead-letters it
    fourth = worker.claim(Stage.ROLLOUT, "w0", block_s=0.1)
    time.sleep(0.3)
    assert worker.claim(Stage.ROLLOUT, "w1", block_s=0.1) is None  # the reclaim script dead-letters it
    dead = worker.dead_letters(Stage.ROLLOUT)
    assert [(d.reason, d.deliveries) for d in dead] == [("server error", 1), ("visibility timeout", 1)]
    assert fourth.task_id != third.task_id

    verifier = queue_as("verifier", access, monkeypatch)
    pending = verifier.claim(Stage.VERIFY, "v0", block_s=0.1)
    assert pending.task_id == first.task_id
    assert verifier.complete(pending, group_for(first.item))  # scored

    trainer = queue_as("trainer", access, monkeypatch)
    consumed = trainer.consume("trainer", 8, 0.1, current_version=0, max_staleness=4)
    assert sorted(g.group.task_id for g in consumed.groups) == sorted([first.task_id, second.task_id])
    trainer.ack([g.entry_id for g in consumed.groups])
    assert trainer.buffer_fill() == 0
    assert trainer.exhausted()  # the feed finished and every task left the pipeline
    trainer.publish_policy(PolicyPointer(1, "/fsx/checkpoints/export/step-1"))
    trainer.report_progress(1)

    server = queue_as("server", access, monkeypatch)
    assert server.latest_policy() == PolicyPointer(1, "/fsx/checkpoints/export/step-1")
    assert feeder.trainer_progress().policy_version == 1
    for queue in (feeder, worker, verifier, trainer, server):
        queue.close()


# What each role must never do (key names after "{rl}:"): writes outside its stage, reads of
# what it has no use for, and what no role needs at all.
REFUSED = {
    "feeder": [("XADD", "{rl}:experiences", "*", "d", "x"), ("HSET", "{rl}:policy", "version", "9"),
               ("XREADGROUP", "GROUP", "workers", "f", "COUNT", "1", "STREAMS", "{rl}:tasks", ">")],
    # Scoring elsewhere: not a group into the buffer, nor one taken out of it.
    WORKER: [("HSET", "{rl}:policy", "version", "9"), ("HSET", "{rl}:feed", "position", "0"),
             ("XADD", "{rl}:dead:verify", "*", "d", "x"), ("SET", "{rl}:consumed:t0", "1"),
             ("XADD", "{rl}:experiences", "*", "d", "x"), ("XDEL", "{rl}:experiences", "0-1"),
             ("XACK", "{rl}:experiences", "trainer", "0-1")],
    WORKER_INLINE: [("HSET", "{rl}:policy", "version", "9"), ("HSET", "{rl}:feed", "position", "0"),
                    ("XADD", "{rl}:dead:verify", "*", "d", "x"), ("SET", "{rl}:consumed:t0", "1")],
    "verifier": [("XADD", "{rl}:tasks", "*", "d", "x"), ("HSET", "{rl}:policy", "version", "9"),
                 ("XREADGROUP", "GROUP", "workers", "v", "COUNT", "1", "STREAMS", "{rl}:tasks", ">")],
    "trainer": [("XADD", "{rl}:tasks", "*", "d", "x"), ("HSET", "{rl}:feed", "position", "0"),
                ("XADD", "{rl}:verify", "*", "d", "x")],
    "server": [("HSET", "{rl}:policy", "version", "9"), ("XLEN", "{rl}:tasks"),
               ("XADD", "{rl}:experiences", "*", "d", "x"), ("EVALSHA", "0" * 40, "0")],
    "monitor": [("XLEN", "{rl}:tasks"), ("HGETALL", "{rl}:policy"), ("XADD", "{rl}:tasks", "*", "d", "x"),
                ("SLOWLOG", "RESET"), ("LATENCY", "RESET"), ("CONFIG", "RESETSTAT")],
}
NO_ROLE = [("FLUSHALL",), ("CONFIG", "SET", "maxmemory", "1"), ("KEYS", "*"), ("SCRIPT", "FLUSH"), ("BGSAVE",),
           ("XGROUP", "DESTROY", "{rl}:tasks", "workers"), ("DEL", "{rl}:experiences"),
           ("ACL", "LIST"), ("SHUTDOWN",), ("GET", "other-job"), ("EVAL", "return 1", "0"), ("CLIENT", "KILL", "ID", "1")]


@pytest.mark.parametrize("role", list(ROLES))
def test_each_role_is_refused_what_it_does_not_need(access, role):
    client = as_role(*access, role)
    allowed_eval = role == "trainer"
    for command in REFUSED[role] + [c for c in NO_ROLE if not (allowed_eval and c[0] == "EVAL")]:
        assert refused(client, *command), f"{role} may run {' '.join(command)}"
    client.close()


def test_a_feeder_can_create_the_buffers_group_but_not_write_into_it(access):
    client = as_role(*access, "feeder")
    client.execute_command("XGROUP", "CREATE", "{rl}:experiences", "g-feeder-test", "0", "MKSTREAM")
    assert refused(client, "XADD", "{rl}:experiences", "*", "d", "x")
    assert refused(client, "XGROUP", "DESTROY", "{rl}:experiences", "g-feeder-test")
    client.close()


def test_the_monitor_reads_server_metrics(access):
    client = as_role(*access, "monitor")
    assert client.info("memory")["used_memory"] > 0
    assert "maxmemory" in client.config_get("maxmemory")
    assert client.slowlog_len() >= 0
    client.close()


def test_no_password_a_wrong_one_or_plaintext_gets_nothing(access):
    directory, port = access
    anonymous = redis.Redis(host="localhost", port=port, ssl=True, ssl_ca_certs=str(directory / CA_CERT), **ONCE)
    with pytest.raises(redis.AuthenticationError):
        anonymous.ping()
    with pytest.raises(redis.AuthenticationError):
        as_role(directory, port, "trainer", password="not-the-password").ping()
    with pytest.raises(redis.AuthenticationError):  # another role's password
        as_role(directory, port, "trainer", password=(directory / "feeder").read_text()).ping()
    plaintext = redis.Redis(host="localhost", port=port, username="trainer",
                            password=(directory / "trainer").read_text(), retry=Retry(NoBackoff(), 0), socket_timeout=2)
    with pytest.raises(redis.ConnectionError):
        plaintext.ping()


def test_the_server_certificate_is_verified(access, tmp_path):
    directory, port = access
    other = tmp_path / "other"
    subprocess.run([sys.executable, "-m", "payload", "redis-access", "--out", str(other)], check=True, capture_output=True)
    stranger = redis.Redis(host="localhost", port=port, username="trainer", password=(directory / "trainer").read_text(),
                           ssl=True, ssl_ca_certs=str(other / CA_CERT), **ONCE)
    with pytest.raises(redis.ConnectionError, match="certificate verify failed"):
        stranger.ping()


def test_an_unreadable_password_file_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv(PASSWORD_FILE_ENV, str(tmp_path / "missing"))
    with pytest.raises(QueueError, match=rf"\${PASSWORD_FILE_ENV} .*missing: cannot read the Redis password"):
        RolloutQueue.Config(backend="redis", url="redis://trainer@127.0.0.1:1/0").build()
    (tmp_path / "empty").write_text("\n")
    monkeypatch.setenv(PASSWORD_FILE_ENV, str(tmp_path / "empty"))
    with pytest.raises(QueueError, match="the file is empty"):
        RolloutQueue.Config(backend="redis", url="redis://trainer@127.0.0.1:1/0").build()


def test_redis_access_refuses_a_directory_with_files(tmp_path):
    (tmp_path / "trainer").write_text("live password")
    done = subprocess.run([sys.executable, "-m", "payload", "redis-access", "--out", str(tmp_path)],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"error: --out {tmp_path}: exists and is not an empty directory (remove it to issue new passwords)"
    ]
    assert (tmp_path / "trainer").read_text() == "live password"


def test_the_readiness_probe_of_the_chart_passes_against_the_server(access):
    from payload.queue.access import probe_command

    directory, port = access
    assert subprocess.run(probe_command(str(directory), port), timeout=30).returncode == 0
    assert subprocess.run(probe_command(str(directory), free_port()), timeout=30, stderr=subprocess.DEVNULL).returncode != 0


def test_only_the_scoring_worker_may_write_the_buffer(access):
    """Redis itself answers: `worker` is refused an XADD on the buffer, `worker-inline` is not;
    both may read its length (wait_for_room)."""
    narrow, inline = as_role(*access, WORKER), as_role(*access, WORKER_INLINE)
    assert refused(narrow, "XADD", "{rl}:experiences", "*", "d", "forged")
    assert narrow.xlen("{rl}:experiences") == inline.xlen("{rl}:experiences")
    entry = inline.execute_command("XADD", "{rl}:experiences", "*", "d", "x")
    assert inline.execute_command("XDEL", "{rl}:experiences", entry) == 1
    assert refused(narrow, "XDEL", "{rl}:experiences", entry)
    narrow.close()
    inline.close()


def test_the_worker_user_follows_the_jobs_mode():
    from spec.job import JobConfig

    def job(inline: bool, **data) -> JobConfig:
        return JobConfig.model_validate({"rollout": {"inline_verifier": inline},
                                         **({"data": {"train": {"path": "/fsx/data/train.jsonl"}, "chat_template": True, **data}}
                                            if data else {})})

    assert worker_role(job(True)) == WORKER_INLINE
    assert worker_role(job(False)) == WORKER
    assert worker_role(job(True), inline_verifier=False) == WORKER  # the command line's override
    # A tool environment may score its own episodes (Step.reward): those groups go to the buffer.
    assert worker_role(job(False, environment="calculator")) == WORKER_INLINE
    assert worker_role(job(False, environments={"gsm8k": "code"})) == WORKER_INLINE
    assert set(ROLES) >= {WORKER, WORKER_INLINE}


# -- the real rollout worker under each user ---------------------------------------------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """`serve --engine local` on a tiny model: the worker's generations are real."""
    from tests.payload.rollout.helpers import ServeProcess, save_tiny_model

    process = ServeProcess(save_tiny_model(tmp_path_factory.mktemp("model") / "tiny", seed=0), "--poll-s", "0.5").start()
    yield process
    process.stop()


def _run_worker(queue, served, inline: bool, until, registry):
    from payload.rollout.client import SamplingParams, SGLangClient
    from payload.rollout.worker import RolloutWorker

    client = SGLangClient.Config(url=served.url, timeout_s=10.0).build()
    worker = RolloutWorker(
        RolloutWorker.Config(name=f"w-{inline}", concurrency=2, sampling=SamplingParams(max_new_tokens=4),
                             inline_verifier=inline, verifier_processes=1, claim_block_s=0.2, server_down_pause_s=0.5,
                             drain_timeout_s=5.0),
        queue, client, registry=registry)
    stop, errors = threading.Event(), []

    def run():
        try:
            worker.run(stop)
        except BaseException as exc:  # noqa: BLE001 - asserted empty below
            errors.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not until() and time.monotonic() < deadline and thread.is_alive():
        time.sleep(0.1)
    stop.set()
    thread.join(60)
    client.close()
    assert not thread.is_alive() and not errors, errors
    assert until(), "the worker did not finish its tasks"


@pytest.mark.parametrize("inline", [False, True], ids=["inline-off", "inline-on"])
def test_the_real_rollout_worker_does_its_job_as_its_modes_user(access, monkeypatch, served, inline):
    from prometheus_client import CollectorRegistry

    from payload.queue.experience import Task
    from payload.rewards.worker import VerifyWorker
    from spec.job import JobConfig
    from spec.signals import ROLLOUT_GROUPS_PRODUCED

    role = worker_role(JobConfig.model_validate({"rollout": {"inline_verifier": inline}}))
    assert role == (WORKER_INLINE if inline else WORKER)
    feeder, trainer = queue_as("feeder", access, monkeypatch), queue_as("trainer", access, monkeypatch)
    tasks = [Task(task_id=f"e2e-{inline}-{i}", prompt_id=f"p{i}", prompt_tokens_P=np.arange(3, 8), group_size=2,
                  label="4", verifier="exact_match") for i in range(3)]
    feeder.submit(tasks)
    before = feeder.stats()
    # Generations on a loaded CPU take seconds: no reclaim while one runs.
    slow = dict(visibility_timeout_s=60.0, max_deliveries=3)
    worker_queue = queue_as(role, access, monkeypatch, **slow)
    registry = CollectorRegistry()
    produced = lambda: registry.get_sample_value(ROLLOUT_GROUPS_PRODUCED) == len(tasks)  # noqa: E731
    _run_worker(worker_queue, served, inline, produced, registry)
    stats = feeder.stats()
    assert stats.dead_letters == before.dead_letters  # nothing refused and circled to the dead letters
    if inline:  # scored: straight to the buffer
        assert stats.verify_waiting == before.verify_waiting and trainer.buffer_fill() == len(tasks)
    else:  # unscored: to the verifiers, then the buffer
        assert stats.verify_waiting == before.verify_waiting + len(tasks)
        verifier = queue_as("verifier", access, monkeypatch, **slow)
        scored, stop = CollectorRegistry(), threading.Event()
        limit = threading.Timer(120, stop.set)  # a hang fails the count below instead of the run
        limit.start()
        VerifyWorker(VerifyWorker.Config(name="v", processes=1, claim_block_s=0.2), verifier, registry=scored,
                     on_progress=lambda: stop.set() if scored.get_sample_value("rl_verify_groups_total") == len(tasks)
                     else None).run(stop)
        limit.cancel()
        verifier.close()
        assert scored.get_sample_value("rl_verify_groups_total") == len(tasks)
    consumed = trainer.consume("trainer", 16, 1.0, current_version=1, max_staleness=1000)
    groups = {g.group.task_id: g.group for g in consumed.groups}
    assert sorted(groups) == sorted(t.task_id for t in tasks)
    assert all(g.verified and len(g.samples) == 2 for g in groups.values())
    trainer.ack([g.entry_id for g in consumed.groups])
    assert trainer.buffer_fill() == 0
    for queue in (feeder, trainer, worker_queue):
        queue.close()
