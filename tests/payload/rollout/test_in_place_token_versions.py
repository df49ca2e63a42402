"""Every token keeps the version that sampled it, end to end (issue 47 item 1): the embedded
engine serves SGLang's HTTP API on loopback, a rollout worker's group of two generations is
running when the trainer's publisher updates the weights (rollout.pause_mode in_place: they
go on in place; retract: they are resumed from their partial tokens), and the group the worker
builds carries two spans per sample whose boundary is exactly where the engine stopped the
batch; the queue keeps it or drops it by rollout.stale_tokens, and the trainer's batch masks
exactly the old span under mask.

Deterministic: /pause_generation returns once the running batch stopped at a step boundary
(as SGLang 0.5.23's scheduler takes the pause between batches), so the tokens each sequence
holds then are the ones the old version sampled, read before the publish."""

import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import httpx
import numpy as np
import pytest
import torch
from prometheus_client import CollectorRegistry

from payload.model import iter_hf_tensors, load_pretrained
from payload.queue.base import RolloutQueue, Stage
from payload.queue.experience import Task
from payload.rollout.client import SamplingParams, SGLangClient
from payload.rollout.worker import RolloutWorker
from payload.sync.client import RolloutServerClient
from payload.sync.publisher import WeightPublisher
from payload.train.batch import Sample, mask_stale_tokens
from test_engine_server import PROMPT, greedy
from payload.common.ports import free_port
from tests.payload.rollout.helpers import REPO, env

TOKENS = 400  # the tiny model's context is 1024 positions
OLD, NEW = 1, 9


@pytest.fixture
def engine_url(tiny_models):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    process = subprocess.Popen([sys.executable, str(Path(__file__).with_name("engine_with_probe.py")), str(tiny_models[0]),
                                str(port)], env=env(), cwd=REPO)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None and time.monotonic() < deadline, "the engine did not start"
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        yield url
    finally:
        process.kill()
        process.wait(10)


@pytest.mark.parametrize("pause_mode", ["in_place", "retract"])
def test_a_group_spanning_a_publish_keeps_each_tokens_version(engine_url, tiny_models, pause_mode):
    """in_place: the held requests go on decoding on the new weights with their old KV; retract:
    they go back to the queue with their tokens and are resumed from them (re-prefilled on the
    new weights). Either way each token keeps the version that sampled it."""
    url = engine_url
    old, new = (load_pretrained(p, dtype=torch.float32).eval() for p in tiny_models)
    publisher = WeightPublisher.Config(servers=[url], backend="gloo", dtype="float32", pause_mode=pause_mode,
                                       master_address="127.0.0.1", bucket_bytes=64 * 1024, timeout_s=60).build()
    admin = RolloutServerClient(url)
    client = SGLangClient.Config(url=url, timeout_s=120).build()
    queue = RolloutQueue.Config(backend="memory").build()
    worker = RolloutWorker(RolloutWorker.Config(name="w", sampling=SamplingParams(temperature=0, max_new_tokens=TOKENS),
                                                inline_verifier=False), queue, client, registry=CollectorRegistry())
    task = Task(task_id="t", prompt_id="p", prompt_tokens_P=np.array(PROMPT), group_size=2, policy_version=OLD)
    probe = httpx.Client(base_url=url, timeout=10)
    out = []
    try:
        publisher.publish(iter_hf_tensors(old), version=OLD)  # forms the group; the weights stay the old ones
        rollout = threading.Thread(target=lambda: out.append(worker.rollout(task)))
        rollout.start()
        deadline = time.monotonic() + 60
        while not ((lengths := probe.get("/debug/output_lengths").json()) and len(lengths) == 2 and min(lengths) >= 2):
            assert time.monotonic() < deadline, "the group never started decoding"
        admin.pause_generation(pause_mode)  # returns with the batch stopped between two steps
        held = probe.get("/debug/output_lengths").json()
        publisher.publish(iter_hf_tensors(new), version=NEW)  # pauses (stopped already), loads, continues
        rollout.join(120)
    finally:
        publisher.close()
        admin.close()
        client.close()
        probe.close()
    [group] = out
    switch = held[0]
    print(f"\nswitch at token {switch} of {TOKENS}")
    assert held == [switch, switch] and 2 <= switch < TOKENS
    # Each sample: the tokens sampled before the publish are the old version's, the rest the new's.
    for sample in group.samples:
        assert sample.version_spans == ((OLD, 0, switch), (NEW, switch, TOKENS))
        assert sample.finish_reason == "length" and len(sample.token_ids_T) == TOKENS
    tokens = group.samples[0].token_ids_T.tolist()
    assert tokens[:switch] == greedy(old, PROMPT, switch)  # continued, not restarted
    if pause_mode == "retract":
        # Resumed from its tokens, re-prefilled on the new weights: exactly the new model's greedy continuation.
        assert tokens[switch:switch + 16] == greedy(new, PROMPT + tokens[:switch], 16)
    else:
        # The new weights chose, over the old weights' KV: the old model would have gone on otherwise.
        assert tokens[switch:switch + 16] != greedy(old, PROMPT + tokens[:switch], 16)
    assert (group.policy_version, group.newest_version) == (OLD, NEW)

    # The queue at version NEW + 1 with max_staleness 1: the old span is too stale, the new fresh.
    for sample in group.samples:
        sample.reward = 1.0  # scored: straight to the trainer's buffer, past the verify stage
    for stale_tokens, kept in (("drop_group", False), ("mask", True)):
        # A task of its own per setting: the queue writes one group per task id.
        queue.submit([replace(task, task_id=stale_tokens)])
        queue.complete(queue.claim(Stage.ROLLOUT, "w", block_s=1), replace(group, task_id=stale_tokens))
        consumed = queue.consume("trainer", 4, 1.0, current_version=NEW + 1, max_staleness=1, stale_tokens=stale_tokens)
        assert (len(consumed.groups), len(consumed.stale)) == ((1, 0) if kept else (0, 1)), stale_tokens
        queue.ack([g.entry_id for g in consumed.groups])
    # And the trainer masks exactly the old version's tokens.
    s = group.samples[0]
    masked, counts = mask_stale_tokens(Sample(PROMPT, s.token_ids_T, s.logprobs_T, 1.0, version_spans=s.version_spans),
                                       NEW + 1, 1)
    assert masked.response_mask.tolist() == [False] * switch + [True] * (TOKENS - switch)
    assert (counts.policy, counts.older, counts.stale) == (TOKENS, TOKENS, switch)
