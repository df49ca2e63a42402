"""Scale-down drains a rollout server before it goes (k8s/charts/autoscaling.py): real processes.

When the autoscaler lowers the LeaderWorkerSet's replicas, the removed group's `serve` gets
SIGTERM: it stops taking work (SGLang 0.5.23 answers /health 503 once shutting down, so the
router drops it; the embedded server stops accepting connections), finishes what it holds and
exits; the worker that was sending to it hands back what it still holds. The other server and
its worker take the rest. Contract: every task's group reaches the buffer exactly once.
"""

import collections
import signal
import time
import uuid

from payload.queue.base import RolloutQueue
from tests.payload.rollout.helpers import ServeProcess
from tests.payload.rollout.test_spot_interruptions import Worker, owned_by, tasks

TASKS = 60


def test_a_server_scaled_down_mid_rollout_loses_and_duplicates_no_task(redis_server, served_tiny, tiny_models):
    namespace = uuid.uuid4().hex[:8]
    trainer = RolloutQueue.Config(backend="redis", url=redis_server.url, namespace=namespace,
                                  visibility_timeout_s=600).build()
    leaving = ServeProcess(tiny_models[0], "--poll-s", "0.5").start(wait=False)
    leaving.wait_ready(timeout=240)  # a loaded CI box starts it slowly
    routed_to_leaving = Worker("leaving", leaving.url, redis_server.url, namespace, "--visibility-timeout-s", "600",
                               "--drain-timeout-s", "5")
    staying = None
    trainer.submit(tasks(TASKS, prefix="d"))
    received = collections.Counter()
    scaled_down = False
    try:
        # The leaving server's worker holds work before the other competes for it: on a loaded
        # box a slow-starting worker could otherwise find the queue already empty (CI saw it).
        deadline = time.monotonic() + 120
        while not owned_by(trainer, "leaving") and time.monotonic() < deadline:
            time.sleep(0.1)
        staying = Worker("staying", served_tiny.url, redis_server.url, namespace, "--visibility-timeout-s", "600")
        deadline = time.monotonic() + 120
        while len(received) < TASKS and time.monotonic() < deadline:
            batch = trainer.consume("trainer", 16, 0.2, current_version=0, max_staleness=1000)
            received.update(g.group.task_id for g in batch.groups)
            trainer.ack([g.entry_id for g in batch.groups])
            if not scaled_down and len(received) >= 5 and owned_by(trainer, "leaving"):
                # The scale-down: the server's pod is deleted (SIGTERM), then nothing routes to it.
                assert leaving.stop() == 0  # drained and exited within its grace, not killed
                routed_to_leaving.process.send_signal(signal.SIGTERM)
                assert routed_to_leaving.process.wait(30) == 0
                scaled_down = True
        stats = trainer.stats()
    finally:
        leaving.kill()
        if staying is not None:
            staying.kill()
        routed_to_leaving.kill()
        trainer.close()
    assert scaled_down
    assert sorted(received) == sorted(t.task_id for t in tasks(TASKS, prefix="d"))  # none lost
    assert set(received.values()) == {1}  # none duplicated
    assert stats.dead_letters == 0 and stats.tasks_in_flight == 0 and stats.tasks_waiting == 0
