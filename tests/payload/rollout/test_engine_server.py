"""The embedded engine behind `python -m payload serve --engine local`, over real HTTP on loopback."""

import threading
import time

import httpx
import numpy as np
import pytest
import torch

from payload.model import compute_logprobs, iter_hf_tensors, load_pretrained
from payload.rollout.client import RequestRejected, SamplingParams, SGLangClient
from payload.sync.client import RolloutServerClient

PROMPT = [3, 14, 15, 92, 65]


@pytest.fixture
def server(served_tiny):
    return served_tiny


@pytest.fixture(scope="module")
def references(tiny_models):
    return [load_pretrained(path, dtype=torch.float32).eval() for path in tiny_models]


@pytest.fixture
def client(server):
    c = SGLangClient.Config(url=server.url, max_attempts=2, return_routed_experts=True, routed_experts_shape=(2, 2)).build()
    yield c
    c.close()


def greedy(model, prompt, n):
    ids = list(prompt)
    with torch.no_grad():
        for _ in range(n):
            ids.append(int(model(torch.tensor([ids])).logits[0, -1].argmax()))
    return ids[len(prompt):]


def served_greedy(url, prompt=PROMPT, n=8):
    body = {"input_ids": prompt, "sampling_params": {"temperature": 0, "max_new_tokens": n}}
    item = httpx.post(f"{url}/generate", json=body, timeout=60).json()
    return item["output_ids"], item["meta_info"]["weight_version"]


def test_samples_carry_logprobs_and_routes_of_a_full_forward_pass(client, references):
    generations = client.generate(np.array(PROMPT), 4, SamplingParams(temperature=1.0, max_new_tokens=12))
    assert len(generations) == 4
    assert len({tuple(g.token_ids_T) for g in generations}) > 1  # sampled, not greedy
    for g in generations:
        assert g.finish_reason == "length" and len(g.token_ids_T) == 12 and g.weight_version == "0"
        ids = torch.tensor([PROMPT + g.token_ids_T.tolist()])
        with torch.no_grad():
            full, out = compute_logprobs(references[0], ids)
        np.testing.assert_allclose(g.logprobs_T, full[0, len(PROMPT) - 1:].numpy(), atol=1e-4)
        # Routed experts: every position but the last, prompt included (SGLang's layout).
        assert g.routed_experts_SLK.shape == (len(PROMPT) + 12 - 1, 2, 2)
        assert np.array_equal(g.routed_experts_SLK, out.routed_experts[0, :-1].numpy())


def test_temperature_scales_the_reported_logprobs(server, references):
    body = {"input_ids": [PROMPT], "sampling_params": {"temperature": 0.5, "max_new_tokens": 6}, "return_logprob": True}
    [item] = httpx.post(f"{server.url}/generate", json=body, timeout=60).json()
    ids = torch.tensor([PROMPT + item["output_ids"]])
    with torch.no_grad():
        full, _ = compute_logprobs(references[0], ids, temperature=0.5)
    got = [entry[0] for entry in item["meta_info"]["output_token_logprobs"]]
    np.testing.assert_allclose(got, full[0, len(PROMPT) - 1:].numpy(), atol=1e-4)


def test_batch_of_prompts_greedy_matches_the_model(server, references):
    prompts = [PROMPT, [7, 7], [200, 1, 2, 3, 4, 5, 6, 7, 8]]  # different lengths: left padding
    body = {"input_ids": prompts, "sampling_params": {"temperature": 0, "max_new_tokens": 6}, "return_logprob": True}
    items = httpx.post(f"{server.url}/generate", json=body, timeout=60).json()
    for prompt, item in zip(prompts, items):
        assert item["output_ids"] == greedy(references[0], prompt, 6)
        assert item["meta_info"]["finish_reason"] == {"type": "length", "length": 6}
        assert item["meta_info"]["completion_tokens"] == 6 and item["meta_info"]["prompt_tokens"] == len(prompt)
    # The byte tokenizer's text is what verifiers read.
    assert items[0]["text"] == bytes(t for t in items[0]["output_ids"] if t < 256).decode("utf-8", "replace")


def test_stop_token_ends_a_sample(server, references):
    first = greedy(references[0], PROMPT, 3)
    body = {"input_ids": PROMPT, "sampling_params": {"temperature": 0, "max_new_tokens": 10, "stop_token_ids": [first[2]]}}
    item = httpx.post(f"{server.url}/generate", json=body, timeout=60).json()
    stop_at = first.index(first[2]) + 1
    assert item["output_ids"] == first[:stop_at]
    assert item["meta_info"]["finish_reason"] == {"type": "stop", "matched": first[2]}


def test_bad_requests_are_rejected_with_a_reason(client, server):
    long_prompt = np.zeros(1020, dtype=np.int32)
    with pytest.raises(RequestRejected, match="exceed the model's context of 1024 tokens"):
        client.generate(long_prompt, 1, SamplingParams(max_new_tokens=16))
    r = httpx.post(f"{server.url}/generate", json={"input_ids": [1], "sampling_params": {"frequency_penalty": 1.0}})
    assert r.status_code == 400 and "sampling_params.frequency_penalty is not supported" in r.json()["error"]["message"]
    r = httpx.post(f"{server.url}/generate", json={"input_ids": [999]})
    assert r.status_code == 400 and "token ids must be in [0, 256)" in r.json()["error"]["message"]


def test_health_and_metrics_endpoints(server):
    assert httpx.get(f"{server.url}/health").status_code == 200
    assert httpx.get(f"{server.url}/health_generate", timeout=30).status_code == 200
    info = httpx.get(f"{server.url}/model_info").json()
    assert info["is_generation"] and info["weight_version"] == "0"
    health = httpx.get(f"http://127.0.0.1:{server.metrics_port}/healthz").json()
    assert health["status"] == "ok"
    assert "rl_seconds_since_progress" in httpx.get(f"http://127.0.0.1:{server.metrics_port}/metrics").text


def test_pause_in_place_holds_and_abort_ends_requests(server):
    admin = RolloutServerClient(server.url)
    try:
        admin.pause_generation("in_place")
        done = []
        t = threading.Thread(target=lambda: done.append(served_greedy(server.url, n=4)))
        t.start()
        time.sleep(0.5)
        assert not done  # no batch starts while paused
        admin.continue_generation()
        t.join(30)
        assert done and len(done[0][0]) == 4

        admin.pause_generation("retract")
        body = {"input_ids": PROMPT, "sampling_params": {"max_new_tokens": 4}}
        aborted = []
        t = threading.Thread(target=lambda: aborted.append(httpx.post(f"{server.url}/generate", json=body, timeout=30).json()))
        t.start()
        time.sleep(0.3)
        admin.pause_generation("abort")  # aborts what waits
        t.join(30)
        assert aborted[0]["meta_info"]["finish_reason"]["type"] == "abort"
    finally:
        admin.continue_generation()
        admin.close()


def test_update_weights_from_disk_changes_outputs_and_version(server, tiny_models, references):
    admin = RolloutServerClient(server.url)
    try:
        assert served_greedy(server.url) == (greedy(references[0], PROMPT, 8), "0")
        admin.update_weights_from_disk(model_path=str(tiny_models[1]), weight_version="7")
        assert admin.weight_version() == "7"
        assert served_greedy(server.url) == (greedy(references[1], PROMPT, 8), "7")
        with pytest.raises(Exception, match="does not exist"):
            admin.update_weights_from_disk(model_path="/nonexistent", weight_version="8")
        assert admin.weight_version() == "7"  # a failed update leaves the served weights alone
    finally:
        admin.update_weights_from_disk(model_path=str(tiny_models[0]), weight_version="0")
        admin.close()


def test_trainer_publisher_updates_weights_over_gloo(server, tiny_models, references):
    from payload.sync.publisher import WeightPublisher

    publisher = WeightPublisher.Config(servers=[server.url], backend="gloo", dtype="float32",
                                       master_address="127.0.0.1", bucket_bytes=64 * 1024, timeout_s=60).build()
    admin = RolloutServerClient(server.url)
    try:
        publisher.publish(iter_hf_tensors(references[1]), version=9)
        assert admin.weight_version() == "9"
        assert served_greedy(server.url) == (greedy(references[1], PROMPT, 8), "9")
    finally:
        publisher.close()
        admin.update_weights_from_disk(model_path=str(tiny_models[0]), weight_version="0")
        admin.close()
