"""A rollout worker against a misbehaving server: HTTP 500, timeouts, malformed JSON, 4xx, a
prompt that fails every attempt on a server that is otherwise healthy, and Redis out of memory.

The server under the worker is the real embedded engine (`serve --engine local`); a fault
injector on loopback sits in front of it and answers the scripted faults first.
"""

import dataclasses
import json
import threading
import time
import uuid

import httpx
import numpy as np
import pytest
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client import CollectorRegistry

from payload.queue.base import RolloutQueue, Stage
from payload.queue.experience import Task
from payload.rollout.client import SamplingParams, SGLangClient
from payload.rollout.worker import RolloutWorker
from payload.common.ports import free_port


class FaultInjector:
    def __init__(self, upstream: str) -> None:
        self.faults: list[str] = []
        self.calls = 0
        # /health_generate answers from the real server unless the scripted outage covers it too.
        self.healthy = True
        # A prompt the server fails with HTTP 500 on every attempt (its own bug on this input).
        self.poisoned: list[int] | None = None
        app = FastAPI()

        @app.get("/health_generate")
        async def health_generate():
            if not self.healthy:
                return Response(status_code=503)
            async with httpx.AsyncClient(base_url=upstream, timeout=30) as client:
                answer = await client.get("/health_generate")
            return Response(answer.content, status_code=answer.status_code)

        @app.post("/generate")
        async def generate(request: Request):
            self.calls += 1
            body = await request.body()
            fault = self.faults.pop(0) if self.faults else "ok"
            if self.poisoned is not None and json.loads(body)["input_ids"][0] == self.poisoned:
                fault = "500"
            if fault == "500":
                return JSONResponse({"error": "boom"}, status_code=500)
            if fault == "400":
                return JSONResponse({"error": {"message": "prompt too long"}}, status_code=400)
            if fault == "malformed":
                return Response("{not json", media_type="application/json")
            if fault == "wrong-shape":
                return JSONResponse([{"text": "x"}])
            if fault == "hang":
                import asyncio

                await asyncio.sleep(6.0)  # past the client's timeout: it has given up by now
                return Response(status_code=504)
            async with httpx.AsyncClient(base_url=upstream, timeout=30) as client:
                upstream_response = await client.post("/generate", content=body)
            return Response(upstream_response.content, status_code=upstream_response.status_code,
                            media_type="application/json")

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="error"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self):
        self.thread.start()
        while not self.server.started:
            time.sleep(0.01)
        return self

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture
def injector(served_tiny):
    with FaultInjector(served_tiny.url) as injector:
        yield injector


@pytest.fixture(params=["memory", "redis"])
def queue(request):
    options = dict(backend=request.param, visibility_timeout_s=30, max_deliveries=2)
    if request.param == "redis":
        options.update(url=request.getfixturevalue("redis_server").url, namespace=uuid.uuid4().hex[:8])
    q = RolloutQueue.Config(**options).build()
    yield q
    q.close()


def run_worker(queue, injector, until, timeout_s=20.0, **client_overrides):
    registry = CollectorRegistry()
    client = SGLangClient.Config(**{"url": injector.url, "timeout_s": 3.0, "max_attempts": 4, "backoff_base_s": 0.01,
                                    "backoff_cap_s": 0.05, **client_overrides}).build()
    worker = RolloutWorker(
        RolloutWorker.Config(name="w", concurrency=1, sampling=SamplingParams(max_new_tokens=4), inline_verifier=False,
                             claim_block_s=0.1, server_down_pause_s=0.05, drain_timeout_s=1.0),
        queue, client, registry=registry,
    )
    stop = threading.Event()
    thread = threading.Thread(target=worker.run, args=(stop,))
    thread.start()
    deadline = time.monotonic() + timeout_s
    try:
        while not until(registry) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        stop.set()
        thread.join(10)
        client.close()
    assert not thread.is_alive()
    return registry


def metric(registry, name, **labels):
    return registry.get_sample_value(name, labels or None) or 0.0


def task(i=0):
    return Task(task_id=f"t{i}", prompt_id=f"p{i}", prompt_tokens_P=np.array([5, 6, 7]), group_size=3, label="x",
                verifier="exact_match")


def groups_written(registry):
    return metric(registry, "rl_rollout_groups_produced_total") >= 1


def test_transient_faults_are_retried_and_the_group_is_written_once(queue, injector):
    injector.faults = ["500", "malformed", "hang", "wrong-shape"]
    queue.submit([task()])
    worker = run_worker(queue, injector, groups_written, max_attempts=5)
    assert metric(worker, "rl_rollout_groups_produced_total") == 1
    assert metric(worker, "rl_rollout_request_retries_total") == 4
    assert metric(worker, "rl_rollout_tasks_released_total", reason="server_unavailable") == 0
    assert injector.calls == 5
    stats = queue.stats()
    # Unverified groups wait in the verify stage; the task itself is done.
    assert (stats.tasks_waiting, stats.tasks_in_flight, stats.verify_waiting) == (0, 0, 1)
    group = queue.claim(Stage.VERIFY, "v", block_s=0.1).item
    assert len(group.samples) == 3 and all(len(s.token_ids_T) == 4 for s in group.samples)


def test_server_down_hands_the_task_back_without_charging_it(queue, injector):
    injector.faults = ["500"] * 8  # two rounds of four attempts
    injector.healthy = False  # down: its health check fails too
    queue.submit([task()])
    worker = run_worker(queue, injector, groups_written)
    # Two hand-backs, then the server recovered and the same task finished: never dead-lettered
    # although max_deliveries is 2, since an outage is not the task's fault.
    assert metric(worker, "rl_rollout_tasks_released_total", reason="server_unavailable") == 2
    assert metric(worker, "rl_rollout_groups_produced_total") == 1
    assert queue.dead_letters(Stage.ROLLOUT) == []


def test_rejected_requests_charge_the_task_until_it_is_dead_lettered(queue, injector):
    injector.faults = ["400", "400"]
    queue.submit([task(1), task(2)])
    worker = run_worker(queue, injector, lambda r: metric(r, "rl_rollout_groups_produced_total") >= 1)
    assert metric(worker, "rl_rollout_tasks_released_total", reason="rejected") == 2
    [dead] = queue.dead_letters(Stage.ROLLOUT)
    assert dead.deliveries == 2 and "HTTP 400" in dead.reason
    # The worker kept going: the other task's group was written.
    assert queue.stats().verify_waiting == 1


def test_a_task_failing_every_attempt_on_a_healthy_server_is_charged_and_dead_lettered(queue, injector):
    """Fault C: the server answers HTTP 500 to one prompt, every attempt, and generates for
    everything else. Before: handed back uncharged forever (never dead-lettered, the run never
    reaches end of data). Now: charged per round, dead-lettered with the reason; nothing else lost."""
    poison = task(1)
    healthy = dataclasses.replace(task(2), prompt_tokens_P=np.array([9, 8, 7]))
    injector.poisoned = [int(t) for t in poison.prompt_tokens_P]
    queue.submit([poison, healthy])
    worker = run_worker(queue, injector, lambda r: metric(r, "rl_rollout_groups_produced_total") >= 1
                        and metric(r, "rl_rollout_tasks_released_total", reason="task_failed") >= 2)
    assert metric(worker, "rl_rollout_tasks_released_total", reason="task_failed") == 2
    assert metric(worker, "rl_rollout_tasks_released_total", reason="server_unavailable") == 0
    [dead] = queue.dead_letters(Stage.ROLLOUT)
    assert dead.deliveries == 2 and dead.payload and "HTTP 500" in dead.reason and "healthy server" in dead.reason
    stats = queue.stats()
    # Not lost, not duplicated: one group written, one task dead-lettered, nothing left running.
    assert (stats.tasks_waiting, stats.tasks_in_flight, stats.verify_waiting, stats.duplicates) == (0, 0, 1, 0)


def test_redis_out_of_memory_hands_the_task_back_uncharged(redis_server, injector):
    """Fault D at the worker: Redis refuses the group (maxmemory reached, noeviction). The task
    is handed back without charge (max_deliveries is 2: charged twice, it would be dead-lettered)
    and written once Redis has room."""
    import redis as redis_py

    admin = redis_py.Redis(port=redis_server.port)
    queue = RolloutQueue.Config(backend="redis", url=redis_server.url, namespace=uuid.uuid4().hex[:8],
                                visibility_timeout_s=30, max_deliveries=2).build()
    queue.submit([task()])
    admin.config_set("maxmemory", 1)
    try:
        worker = run_worker(queue, injector, lambda r: metric(r, "rl_rollout_tasks_released_total",
                                                               reason="buffer_full") >= 3)
    finally:
        admin.config_set("maxmemory", 0)
    assert metric(worker, "rl_rollout_tasks_released_total", reason="buffer_full") >= 3
    assert queue.dead_letters(Stage.ROLLOUT) == [] and queue.stats().verify_waiting == 0
    worker = run_worker(queue, injector, groups_written)
    assert metric(worker, "rl_rollout_groups_produced_total") == 1
    stats = queue.stats()
    assert (stats.tasks_waiting, stats.tasks_in_flight, stats.verify_waiting, stats.duplicates) == (0, 0, 1, 0)
    admin.close()
    queue.close()
