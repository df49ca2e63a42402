"""Spot behaviour end to end with real processes: `rollout` workers SIGKILLed and SIGTERMed,
Redis SIGKILLed and restarted from its AOF, a rollout server killed and restarted."""

import collections
import os
import random
import signal
import subprocess
import sys
import time
import uuid

import httpx
import numpy as np
import pytest
import torch

from payload.model import load_pretrained
from payload.queue.base import PolicyPointer, RolloutQueue, Stage
from payload.queue.experience import Task
from payload.sync.client import RolloutServerClient
from payload.common.ports import free_port
from tests.payload.queue.redis_server import started
from tests.payload.rollout.helpers import REPO, ServeProcess, env
from tests.payload.rollout.test_engine_server import PROMPT, greedy, served_greedy

TASKS = 500
VISIBILITY_S = 1.0


class Worker:
    def __init__(self, name, server_url, queue_url, namespace, *extra):
        self.name = name
        command = [sys.executable, "-m", "payload", "rollout", "--server-url", server_url, "--queue-url", queue_url,
                   "--namespace", namespace, "--name", name, "--concurrency", "4", "--max-new-tokens", "4",
                   "--visibility-timeout-s", str(VISIBILITY_S), "--metrics-port", str(free_port()),
                   # A loaded CI box can take longer than the 1 s timeout for a live task too;
                   # dead-lettering is tested elsewhere, here every task must come through.
                   "--max-deliveries", "50",
                   "--verifier-processes", "1", *extra]
        # Its own process group: SIGKILL takes the verifier process too, as losing the node would.
        self.process = subprocess.Popen(command, env=env(), cwd=REPO, start_new_session=True,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def kill(self):
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:  # the whole group has exited already (a drained worker, say)
            pass
        self.process.wait(10)


def tasks(n, prefix="t"):
    return [Task(task_id=f"{prefix}{i}", prompt_id=f"p{i}", prompt_tokens_P=np.array([1 + i % 200, 2, 3]),
                 group_size=2, label="", verifier="exact_match") for i in range(n)]


def owned_by(queue, name):
    pending = queue.redis.xpending_range(queue._streams[Stage.ROLLOUT], "workers", "-", "+", 10_000, consumername=name)
    return len(pending)


@pytest.fixture
def own_redis(tmp_path):
    server = started(str(tmp_path))
    yield server
    server.close()


def test_killed_workers_and_a_redis_restart_lose_and_duplicate_nothing(own_redis, served_tiny):
    rng = random.Random(6)
    namespace = uuid.uuid4().hex[:8]
    trainer = RolloutQueue.Config(backend="redis", url=own_redis.url, namespace=namespace,
                                  visibility_timeout_s=VISIBILITY_S).build()
    trainer.submit(tasks(TASKS))
    serial = iter(range(1000))
    workers = [Worker(f"w{next(serial)}", served_tiny.url, own_redis.url, namespace) for _ in range(3)]
    received = collections.Counter()
    kills = interrupted = 0
    redis_restarted = False
    last_kill = time.monotonic()
    deadline = time.monotonic() + 90
    try:
        while len(received) < TASKS and time.monotonic() < deadline:
            batch = trainer.consume("trainer", 64, 0.2, current_version=0, max_staleness=1000)
            received.update(g.group.task_id for g in batch.groups)
            trainer.ack([g.entry_id for g in batch.groups])
            if kills < 8 and time.monotonic() - last_kill > 0.5 and len(received) > 20:
                victim = workers.pop(rng.randrange(len(workers)))
                held = owned_by(trainer, victim.name)
                if held:  # kill -9 in the middle of tasks
                    victim.kill()
                    kills += 1
                    interrupted += held
                    last_kill = time.monotonic()
                    workers.append(Worker(f"w{next(serial)}", served_tiny.url, own_redis.url, namespace))
                else:
                    workers.append(victim)
            if not redis_restarted and len(received) > TASKS // 2:
                own_redis.stop(kill=True)  # only what Redis fsynced to its AOF survives
                time.sleep(0.5)
                own_redis.start()
                redis_restarted = True
        stats = trainer.stats()
    finally:
        for w in workers:
            w.kill()
        trainer.close()
    print(f"\nspot chaos: tasks={TASKS} kills={kills} tasks_interrupted={interrupted} redis_restarts=1 "
          f"received={len(received)} lost={TASKS - len(received)} "
          f"duplicated={sum(c - 1 for c in received.values())} late_duplicates_refused={stats.duplicates} "
          f"dead_letters={stats.dead_letters} in_flight={stats.tasks_in_flight} waiting={stats.tasks_waiting}")
    assert kills >= 5 and interrupted >= kills and redis_restarted
    assert sorted(received) == sorted(t.task_id for t in tasks(TASKS))  # none lost
    assert set(received.values()) == {1}  # none duplicated
    assert stats.dead_letters == 0 and stats.tasks_in_flight == 0 and stats.tasks_waiting == 0


def test_sigterm_hands_in_flight_tasks_back_within_the_grace_period(redis_server, served_tiny):
    namespace = uuid.uuid4().hex[:8]
    queue = RolloutQueue.Config(backend="redis", url=redis_server.url, namespace=namespace,
                                visibility_timeout_s=600).build()
    admin = RolloutServerClient(served_tiny.url)
    admin.pause_generation("in_place")  # the server holds every request: tasks stay in flight
    try:
        queue.submit(tasks(3, prefix="s"))
        worker = Worker("spot", served_tiny.url, redis_server.url, namespace, "--drain-timeout-s", "1",
                        "--visibility-timeout-s", "600")
        deadline = time.monotonic() + 30
        while owned_by(queue, "spot") < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert owned_by(queue, "spot") == 3
        start = time.monotonic()
        worker.process.send_signal(signal.SIGTERM)  # the spot interruption notice
        assert worker.process.wait(15) == 0
        assert time.monotonic() - start < 1 + 3  # the drain timeout, plus shutting down
        # Handed back: claimable at once, not after the 600 s visibility timeout, and not
        # charged an attempt.
        again = [queue.claim(Stage.ROLLOUT, "next", block_s=0.1) for _ in range(3)]
        assert sorted(d.task_id for d in again) == ["s0", "s1", "s2"] and {d.deliveries for d in again} == {1}
    finally:
        admin.continue_generation()
        admin.close()
        queue.close()


def test_restarted_server_starts_on_the_newest_weights_and_is_not_reloaded_while_running(redis_server, tiny_models, tmp_path):
    namespace = uuid.uuid4().hex[:8]
    queue = RolloutQueue.Config(backend="redis", url=redis_server.url, namespace=namespace).build()
    a, b = (load_pretrained(p, dtype=torch.float32).eval() for p in tiny_models)
    queue.publish_policy(PolicyPointer(5, str(tiny_models[1])))
    server = ServeProcess(tiny_models[0], "--queue-url", redis_server.url, "--namespace", namespace, "--poll-s", "0.3")
    try:
        server.start()
        # Started on the newest export, not on the base model it was given.
        assert served_greedy(server.url) == (greedy(b, PROMPT, 8), "5")
        # A newer export while it runs is not reloaded from disk behind the trainer's back (the
        # next publish sends the server every tensor): it keeps serving, ready, for many polls.
        queue.publish_policy(PolicyPointer(6, str(tiny_models[0])))
        time.sleep(2.0)
        assert served_greedy(server.url) == (greedy(b, PROMPT, 8), "5")
        assert httpx.get(f"http://127.0.0.1:{server.metrics_port}/readyz", timeout=5).status_code == 200
        server.kill()  # the node is reclaimed
        server = ServeProcess(tiny_models[0], "--queue-url", redis_server.url, "--namespace", namespace,
                              "--poll-s", "0.3", port=server.port)
        server.start()
        assert served_greedy(server.url) == (greedy(a, PROMPT, 8), "6")
        assert server.stop() == 0  # SIGTERM: a clean stop
    finally:
        server.stop()
        queue.close()
