"""Issue 49, item 1: Redis held at maxmemory by a neighbour, longer than every timeout, is ridden out.

A real redis-server (maxmemory, noeviction) under the whole pipeline, each piece with its own
connection as its pod would have: the feeder, a rollout worker on the embedded engine, the
verifier, and a trainer loop that makes the trainer's queue calls in its order (consume,
exhausted when nothing came, ack, report_progress; payload/train/trainer.py _take_groups).
Mid-run a neighbour's keys fill Redis until used_memory >= maxmemory; the trainer, a second
feeder and a second verifier start while it is full; it stays full past the visibility timeout
times max_deliveries and past outage_s; then the neighbour's keys are deleted.

Before: the trainer died in exhausted() (a read-only MULTI, refused at OOM by Redis 7.0), every
process starting at OOM died creating its consumer groups, the feeder exited on BufferFull and
the verifier left refused groups to the visibility timeout, so they were dead-lettered.
"""

import logging
import threading
import time
import uuid

import pytest
import redis
from prometheus_client import CollectorRegistry

from payload.data.feeder import Feeder
from payload.data.plan import FeedPlan
from payload.data.prompts import PromptBuilder
from payload.data.source import open_dataset
from payload.queue.base import RolloutQueue, Stage
from payload.rewards.worker import VerifyWorker
from payload.rollout.client import SamplingParams, SGLangClient
from payload.rollout.worker import RolloutWorker
from spec.job import DataColumns, DataSource
from tests.payload.data.data_helpers import make_tokenizer, write_jsonl
from tests.payload.queue.redis_server import started

TASKS, PER_STEP, STALENESS = 10, 2, 2  # the feeder's budget before any training: 3 steps, 6 tasks
VISIBILITY_S, MAX_DELIVERIES, OUTAGE_S = 3.0, 2, 5.0
HOLD_S = 12.0  # past VISIBILITY_S x (MAX_DELIVERIES + 1) and OUTAGE_S


@pytest.fixture
def full_redis():
    server = started()
    admin = redis.Redis(port=server.port)
    admin.config_set("maxmemory", admin.info("memory")["used_memory"] + (8 << 20))
    admin.config_set("maxmemory-policy", "noeviction")
    yield server, admin
    admin.close()
    server.close()


class Neighbour:
    """Another tenant of the same Redis: its keys take used_memory past maxmemory by `over`
    bytes (so what the job frees, or a client's buffers, cannot bring Redis back under it)
    until it deletes them all."""

    def __init__(self, admin: redis.Redis, over: int = 1 << 20) -> None:
        self.admin, self.over, self.keys = admin, over, 0
        self.maxmemory = int(admin.config_get("maxmemory")["maxmemory"])

    def __enter__(self) -> "Neighbour":
        # Written with the limit lifted for a moment: at the limit Redis refuses the writes
        # themselves (the AOF buffer and query buffers move the edge by kilobytes).
        self.admin.config_set("maxmemory", 0)
        try:
            while self.admin.info("memory")["used_memory"] < self.maxmemory + self.over:
                self.admin.set(f"neighbour:{self.keys}", b"x" * 65_536)
                self.keys += 1
        finally:
            self.admin.config_set("maxmemory", self.maxmemory)
        return self

    def __exit__(self, *exc) -> None:
        self.admin.delete(*(f"neighbour:{i}" for i in range(self.keys)))


def wait_until(condition, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


class Pod:
    """One process's piece on a thread of its own; an exception out of it is a process exit."""

    def __init__(self, name: str, target) -> None:
        self.stop, self.errors, self.returned = threading.Event(), [], False
        self.thread = threading.Thread(target=self._run, args=(target,), name=name, daemon=True)

    def _run(self, target) -> None:
        try:
            target(self.stop)
            self.returned = True
        except BaseException as exc:  # noqa: BLE001 - recorded: the test asserts there are none
            self.errors.append(exc)

    def start(self) -> "Pod":
        self.thread.start()
        return self

    def end(self) -> None:
        self.stop.set()
        self.thread.join(60)
        assert not self.thread.is_alive(), f"{self.thread.name} did not stop"


class TrainerLoop:
    """The trainer's queue calls, in its order, with a real connection of its own."""

    def __init__(self, config: RolloutQueue.Config) -> None:
        self.config, self.trained, self.steps = config, [], 0
        self.exhausted_while_full = 0
        self.full = threading.Event()

    def __call__(self, stop: threading.Event) -> None:
        queue = self.config.build()  # a trainer pod (re)started while Redis is full
        held: list = []
        while not stop.is_set():
            # Staleness is not under test: every group is trainable (the feeder paces by STALENESS).
            consumed = queue.consume("trainer", PER_STEP - len(held), 0.2, self.steps, 1000)
            held += consumed.groups
            if not consumed.groups:
                full = self.full.is_set()
                if queue.exhausted():
                    break
                self.exhausted_while_full += full
            if len(held) == PER_STEP:
                queue.ack([b.entry_id for b in held])
                self.trained += [b.group.task_id for b in held]
                self.steps += 1
                queue.report_progress(self.steps)
                held = []
        assert not held, "exhausted with groups in hand"  # PER_STEP divides TASKS
        queue.close()


def test_redis_held_at_maxmemory_by_a_neighbour_is_ridden_out(full_redis, served_tiny, tmp_path, caplog):
    server, admin = full_redis
    caplog.set_level(logging.INFO)
    config = RolloutQueue.Config(backend="redis", url=server.url, namespace=uuid.uuid4().hex[:8],
                                 visibility_timeout_s=VISIBILITY_S, max_deliveries=MAX_DELIVERIES, outage_s=OUTAGE_S)
    rows = [{"question": f"what is {i % 10} plus {i // 10} ?", "answer": str(i % 10 + i // 10)} for i in range(TASKS)]
    dataset = open_dataset(DataSource(path=str(write_jsonl(tmp_path / "t.jsonl", rows))), tmp_path / "cache")
    prompts = PromptBuilder.Config(model_path=str(make_tokenizer(tmp_path / "tok", chat_template=None)),
                                   columns=DataColumns(prompt="question"), max_prompt_tokens=32,
                                   verifier="exact_match", chat_template=False).build()
    plan = FeedPlan(dataset.fingerprint, prompts.scan(dataset).kept, passes=1, seed=0)
    queues = []

    def queue() -> RolloutQueue:
        queues.append(config.build())
        return queues[-1]

    def feeder(stop):
        Feeder.Config(group_size=2, prompts_per_step=PER_STEP, max_staleness=STALENESS, poll_s=0.1,
                      full_pause_max_s=1.0).build(plan, prompts, dataset, queue()).run(stop)
        stop.wait()  # finished: stays up, as the feed pod does

    def verifier(registry, stop_after=None):
        def run(stop):
            on_progress = (lambda: stop.set() if registry.get_sample_value("rl_verify_groups_total") >= stop_after
                           else None) if stop_after else (lambda: None)
            VerifyWorker(VerifyWorker.Config(name="v", processes=1, claim_block_s=0.2, server_down_pause_s=0.5),
                         queue(), registry=registry, on_progress=on_progress).run(stop)
        return run

    client = SGLangClient.Config(url=served_tiny.url, timeout_s=10.0).build()
    worker_metrics = CollectorRegistry()
    worker = Pod("worker", RolloutWorker(
        RolloutWorker.Config(name="w", concurrency=2, sampling=SamplingParams(max_new_tokens=4), inline_verifier=False,
                             claim_block_s=0.2, server_down_pause_s=0.5, drain_timeout_s=5.0),
        queue(), client, registry=worker_metrics).run).start()
    probe = queue()

    # Before: the first three steps' tasks rolled out and awaiting the verifier; two verified.
    first_feeder = Pod("feeder", feeder).start()
    wait_until(lambda: probe.stats().verify_waiting == STALENESS * PER_STEP + PER_STEP, 60, "six groups to verify")
    first_feeder.end()  # a feeder pod restarted below, while Redis is full
    first_metrics = CollectorRegistry()
    first_verifier = Pod("verifier", verifier(first_metrics, stop_after=PER_STEP)).start()
    first_verifier.thread.join(60)
    assert first_metrics.get_sample_value("rl_verify_groups_total") == PER_STEP

    # Full: a neighbour fills Redis; the trainer, a feeder and a verifier start into it.
    trainer = TrainerLoop(config)
    second_metrics = CollectorRegistry()
    with Neighbour(admin) as neighbour:
        memory = admin.info("memory")
        assert memory["used_memory"] >= memory["maxmemory"]
        with pytest.raises(redis.exceptions.OutOfMemoryError):
            admin.set("neighbour:one-more", b"x")
        full_since = time.monotonic()
        trainer.full.set()
        pods = [Pod("trainer", trainer).start(), Pod("feeder", feeder).start(),
                Pod("verifier", verifier(second_metrics)).start()]
        time.sleep(HOLD_S)
        memory = admin.info("memory")
        assert memory["used_memory"] >= memory["maxmemory"], "Redis was not held full for the whole hold"
        trainer.full.clear()
    held_s = time.monotonic() - full_since

    trainer_pod = pods[0]
    trainer_pod.thread.join(120)
    for pod in [*pods[1:], worker]:
        pod.end()
    for pod in [first_feeder, first_verifier, worker, *pods]:
        assert pod.errors == [], f"{pod.thread.name} exited: {pod.errors!r}"
    assert trainer_pod.returned, "the trainer did not reach the end of the data"

    stats, cursor = probe.stats(), probe.feed_cursor()
    dead = probe.dead_letters(Stage.ROLLOUT) + probe.dead_letters(Stage.VERIFY)
    submitted = [plan.task_id(*plan.at(p)) for p in range(cursor.position)]
    counts = dict(submitted=len(submitted), trained=len(trainer.trained), distinct=len(set(trainer.trained)),
                  dead_lettered=len(dead), duplicates=stats.duplicates, stale=stats.stale_dropped)
    print(f"Redis held at maxmemory for {held_s:.1f} s ({neighbour.keys} neighbour keys): {counts}")
    assert cursor.finished and counts == dict(submitted=TASKS, trained=TASKS, distinct=TASKS, dead_lettered=0,
                                              duplicates=0, stale=0)
    assert sorted(trainer.trained) == sorted(submitted)
    # What the hold exercised: the trainer's end-of-data check, verified groups refused and
    # handed back, the feeder's submission after the trainer's step refused and waited out.
    assert trainer.exhausted_while_full > 0 and trainer.steps == TASKS // PER_STEP
    assert second_metrics.get_sample_value("rl_verify_buffer_full_total") > 0
    assert any("the feed waits for room" in r.getMessage() for r in caplog.records)
    assert not [r for r in caplog.records if r.exc_info], "a slot logged an exception"
    for q in queues:
        q.close()
