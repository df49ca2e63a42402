"""Fault E and the secrets in messages, on a real redis-server that requires a password.

E: a connection error is retried for `outage_s` from a call's first failure (time, not a
count: before, 20 jittered retries, ~15-30 s whatever the outage). Every call a process makes
(feeder: submit_feed; workers and verifiers: claim, complete, release; trainer: consume, ack;
all: stats) rides out an outage shorter than that, with the data intact (AOF), and a longer one
raises QueueUnavailable: one line. A wrong password is not an outage: it fails at once.

Secrets: every message of every error path here, and every log record, is searched for the
password; the URL appears only redacted.
"""

import logging
import threading
import time
import uuid

import numpy as np
import pytest

from payload.queue.base import FeedCursor, QueueError, QueueUnavailable, RolloutQueue, Stage
from payload.queue.experience import ExperienceGroup, Sample, Task
from payload.queue.url import open_queue, redacted
from payload.common.ports import free_port
from tests.payload.queue.redis_server import started

PASSWORD = "s3cret-Pa55word"


@pytest.fixture
def server():
    server = started(password=PASSWORD)
    yield server
    server.close()


def group_for(task):
    samples = [Sample(np.array([1, 2]), np.array([-0.5, -0.5], dtype=np.float32), "stop", reward=float(i))
               for i in range(2)]
    return ExperienceGroup(task.task_id, task.prompt_id, 0, task.prompt_tokens_P, samples)


def outage(server, seconds):
    """SIGKILL Redis now; the same server (port, append-only file) is back after `seconds`."""
    server.stop(kill=True)
    restart = threading.Timer(seconds, server.start)
    restart.start()
    return restart


def test_every_call_rides_out_an_outage_shorter_than_the_bound(server, caplog):
    queue = RolloutQueue.Config(backend="redis", url=server.url, namespace=uuid.uuid4().hex[:8], outage_s=8.0,
                                visibility_timeout_s=60).build()
    assert queue.submit_feed([Task("t0", "p0", np.array([1]), 2), Task("t1", "p1", np.array([1]), 2)],
                             FeedCursor(2, "plan"), expected=None)
    held = queue.claim(Stage.ROLLOUT, "w", block_s=0.1)

    calls = [
        ("feeder submit_feed", lambda: queue.submit_feed([Task("t2", "p2", np.array([1]), 2)], FeedCursor(3, "plan"),
                                                         expected=FeedCursor(2, "plan"))),
        ("worker complete", lambda: queue.complete(held, group_for(held.item))),
        ("worker claim", lambda: queue.claim(Stage.ROLLOUT, "w", block_s=0.1)),
        ("trainer consume", lambda: queue.consume("trainer", 8, 0.1, 0, 1)),
        ("stats", queue.stats),
    ]
    results, recovery = {}, []
    for name, call in calls:
        restart = outage(server, 2.0)
        started_at = time.monotonic()
        with caplog.at_level(logging.DEBUG):
            results[name] = call()
        recovery.append(time.monotonic() - started_at)
        restart.join()
    assert results["feeder submit_feed"] is True and results["worker complete"] is True
    assert results["worker claim"].task_id in ("t1", "t2")
    [buffered] = results["trainer consume"].groups
    assert buffered.group.task_id == "t0"  # the group written before the last two outages survived them
    queue.ack([buffered.entry_id])
    stats = results["stats"]
    assert (stats.tasks_waiting + stats.tasks_in_flight, stats.dead_letters, stats.duplicates) == (2, 0, 0)
    assert all(2.0 <= s < 8.0 for s in recovery), recovery
    assert any("Redis unreachable" in r.getMessage() for r in caplog.records)
    assert all(PASSWORD not in r.getMessage() for r in caplog.records)
    queue.close()


def test_an_outage_longer_than_the_bound_is_one_line_without_the_password(server, caplog):
    queue = RolloutQueue.Config(backend="redis", url=server.url, namespace=uuid.uuid4().hex[:8], outage_s=1.5).build()
    server.stop(kill=True)
    started_at = time.monotonic()
    with caplog.at_level(logging.DEBUG), pytest.raises(QueueUnavailable) as error:
        queue.stats()
    assert 1.5 <= time.monotonic() - started_at < 5
    message = str(error.value)
    assert message.startswith(f"queue url redis://:***@127.0.0.1:{server.port}/0: Redis unreachable for ")
    assert "longer than the 1.5 s outage this process rides out" in message and "\n" not in message
    assert all(PASSWORD not in r.getMessage() for r in caplog.records)
    queue.close()


def error_of(call) -> str:
    with pytest.raises(QueueError) as error:
        call()
    return str(error.value)


def test_every_queue_error_names_the_url_redacted(server):
    wrong = server.url.replace(PASSWORD, "wrong-password")
    started_at = time.monotonic()
    refused = error_of(lambda: open_queue(wrong))
    # Not an outage: one answer, not 60 s of "cannot reach".
    assert time.monotonic() - started_at < 3
    assert "Redis refused the credentials: invalid username-password pair" in refused
    assert "wrong-password" not in refused
    no_password = error_of(lambda: open_queue(server.url.replace(f":{PASSWORD}@", "")))
    assert "refused the credentials" in no_password
    closed = f"redis://:{PASSWORD}@127.0.0.1:{free_port()}/0"
    unreachable = error_of(lambda: RolloutQueue.Config(backend="redis", url=closed, connect_timeout_s=0.3).build())
    assert "cannot reach Redis within 0.3 s" in unreachable
    scheme = error_of(lambda: open_queue(f"http://:{PASSWORD}@127.0.0.1:1/0"))
    assert "expected redis://host:port/db" in scheme
    bad_port = error_of(lambda: open_queue(f"redis://:{PASSWORD}@127.0.0.1:notaport/0"))
    for message in (refused, no_password, unreachable, scheme, bad_port):
        assert PASSWORD not in message, message
        assert "\n" not in message
    assert unreachable.startswith("queue url redis://:***@127.0.0.1:")
    assert redacted(server.url) == f"redis://:***@127.0.0.1:{server.port}/0"


def test_a_redis_that_stops_answering_is_an_outage_not_a_hang(server):
    # SIGSTOP: the connection stays open and no reply ever comes (a half-open connection to a
    # pod whose IP vanished looks the same). Without a reply timeout the call waits forever.
    import os
    import signal

    queue = RolloutQueue.Config(backend="redis", url=server.url, namespace=uuid.uuid4().hex[:8], outage_s=1.5,
                                reply_timeout_s=0.5).build()
    queue.stats()  # connected
    outcome = []
    os.kill(server.process.pid, signal.SIGSTOP)
    try:
        call = threading.Thread(target=lambda: outcome.append(error_of(queue.stats)), daemon=True)
        call.start()
        call.join(30)
        assert not call.is_alive(), "the call hung on a Redis that does not answer"
    finally:
        os.kill(server.process.pid, signal.SIGCONT)
    assert "Redis unreachable for" in outcome[0] and "longer than the 1.5 s outage" in outcome[0]
    assert queue.stats().buffer_fill == 0  # answering again: the next call goes through
    with pytest.raises(QueueError, match=r"a blocking read of 2 s: must be shorter than the queue's reply_timeout_s \(0.5 s\)"):
        queue.claim(Stage.ROLLOUT, "w", block_s=2)
    queue.close()
