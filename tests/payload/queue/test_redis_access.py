"""The buffer's ACL users and TLS, on a real redis-server started with the chart's flags and the
files `python -m payload redis-access` writes: each role does its whole job through the queue
API and is refused what it should not do."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from payload.queue.access import CA_CERT, ROLES, client_url, server_args
from payload.queue.base import FeedCursor, PolicyPointer, QueueError, RolloutQueue, Stage
from payload.queue.url import PASSWORD_FILE_ENV
from tests.payload.queue.redis_server import MISSING_REASON, REDIS_SERVER, free_port, wait_until_up
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
    return RolloutQueue.Config(backend="redis", url=url, namespace=NAMESPACE, visibility_timeout_s=0.2,
                               max_deliveries=1, **config).build()


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

    worker = queue_as("worker", access, monkeypatch)
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
    "worker": [("HSET", "{rl}:policy", "version", "9"), ("HSET", "{rl}:feed", "position", "0"),
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
