"""One contract, two backends: every test runs against the in-memory queue and a real redis-server."""

import threading
import time
import uuid

import numpy as np
import pytest

from payload.queue.base import FeedCursor, PolicyPointer, RolloutQueue, Stage, TrainerProgress
from payload.queue.experience import ExperienceGroup, Sample, Task

VISIBILITY_S = 0.3


@pytest.fixture(params=["memory", "redis"])
def make_queue(request):
    made = []

    def make(**overrides):
        options = dict(backend=request.param, visibility_timeout_s=VISIBILITY_S, max_deliveries=3)
        if request.param == "redis":
            server = request.getfixturevalue("redis_server")
            # A namespace per test: the session's one server holds every test's keys apart.
            options.update(url=server.url, namespace=make.namespace)
        options.update(overrides)
        queue = RolloutQueue.Config(**options).build()
        made.append(queue)
        return queue

    make.namespace = uuid.uuid4().hex[:8]
    yield make
    for queue in made:
        queue.close()


def task(i: int, version: int = 0) -> Task:
    return Task(task_id=f"t{i}", prompt_id=f"p{i}", prompt_tokens_P=np.arange(i, i + 5), group_size=2,
                policy_version=version, label=str(i))


def group_for(t: Task, version: int = 0, reward: float = 1.0, worker: str = "w") -> ExperienceGroup:
    samples = [
        Sample(token_ids_T=np.arange(k + 3) + k, logprobs_T=-np.linspace(0.1, 1.0, k + 3), finish_reason="stop",
               text=f"answer {k}", reward=reward)
        for k in range(t.group_size)
    ]
    return ExperienceGroup(task_id=t.task_id, prompt_id=t.prompt_id, policy_version=version,
                           prompt_tokens_P=t.prompt_tokens_P, samples=samples, label=t.label, worker=worker)


def drain(queue, current_version=0, max_staleness=10, consumer="trainer"):
    got = []
    while True:
        batch = queue.consume(consumer, 64, 0.05, current_version, max_staleness)
        if not batch.groups and not batch.stale:
            return got
        got += batch.groups
        queue.ack([g.entry_id for g in batch.groups])


def test_task_to_trainer_round_trip(make_queue):
    queue = make_queue()
    tasks = [task(i) for i in range(3)]
    queue.submit(tasks)
    assert queue.stats().tasks_waiting == 3
    delivery = queue.claim(Stage.ROLLOUT, "w1", block_s=0.1)
    assert delivery.deliveries == 1 and delivery.task_id == "t0"
    assert np.array_equal(delivery.item.prompt_tokens_P, tasks[0].prompt_tokens_P)
    assert queue.stats().tasks_in_flight == 1
    assert queue.complete(delivery, group_for(delivery.item, version=4))
    stats = queue.stats()
    assert (stats.tasks_waiting, stats.tasks_in_flight, stats.buffer_fill) == (2, 0, 1)

    batch = queue.consume("trainer", 8, 0.1, current_version=4, max_staleness=1)
    assert [g.group.task_id for g in batch.groups] == ["t0"] and not batch.stale
    got = batch.groups[0].group
    assert got.policy_version == 4 and got.experience_ids == ["t0/0", "t0/1"]
    assert np.array_equal(got.samples[1].token_ids_T, np.arange(4) + 1)
    assert np.allclose(got.samples[1].logprobs_T, -np.linspace(0.1, 1.0, 4))
    assert queue.buffer_fill() == 1  # consumed but not acknowledged still holds room
    queue.ack([batch.groups[0].entry_id])
    assert queue.buffer_fill() == 0


def test_claim_on_empty_queue_times_out(make_queue):
    queue = make_queue()
    start = time.monotonic()
    assert queue.claim(Stage.ROLLOUT, "w1", block_s=0.2) is None
    assert time.monotonic() - start >= 0.15
    assert queue.consume("trainer", 4, 0.05, 0, 1).groups == []


def test_claim_wakes_when_a_task_arrives(make_queue):
    queue = make_queue()
    submitter = threading.Timer(0.1, lambda: queue.submit([task(7)]))
    submitter.start()
    delivery = queue.claim(Stage.ROLLOUT, "w1", block_s=2.0)
    # The claim can wake before submit has read its reply: let it finish before the queue closes.
    submitter.join()
    assert delivery is not None and delivery.task_id == "t7"


def test_dead_consumer_task_is_reclaimed_and_finished_once(make_queue):
    queue = make_queue()
    queue.submit([task(1)])
    lost = queue.claim(Stage.ROLLOUT, "dead-worker", block_s=0.1)
    # Within the visibility timeout nobody else sees it.
    assert queue.claim(Stage.ROLLOUT, "w2", block_s=0.05) is None
    time.sleep(VISIBILITY_S + 0.05)
    again = queue.claim(Stage.ROLLOUT, "w2", block_s=0.1)
    assert again.task_id == "t1" and again.entry_id == lost.entry_id and again.deliveries == 2
    assert queue.complete(again, group_for(again.item, worker="w2"))
    # The first worker was only slow: its late result is refused as a duplicate.
    assert not queue.complete(lost, group_for(lost.item, worker="dead-worker"))
    groups = drain(queue)
    assert [(g.group.task_id, g.group.worker) for g in groups] == [("t1", "w2")]
    stats = queue.stats()
    assert stats.duplicates == 1 and stats.tasks_in_flight == 0 and stats.tasks_waiting == 0


def test_dead_letter_after_max_deliveries(make_queue):
    queue = make_queue(max_deliveries=2)
    queue.submit([task(1), task(2)])
    first = queue.claim(Stage.ROLLOUT, "w", block_s=0.1)
    assert first.task_id == "t1"
    time.sleep(VISIBILITY_S + 0.05)
    second = queue.claim(Stage.ROLLOUT, "w", block_s=0.1)
    assert (second.task_id, second.deliveries) == ("t1", 2)
    time.sleep(VISIBILITY_S + 0.05)
    # t1 has had its two deliveries: it is dead-lettered, and the next claim gets t2.
    third = queue.claim(Stage.ROLLOUT, "w", block_s=0.1)
    assert (third.task_id, third.deliveries) == ("t2", 1)
    dead = queue.dead_letters(Stage.ROLLOUT)
    assert [(d.entry_id, d.deliveries) for d in dead] == [(first.entry_id, 2)]
    assert dead[0].reason == "visibility timeout"
    from payload.queue.experience import decode_task

    assert decode_task(dead[0].payload).task_id == "t1"
    assert queue.stats().dead_letters == 1


def test_release_hands_back_at_once(make_queue):
    queue = make_queue(max_deliveries=2)
    queue.submit([task(1)])
    d1 = queue.claim(Stage.ROLLOUT, "preempted", block_s=0.1)
    queue.release(d1, failed=False)  # SIGTERM: does not use up an attempt
    d2 = queue.claim(Stage.ROLLOUT, "w2", block_s=0.1)
    assert (d2.entry_id, d2.deliveries) == (d1.entry_id, 1)
    queue.release(d2, failed=True, reason="server error")  # counts: 1 of 2
    d3 = queue.claim(Stage.ROLLOUT, "w3", block_s=0.1)
    assert (d3.entry_id, d3.deliveries) == (d1.entry_id, 2)
    # A stale handle (d2 no longer owns it) cannot hand it back.
    queue.release(d2, failed=False)
    assert queue.claim(Stage.ROLLOUT, "w4", block_s=0.05) is None
    queue.release(d3, failed=True, reason="server error")  # the last attempt: dead letter
    assert queue.claim(Stage.ROLLOUT, "w4", block_s=0.05) is None
    dead = queue.dead_letters(Stage.ROLLOUT)
    assert [(d.entry_id, d.deliveries, d.reason) for d in dead] == [(d1.entry_id, 2, "server error")]


def test_backpressure_at_high_water_mark(make_queue):
    queue = make_queue(high_water_groups=2)
    queue.submit([task(i) for i in range(3)])
    for _ in range(2):
        d = queue.claim(Stage.ROLLOUT, "w", block_s=0.1)
        queue.complete(d, group_for(d.item))
    assert queue.buffer_fill() == 2
    start = time.monotonic()
    assert not queue.wait_for_room(0.2)
    assert time.monotonic() - start >= 0.2
    # The trainer takes one group and acknowledges it: a waiting producer proceeds.
    def train_one():
        batch = queue.consume("trainer", 1, 0.1, 0, 5)
        queue.ack([g.entry_id for g in batch.groups])

    threading.Timer(0.1, train_one).start()
    start = time.monotonic()
    assert queue.wait_for_room(5.0)
    assert 0.05 < time.monotonic() - start < 2.0
    # Nothing was dropped: the third task is still there to be rolled out.
    assert queue.claim(Stage.ROLLOUT, "w", block_s=0.1).task_id == "t2"


def test_stale_groups_are_dropped_and_counted(make_queue):
    queue = make_queue()
    queue.submit([task(i) for i in range(4)])
    for version in range(4):
        d = queue.claim(Stage.ROLLOUT, "w", block_s=0.1)
        queue.complete(d, group_for(d.item, version=version))
    batch = queue.consume("trainer", 10, 0.1, current_version=3, max_staleness=1)
    assert sorted(g.group.policy_version for g in batch.groups) == [2, 3]
    assert sorted(g.policy_version for g in batch.stale) == [0, 1]
    queue.ack([g.entry_id for g in batch.groups])
    assert queue.stats().stale_dropped == 2 and queue.buffer_fill() == 0


def spanning_group(t: Task, spans) -> ExperienceGroup:
    """A group whose samples ran across weight publishes: each sample's (version, start, end) spans."""
    samples = [Sample(token_ids_T=np.arange(s[-1][2]), logprobs_T=-np.ones(s[-1][2]), finish_reason="length",
                      reward=1.0, version_spans=s) for s in spans]
    return ExperienceGroup(task_id=t.task_id, prompt_id=t.prompt_id, policy_version=min(v for s in spans for v, _, _ in s),
                           prompt_tokens_P=t.prompt_tokens_P, samples=samples, label=t.label, worker="w")


@pytest.mark.parametrize("stale_tokens", ["drop_group", "mask"])
def test_groups_with_a_stale_span_by_rollout_stale_tokens(make_queue, stale_tokens):
    """At version 5 with max_staleness 1: a group whose generations began on version 2 and
    finished on 5 (in-place publishes in between) is dropped under drop_group (its oldest token
    is 3 versions behind) and kept under mask (its newest is fresh); a group whose every token
    is too stale is dropped under both; a fresh group is kept under both."""
    queue = make_queue()
    queue.submit([task(i) for i in range(3)])
    made = {
        "t0": [((2, 0, 3), (5, 3, 7)), ((2, 0, 2), (4, 2, 5))],  # stale old spans, fresh newest span
        "t1": [((1, 0, 2), (3, 2, 4)), ((2, 0, 4),)],  # newest 3: every token too stale
        "t2": [((4, 0, 2), (5, 2, 6)), ((5, 0, 3),)],  # every token fresh
    }
    for _ in range(3):
        d = queue.claim(Stage.ROLLOUT, "w", block_s=0.1)
        queue.complete(d, spanning_group(d.item, made[d.item.task_id]))
    batch = queue.consume("trainer", 10, 0.1, current_version=5, max_staleness=1, stale_tokens=stale_tokens)
    kept = sorted(g.group.task_id for g in batch.groups)
    assert kept == (["t2"] if stale_tokens == "drop_group" else ["t0", "t2"])
    assert sorted(g.task_id for g in batch.stale) == (["t0", "t1"] if stale_tokens == "drop_group" else ["t1"])
    # What the trainer gets keeps every token's version.
    by_id = {g.group.task_id: g.group for g in batch.groups}
    if stale_tokens == "mask":
        assert [s.version_spans for s in by_id["t0"].samples] == [((2, 0, 3), (5, 3, 7)), ((2, 0, 2), (4, 2, 5))]
        assert (by_id["t0"].policy_version, by_id["t0"].newest_version) == (2, 5)
    queue.ack([g.entry_id for g in batch.groups])
    assert queue.stats().stale_dropped == len(batch.stale) and queue.buffer_fill() == 0


def test_unverified_groups_pass_through_the_verify_stage(make_queue):
    queue = make_queue()
    queue.submit([task(1)])
    d = queue.claim(Stage.ROLLOUT, "w", block_s=0.1)
    unverified = group_for(d.item, reward=float("nan"))
    assert not unverified.verified
    assert queue.complete(d, unverified)
    assert queue.consume("trainer", 4, 0.05, 0, 1).groups == []  # not in the buffer yet
    assert queue.buffer_fill() == 1 and queue.stats().verify_waiting == 1  # but it holds room
    v = queue.claim(Stage.VERIFY, "verifier", block_s=0.1)
    assert v.task_id == "t1" and not v.item.verified
    scored = v.item
    for s, r in zip(scored.samples, (1.0, 0.0)):
        s.reward = r
    assert queue.complete(v, scored)
    assert not queue.complete(v, scored)  # a repeated verification adds nothing
    [got] = drain(queue)
    assert got.group.rewards_G.tolist() == [1.0, 0.0]


def test_policy_pointer_only_moves_forward(make_queue):
    queue = make_queue()
    assert queue.latest_policy() is None
    queue.publish_policy(PolicyPointer(3, "/fsx/ckpt/3"))
    queue.publish_policy(PolicyPointer(2, "/fsx/ckpt/2"))
    assert queue.latest_policy() == PolicyPointer(3, "/fsx/ckpt/3")
    queue.publish_policy(PolicyPointer(4, "/fsx/ckpt/4"))
    assert queue.latest_policy() == PolicyPointer(4, "/fsx/ckpt/4")


def test_concurrent_workers_produce_each_group_once(make_queue):
    queue = make_queue()
    queue.submit([task(i) for i in range(60)])

    def work(name):
        while (d := queue.claim(Stage.ROLLOUT, name, block_s=0.05)) is not None:
            queue.complete(d, group_for(d.item, worker=name))

    threads = [threading.Thread(target=work, args=(f"w{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ids = [g.group.task_id for g in drain(queue)]
    assert sorted(ids) == sorted(f"t{i}" for i in range(60))


def test_feed_cursor_moves_with_its_tasks_and_only_from_the_expected_cursor(make_queue):
    queue = make_queue()
    assert queue.feed_cursor() is None
    first = FeedCursor(2, "plan-a")
    assert queue.submit_feed([task(0), task(1)], first, expected=None)
    assert queue.feed_cursor() == first and queue.stats().tasks_waiting == 2
    # A second feeder that read no cursor (or an old one) submits nothing.
    assert not queue.submit_feed([task(0)], FeedCursor(1, "plan-a"), expected=None)
    assert not queue.submit_feed([task(5)], FeedCursor(3, "plan-b"), expected=FeedCursor(2, "plan-b"))
    assert not queue.submit_feed([task(5)], FeedCursor(3, "plan-a"), expected=FeedCursor(2, "plan-a", finished=True))
    assert queue.feed_cursor() == first and queue.stats().tasks_waiting == 2
    assert queue.submit_feed([task(2)], FeedCursor(3, "plan-a"), expected=first)
    assert queue.submit_feed([], FeedCursor(3, "plan-a", finished=True), expected=FeedCursor(3, "plan-a"))
    assert queue.feed_cursor() == FeedCursor(3, "plan-a", finished=True)
    assert [queue.claim(Stage.ROLLOUT, "w", block_s=0.1).task_id for _ in range(3)] == ["t0", "t1", "t2"]


def test_exhausted_once_the_feed_finished_and_every_task_reached_the_trainer(make_queue):
    queue = make_queue()
    assert not queue.exhausted()  # no feed yet
    assert queue.submit_feed([task(0), task(1)], FeedCursor(2, "p", finished=True), expected=None)
    assert not queue.exhausted()  # waiting
    d0 = queue.claim(Stage.ROLLOUT, "w", block_s=0.1)
    assert queue.complete(d0, group_for(d0.item))
    d1 = queue.claim(Stage.ROLLOUT, "w", block_s=0.1)
    assert not queue.exhausted()  # one in flight, one unread in the buffer
    assert queue.complete(d1, group_for(d1.item, reward=float("nan")))
    assert not queue.exhausted()  # one awaiting a verifier
    v = queue.claim(Stage.VERIFY, "verifier", block_s=0.1)
    scored = v.item
    for s in scored.samples:
        s.reward = 0.5
    assert queue.complete(v, scored)
    assert not queue.exhausted()  # both unread in the buffer
    batch = queue.consume("trainer", 8, 0.1, current_version=0, max_staleness=1)
    assert len(batch.groups) == 2
    assert queue.exhausted()  # held by the trainer, not yet acknowledged, is the trainer's
    queue.ack([g.entry_id for g in batch.groups])
    assert queue.exhausted()


def test_trainer_progress_counts_versions_and_dropped_groups(make_queue):
    queue = make_queue()
    assert queue.trainer_progress() == TrainerProgress(0, 0)
    queue.submit([task(i) for i in range(3)])
    for _ in range(3):
        d = queue.claim(Stage.ROLLOUT, "w", block_s=0.1)
        queue.complete(d, group_for(d.item))
    batch = queue.consume("trainer", 8, 0.1, current_version=0, max_staleness=1)
    queue.ack([g.entry_id for g in batch.groups[:2]], dropped=True)
    queue.ack([batch.groups[2].entry_id])
    queue.report_progress(7)
    assert queue.trainer_progress() == TrainerProgress(7, 2)
    assert queue.buffer_fill() == 0


def test_bad_config_is_one_line():
    from payload.queue.base import QueueError

    with pytest.raises(QueueError, match="queue backend 'kafka'"):
        RolloutQueue.Config(backend="kafka")
    with pytest.raises(QueueError, match="max_deliveries=0"):
        RolloutQueue.Config(max_deliveries=0)
