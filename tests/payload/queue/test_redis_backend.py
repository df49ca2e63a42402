"""What only the Redis backend has to survive: other processes, restarts of Redis and of the trainer."""

import uuid

import pytest

from payload.queue.base import RolloutQueue, Stage
from payload.queue.experience import RecordFormatError
from tests.payload.queue.redis_server import started
from tests.payload.queue.test_queue_contract import drain, group_for, task


def redis_queue(url, namespace, **overrides):
    return RolloutQueue.Config(backend="redis", url=url, namespace=namespace, visibility_timeout_s=0.3, **overrides).build()


def test_restarted_trainer_gets_its_unacknowledged_groups_back(redis_server):
    ns = uuid.uuid4().hex[:8]
    queue = redis_queue(redis_server.url, ns)
    queue.submit([task(i) for i in range(3)])
    for _ in range(3):
        d = queue.claim(Stage.ROLLOUT, "w", block_s=0.1)
        queue.complete(d, group_for(d.item))
    first = queue.consume("trainer-0", 2, 0.1, 0, 5)
    queue.ack([first.groups[0].entry_id])  # the step that used t0 finished; t1 was in flight
    queue.close()

    restarted = redis_queue(redis_server.url, ns)
    again = restarted.consume("trainer-0", 8, 0.1, 0, 5)
    assert [g.group.task_id for g in again.groups] == ["t1"]
    restarted.ack([g.entry_id for g in again.groups])
    assert [g.group.task_id for g in drain(restarted, consumer="trainer-0")] == ["t2"]
    restarted.close()


def test_a_record_of_another_format_version_fails_loudly(redis_server):
    ns = uuid.uuid4().hex[:8]
    queue = redis_queue(redis_server.url, ns)
    from payload.queue.experience import FORMAT_VERSION, encode_task

    future = bytearray(encode_task(task(1)))
    future[3] += 1  # what a newer build would write
    queue.redis.xadd(queue._streams[Stage.ROLLOUT], {"d": bytes(future)})
    with pytest.raises(RecordFormatError, match=f"format version {FORMAT_VERSION + 1}, this build reads version {FORMAT_VERSION}"):
        queue.claim(Stage.ROLLOUT, "w", block_s=0.1)
    queue.close()


def test_unreachable_redis_is_one_line_error():
    from payload.queue.base import QueueError
    from payload.common.ports import free_port

    url = f"redis://127.0.0.1:{free_port()}/0"
    with pytest.raises(QueueError, match=f"queue url {url}: cannot reach Redis within 0.3 s"):
        RolloutQueue.Config(backend="redis", url=url, connect_timeout_s=0.3).build()


def test_redis_restart_keeps_acknowledged_experiences_and_workers_reconnect(tmp_path):
    server = started(str(tmp_path))
    try:
        queue = redis_queue(server.url, "restart")
        queue.submit([task(i) for i in range(6)])
        for _ in range(3):
            d = queue.claim(Stage.ROLLOUT, "w", block_s=0.1)
            assert queue.complete(d, group_for(d.item))
        in_flight = queue.claim(Stage.ROLLOUT, "w", block_s=0.1)
        server.stop(kill=True)  # SIGKILL: only what was fsynced to the AOF survives
        server.start()
        # The same client objects carry on: redis-py reconnects with backoff.
        assert queue.complete(in_flight, group_for(in_flight.item))
        while (d := queue.claim(Stage.ROLLOUT, "w", block_s=0.1)) is not None:
            queue.complete(d, group_for(d.item))
        ids = sorted(g.group.task_id for g in drain(queue))
        assert ids == [f"t{i}" for i in range(6)]
        queue.close()
    finally:
        server.close()


def test_a_group_whose_read_reply_was_lost_is_read_again(redis_server):
    ns = uuid.uuid4().hex[:8]
    queue = redis_queue(redis_server.url, ns)
    queue.submit([task(i) for i in range(2)])
    for _ in range(2):
        d = queue.claim(Stage.ROLLOUT, "w", block_s=0.1)
        queue.complete(d, group_for(d.item))
    first = queue.consume("trainer-0", 1, 0.1, 0, 5)
    assert [g.group.task_id for g in first.groups] == ["t0"]
    # Redis executes a read for this consumer whose reply never arrives (Redis was killed
    # after fsyncing it): the entry is pending for "trainer-0" but the process never saw it.
    queue.redis.xreadgroup("trainer", "trainer-0", {queue._buffer: ">"}, count=1)
    again = queue.consume("trainer-0", 8, 0.1, 0, 5)
    assert [g.group.task_id for g in again.groups] == ["t1"]  # t0 is held, not handed out twice
    queue.ack([first.groups[0].entry_id, again.groups[0].entry_id])
    assert queue.buffer_fill() == 0
    queue.close()


def test_a_duplicate_left_by_a_dying_worker_is_dropped_at_ingest(redis_server):
    from payload.queue.experience import encode_group

    ns = uuid.uuid4().hex[:8]
    queue = redis_queue(redis_server.url, ns)
    queue.submit([task(1)])
    d = queue.claim(Stage.ROLLOUT, "w", block_s=0.1)
    assert queue.complete(d, group_for(d.item, worker="first"))
    # A late second result whose worker died before taking it back out of the buffer.
    queue.redis.xadd(queue._buffer, {"d": encode_group(group_for(d.item, worker="late"))})
    got = drain(queue)
    assert [(g.group.task_id, g.group.worker) for g in got] == [("t1", "first")]
    assert queue.stats().duplicates == 1 and queue.buffer_fill() == 0
    queue.close()
