"""Fault D: Redis reaching maxmemory, on a real redis-server with `maxmemory` and `noeviction`.

Before: the high-water mark counted groups only, so large groups (routing replay) filled Redis
first: every `complete` failed with a generic error, tasks were reclaimed and dead-lettered.
Now: producers also wait while Redis's used memory is at or above 80% of maxmemory, and a
write Redis refuses for memory raises BufferFull naming it, with nothing written.

The byte mark is a soft limit: Redis also counts its clients' query and reply buffers (a
trainer reading four 512 KB groups holds ~2 MB of reply), so on a loaded machine a write can
still be refused now and then. The contract is therefore the worker's (rollout/worker.py):
a refused group is handed back uncharged and redone, and nothing is lost or dead-lettered.
"""

import threading
import time
import uuid

import numpy as np
import pytest
import redis

from payload.queue.base import BufferFull, FeedCursor, PolicyPointer, RolloutQueue, Stage
from payload.queue.experience import ExperienceGroup, Sample, Task, encode_group
from tests.payload.queue.redis_server import started

MAXMEMORY = 24 << 20
GROUP_SIZE, RESPONSE_TOKENS = 4, 16_384  # 512 KB a group: 100 of them are twice maxmemory
TASKS = 100


@pytest.fixture
def small_redis():
    server = started()
    client = redis.Redis(port=server.port)
    client.config_set("maxmemory", MAXMEMORY)
    client.config_set("maxmemory-policy", "noeviction")
    yield server, client
    client.close()
    server.close()


def big_group(task: Task, rng) -> ExperienceGroup:
    samples = [Sample(rng.integers(1, 50_000, RESPONSE_TOKENS), -rng.random(RESPONSE_TOKENS).astype(np.float32), "stop",
                      reward=float(i % 2)) for i in range(GROUP_SIZE)]
    return ExperienceGroup(task.task_id, task.prompt_id, 0, task.prompt_tokens_P, samples)


def test_producers_wait_below_maxmemory_and_nothing_is_lost(small_redis):
    server, client = small_redis
    queue = RolloutQueue.Config(backend="redis", url=server.url, namespace=uuid.uuid4().hex[:8],
                                high_water_groups=10_000, visibility_timeout_s=60).build()
    assert queue.high_water_bytes == int(0.8 * MAXMEMORY)
    queue.submit([Task(f"t{i}", f"p{i}", np.array([1, 2, 3]), GROUP_SIZE) for i in range(TASKS)])
    assert len(encode_group(big_group(Task("x", "x", np.array([1]), GROUP_SIZE), np.random.default_rng(0)))) > 500_000
    refused, other_errors, held_s = [], [], [0.0]
    stop = threading.Event()

    def producer(name):  # a rollout worker slot's contract: room, claim, complete
        rng = np.random.default_rng(hash(name) % 1000)
        while not stop.is_set():
            started_waiting = time.monotonic()
            room = queue.wait_for_room(0.2, stop)
            held_s[0] += time.monotonic() - started_waiting
            if not room:
                continue
            delivery = queue.claim(Stage.ROLLOUT, name, block_s=0.05)
            if delivery is None:
                return
            try:
                queue.complete(delivery, big_group(delivery.item, rng))
            except BufferFull as exc:  # what the worker does: hand back uncharged, redo later
                refused.append(exc)
                queue.release(delivery, failed=False, reason="Redis out of memory")
            except Exception as exc:  # noqa: BLE001 - counted: the test asserts there are none
                other_errors.append(exc)
                queue.release(delivery, failed=True, reason=str(exc))

    producers = [threading.Thread(target=producer, args=(f"w{i}",)) for i in range(2)]
    for p in producers:
        p.start()
    trained = []
    deadline = time.monotonic() + 60
    while len(trained) < TASKS and time.monotonic() < deadline:  # a trainer slower than the producers
        time.sleep(0.05)
        consumed = queue.consume("trainer", 4, 0.1, 0, 1)
        trained += [b.group.task_id for b in consumed.groups]
        queue.ack([b.entry_id for b in consumed.groups])
    stop.set()
    for p in producers:
        p.join(10)
    assert other_errors == []
    assert held_s[0] > 0.5  # the byte mark held producers back (the group mark never binds here)
    assert all("refused the group of task" in str(exc) for exc in refused)  # named, handed back
    assert sorted(trained) == sorted(f"t{i}" for i in range(TASKS))  # none lost, none twice
    assert queue.dead_letters(Stage.ROLLOUT) == [] and queue.stats().duplicates == 0
    queue.close()


def test_a_write_refused_for_memory_is_named_and_writes_nothing(small_redis):
    server, client = small_redis
    queue = RolloutQueue.Config(backend="redis", url=server.url, namespace=uuid.uuid4().hex[:8],
                                visibility_timeout_s=60, max_deliveries=1).build()
    queue.submit([Task("t0", "p0", np.array([1, 2, 3]), GROUP_SIZE)])
    delivery = queue.claim(Stage.ROLLOUT, "w", block_s=0.1)
    client.config_set("maxmemory", 1)  # full, whatever the marks said a moment ago
    with pytest.raises(BufferFull, match=r"Redis is out of memory \(maxmemory 25,165,824 bytes, noeviction\) and "
                                         r"refused the group of task t0"):
        queue.complete(delivery, big_group(delivery.item, np.random.default_rng(0)))
    client.config_set("maxmemory", MAXMEMORY)
    # Nothing was written and the task is still held: handed back uncharged, it completes once.
    assert queue.stats().buffer_fill == 0 and queue.stats().tasks_in_flight == 1
    queue.release(delivery, failed=False, reason="Redis out of memory")
    again = queue.claim(Stage.ROLLOUT, "w", block_s=0.1)
    assert again.task_id == "t0" and queue.complete(again, big_group(again.item, np.random.default_rng(0)))
    assert queue.stats().buffer_fill == 1 and queue.dead_letters(Stage.ROLLOUT) == []
    queue.close()


def test_the_trainer_drains_a_redis_that_is_over_maxmemory(small_redis):
    # Redis refuses SET/HSET/HINCRBY at maxmemory: the trainer's ingest marker, ack counters and
    # pointers must still go through, or nothing ever frees the memory (they did not, before).
    server, client = small_redis
    queue = RolloutQueue.Config(backend="redis", url=server.url, namespace=uuid.uuid4().hex[:8],
                                visibility_timeout_s=60).build()
    queue.submit([Task(f"t{i}", f"p{i}", np.array([1, 2, 3]), GROUP_SIZE) for i in range(3)])
    for _ in range(2):
        delivery = queue.claim(Stage.ROLLOUT, "w", block_s=0.1)
        queue.complete(delivery, big_group(delivery.item, np.random.default_rng(0)))
    held = queue.claim(Stage.ROLLOUT, "w", block_s=0.1)
    client.config_set("maxmemory", 1)
    with pytest.raises(redis.exceptions.OutOfMemoryError):
        client.set("anything", "x")  # Redis is full for everyone else
    consumed = queue.consume("trainer", 1, 0.1, 0, 1)
    assert [b.group.task_id for b in consumed.groups] == ["t0"]
    queue.ack([b.entry_id for b in consumed.groups])
    stale = queue.consume("trainer", 1, 0.1, 5, 1)  # version 0 at policy 5: dropped as stale
    assert [g.task_id for g in stale.stale] == ["t1"]
    queue.report_progress(5)
    queue.publish_policy(PolicyPointer(5, "/fsx/policy/5"))
    queue.release(held, failed=False, reason="Redis out of memory")  # a worker hands back
    client.config_set("maxmemory", MAXMEMORY)
    stats = queue.stats()
    assert stats.buffer_fill == 0 and stats.stale_dropped == 1
    assert queue.trainer_progress().policy_version == 5 and queue.latest_policy() == PolicyPointer(5, "/fsx/policy/5")
    assert queue.claim(Stage.ROLLOUT, "w2", block_s=0.1).task_id == "t2"
    queue.close()


def test_a_process_starts_and_the_trainer_checks_for_the_end_at_maxmemory(small_redis):
    # Before: XGROUP CREATE (DENYOOM) killed every process starting at maxmemory, and exhausted()
    # was a read-only MULTI, which Redis 7.0 refuses whole at maxmemory.
    server, client = small_redis
    client.config_set("maxmemory", 1)
    fresh = RolloutQueue.Config(backend="redis", url=server.url, namespace=uuid.uuid4().hex[:8]).build()
    assert not fresh.exhausted() and fresh.stats().tasks_waiting == 0  # its groups exist
    with pytest.raises(BufferFull, match="refused 1 new tasks"):
        fresh.submit_feed([Task("t0", "p0", np.array([1]), GROUP_SIZE)], FeedCursor(1, "plan"), expected=None)
    assert fresh.feed_cursor() is None  # refused whole
    client.config_set("maxmemory", MAXMEMORY)
    assert fresh.submit_feed([], FeedCursor(0, "plan", finished=True), expected=None)
    client.config_set("maxmemory", 1)
    assert fresh.exhausted()
    client.config_set("maxmemory", MAXMEMORY)
    fresh.close()
