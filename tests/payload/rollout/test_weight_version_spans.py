"""Staleness of generations that span a weight publish: the worker takes each generation's
OLDEST span (SGLang 0.5.23 reports meta_info.weight_versions, [{version, start, end}] in token
order, from sglang/srt/utils/weight_versions.py add_weight_versions_to_meta_info, and sets
meta_info.weight_version to the newest span). A real HTTP server on loopback answers /generate."""

from __future__ import annotations

import threading
import time

import numpy as np
import uvicorn
from fastapi import FastAPI
from prometheus_client import CollectorRegistry

from payload.queue.base import RolloutQueue
from payload.queue.experience import Task
from payload.rollout.client import SamplingParams, SGLangClient
from payload.rollout.worker import RolloutWorker
from payload.common.ports import free_port

# Per generation: its spans (version, start, end) over 4 output tokens.
SPANS = [[("7", 0, 4)], [("5", 0, 1), ("6", 1, 3), ("7", 3, 4)], [("6", 0, 2), ("7", 2, 4)]]


def item(spans):
    meta = {"finish_reason": {"type": "length"}, "output_token_logprobs": [[-0.5, 9, None]] * 4,
            "weight_version": spans[-1][0]}
    if len(spans) > 1:
        meta["weight_versions"] = [{"version": v, "start": s, "end": e} for v, s, e in spans]
    return {"text": "", "output_ids": [9] * 4, "meta_info": meta}


def serve(answer):
    """`answer` behind POST /generate on loopback: (url, stop)."""
    app = FastAPI()

    @app.post("/generate")
    async def generate():
        return answer()

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)

    def stop():
        server.should_exit = True
        thread.join(timeout=5)

    return f"http://127.0.0.1:{port}", stop


def test_a_server_without_integer_versions_leaves_the_group_at_the_tasks_version():
    """A bare SGLang says "default": the tokens have no version the trainer can compare, so the
    samples carry no spans and the group counts as the task's version, as before."""
    url, stop = serve(lambda: [item([("default", 0, 4)]), item([("default", 0, 4)])])
    try:
        client = SGLangClient.Config(url=url, timeout_s=5.0).build()
        worker = RolloutWorker(RolloutWorker.Config(name="w", inline_verifier=False),
                               RolloutQueue.Config(backend="memory").build(), client, registry=CollectorRegistry())
        task = Task(task_id="t", prompt_id="p", prompt_tokens_P=np.array([1, 2]), group_size=2, policy_version=3)
        group = worker.rollout(task)
        assert group.policy_version == 3 and [s.version_spans for s in group.samples] == [None, None]
        assert group.token_versions(group.samples[0]) == ((3, 0, 4),)
    finally:
        stop()


def test_a_group_is_as_stale_as_its_oldest_span():
    url, stop = serve(lambda: [item(spans) for spans in SPANS])
    try:
        client = SGLangClient.Config(url=url, timeout_s=5.0).build()
        queue = RolloutQueue.Config(backend="memory").build()
        worker = RolloutWorker(RolloutWorker.Config(name="w", sampling=SamplingParams(max_new_tokens=4),
                                                    inline_verifier=False), queue, client)
        generations = client.generate([1, 2], 3, SamplingParams(max_new_tokens=4))
        assert [g.weight_version for g in generations] == ["7", "5", "6"]  # each generation's oldest span
        task = Task(task_id="t", prompt_id="p", prompt_tokens_P=np.array([1, 2]), group_size=3, label="x",
                    policy_version=7)
        group = worker.rollout(task)
        assert group.policy_version == 5  # not 7, the newest span every server reports
        # And every token keeps its own version, for the trainer (rollout.stale_tokens).
        assert [s.version_spans for s in group.samples] == [tuple((int(v), a, b) for v, a, b in spans) for spans in SPANS]
        assert group.newest_version == 7
    finally:
        stop()
