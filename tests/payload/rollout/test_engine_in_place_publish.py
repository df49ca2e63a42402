"""rollout.pause_mode in_place end to end (issue 47 item 1): a generation running on the
embedded engine when the trainer's publisher pauses in place keeps its KV and its tokens,
finishes on the new weights (not retracted, not restarted), and its response says which
version sampled which tokens, SGLang 0.5.23's meta_info.weight_versions spans."""

import threading
import time

import httpx
import torch

from payload.model import iter_hf_tensors, load_pretrained
from payload.rollout.client import _oldest_weight_version
from payload.sync.client import RolloutServerClient
from payload.sync.publisher import WeightPublisher
from test_engine_server import PROMPT, greedy

# Long enough that the publish 0.3 s in pauses the request mid-way even on a loaded runner (200
# tokens once all decoded before the pause in CI); the tiny model's context is 1024 positions.
TOKENS = 1000


def test_a_generation_spanning_an_in_place_publish_continues_and_records_both_versions(served_tiny, tiny_models):
    old, new = (load_pretrained(p, dtype=torch.float32).eval() for p in tiny_models)
    publisher = WeightPublisher.Config(servers=[served_tiny.url], backend="gloo", dtype="float32", pause_mode="in_place",
                                       master_address="127.0.0.1", bucket_bytes=64 * 1024, timeout_s=60).build()
    admin = RolloutServerClient(served_tiny.url)
    body = {"input_ids": PROMPT, "return_logprob": True,
            "sampling_params": {"temperature": 0, "max_new_tokens": TOKENS, "ignore_eos": True}}
    out = []
    try:
        publisher.publish(iter_hf_tensors(old), version=1)  # forms the group: the timed publish only sends
        t = threading.Thread(target=lambda: out.append(httpx.post(f"{served_tiny.url}/generate", json=body, timeout=120).json()))
        t.start()
        time.sleep(0.3)  # the request is decoding
        publisher.publish(iter_hf_tensors(new), version=9)
        t.join(120)
        assert admin.weight_version() == "9"
    finally:
        publisher.close()
        admin.update_weights_from_disk(model_path=str(tiny_models[0]), weight_version="0")
        admin.close()
    meta = out[0]["meta_info"]
    spans = meta["weight_versions"]
    print(f"\nspans {spans}")
    # Both versions sampled it, in order, every token accounted for once: it ran across the publish.
    assert [s["version"] for s in spans] == ["1", "9"], spans
    switch = spans[0]["end"]
    assert spans == [{"version": "1", "start": 0, "end": switch}, {"version": "9", "start": switch, "end": TOKENS}]
    assert 0 < switch < TOKENS
    # Continued, not restarted: one run of TOKENS tokens whose first span is the old weights'
    # greedy continuation, and which finished by length, not by an abort.
    assert meta["finish_reason"]["type"] == "length" and len(out[0]["output_ids"]) == TOKENS
    assert out[0]["output_ids"][:switch] == greedy(old, PROMPT, switch)
    assert len(meta["output_token_logprobs"]) == TOKENS
    # meta_info.weight_version is the newest span's; the rollout client takes the oldest, so the
    # sample counts as version 1 against max_staleness.
    assert meta["weight_version"] == "9" and _oldest_weight_version(meta) == "1"
