"""Item 4 of issue 49: a prompt the server crashes on is charged on every failed delivery.

The server is a small SGLang-shaped app on a real uvicorn: /generate raises (an unhandled
exception: uvicorn answers 500 and drops the connection) for one prompt and answers the rest;
/health_generate passes. Before: the client's next attempt reused the dropped pooled
connection ("Server disconnected" / "Connection reset by peer"), the worker took that for an
outage and handed the prompt back uncharged, so it circled until the visibility and delivery
limits caught it (8 deliveries, not 3). Now: a 500 or a dropped connection on a server whose
health probe passes on a fresh connection charges the task; dead-lettered after max_deliveries.
"""

import threading
import time
import uuid

import pytest
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse
from prometheus_client import CollectorRegistry

from payload.queue.base import RolloutQueue, Stage
from payload.queue.experience import Task
from payload.rollout.client import SamplingParams, SGLangClient
from payload.rollout.worker import RolloutWorker
from payload.common.ports import free_port

POISON = [6, 6, 6]


def crashing_server(how: str) -> FastAPI:
    app = FastAPI()

    @app.get("/health_generate")
    async def health_generate():
        return {}

    @app.post("/generate")
    async def generate(request: Request):
        body = await request.json()
        if body["input_ids"][0] == POISON:
            if how == "500":
                raise RuntimeError("the model's kernel fails on this input")
            return StreamingResponse(_dies_mid_body(), media_type="application/json")
        return [{"text": "ok", "output_ids": [1, 2],
                 "meta_info": {"finish_reason": {"type": "stop"}, "weight_version": "0",
                               "output_token_logprobs": [[-0.5, 1, None], [-0.25, 2, None]]}}
                for _ in body["input_ids"]]

    return app


async def _dies_mid_body():
    """The status line is out when the handler fails: uvicorn can only drop the connection."""
    yield b"[{"
    raise RuntimeError("the model's kernel fails on this input, mid-response")


# "500": an unhandled exception before the response (uvicorn answers 500, closes the connection);
# "drop": one after it started (the connection reset mid-body, no status to go by).
@pytest.mark.parametrize("how", ["500", "drop"])
def test_a_prompt_the_server_crashes_on_is_dead_lettered_after_max_deliveries(redis_server, how):
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(crashing_server(how), host="127.0.0.1", port=port, log_level="critical"))
    serving = threading.Thread(target=server.run, daemon=True)
    serving.start()
    while not server.started:
        time.sleep(0.01)
    queue = RolloutQueue.Config(backend="redis", url=redis_server.url, namespace=uuid.uuid4().hex[:8],
                                visibility_timeout_s=30, max_deliveries=3).build()
    queue.submit([Task(task_id="poison", prompt_id="p0", prompt_tokens_P=POISON, group_size=2, label="x",
                       verifier="exact_match"),
                  Task(task_id="healthy", prompt_id="p1", prompt_tokens_P=[1, 2, 3], group_size=2, label="x",
                       verifier="exact_match")])
    registry = CollectorRegistry()
    client = SGLangClient.Config(url=f"http://127.0.0.1:{port}", timeout_s=5.0, max_attempts=3, backoff_base_s=0.01,
                                 backoff_cap_s=0.02).build()
    worker = RolloutWorker(RolloutWorker.Config(name="w", concurrency=1, sampling=SamplingParams(max_new_tokens=2),
                                                inline_verifier=False, claim_block_s=0.1, server_down_pause_s=0.05,
                                                drain_timeout_s=1.0), queue, client, registry=registry)
    stop = threading.Event()
    thread = threading.Thread(target=worker.run, args=(stop,))
    thread.start()
    deadline = time.monotonic() + 30
    try:
        # Both outcomes, not the first: with one slot the healthy prompt may be claimed only after
        # the poison's third delivery, so the dead letter alone can come before its group.
        while time.monotonic() < deadline and not (
                queue.dead_letters(Stage.ROLLOUT) and registry.get_sample_value("rl_rollout_groups_produced_total")):
            time.sleep(0.05)
    finally:
        stop.set()
        thread.join(10)
        client.close()
        server.should_exit = True
        serving.join(10)
    assert not thread.is_alive()

    def released(reason):
        return registry.get_sample_value("rl_rollout_tasks_released_total", {"reason": reason}) or 0.0

    [dead] = queue.dead_letters(Stage.ROLLOUT)
    assert b"poison" in dead.payload and dead.deliveries == 3, (dead.deliveries, dead.reason)
    assert "healthy server" in dead.reason, dead.reason
    assert (released("task_failed"), released("server_unavailable")) == (3, 0)
    # The healthy prompt was generated and written once; nothing is left running.
    assert registry.get_sample_value("rl_rollout_groups_produced_total") == 1
    stats = queue.stats()
    assert (stats.tasks_waiting, stats.tasks_in_flight, stats.verify_waiting, stats.duplicates) == (0, 0, 1, 0)
    queue.close()
