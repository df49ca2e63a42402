"""The distributed trainer publishes to the embedded engine (`serve --engine local`, real HTTP,
real gloo weight-update group), with experts gathered from both EP ranks.

After a publish the engine's logprobs of its own greedy continuation equal the trainer's
(same fp32 weights; the engine decodes incrementally with a KV cache, hence atol 1e-4) and the
version increments. A bucket the engine rejects fails the publish for it, and the engine is
held paused (it holds partly updated weights, serves nothing, is not reloaded from disk) until
the next good publish, which sends it every tensor and resumes it. The post-publish probe
(payload/sync/probe.py, teacher-forced: the trainer scores a fixed sequence before the publish,
the engine after it) passes a good sync and catches a silent corruption (experts flipped under
their own names: every bucket loads, the version is right), after which the rollback reloads
the last good export from disk (/update_weights_from_disk) and the engine serves it again.
"""

import httpx
import pytest
import torch
import torch.distributed as dist

from payload.model import compute_logprobs, load_pretrained, save_pretrained
from payload.sync.probe import PublishProbe
from payload.sync.publisher import PublishError, WeightPublisher
from payload.train.batch import micro_batches, shard_for_rank
from payload.sync.fanout import FanoutLayout, Piece
from payload.train.parallel import full_hf_tensors, init_world, own_hf_rows, parallelize
from spec.layout import TrainerLayout
from payload.train.step import LossConfig, train_step
from tests.payload.rollout.helpers import ServeProcess
from train_cases import batch, tiny_model

PROMPT = [5, 17, 99, 3]


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    path = tmp_path_factory.mktemp("served")
    save_pretrained(tiny_model(), path)
    process = ServeProcess(path, "--poll-s", "0.5").start()
    process.model_path = path
    yield process
    process.stop()


def served(url):
    body = {"input_ids": PROMPT, "sampling_params": {"temperature": 0, "max_new_tokens": 6}, "return_logprob": True}
    item = httpx.post(f"{url}/generate", json=body, timeout=60).json()
    logprobs = [entry[0] for entry in item["meta_info"]["output_token_logprobs"]]
    return item["output_ids"], logprobs, item["meta_info"]["weight_version"]


def paused(url):
    """(served version, whether /generate waits: the engine is paused)."""
    body = {"input_ids": PROMPT, "sampling_params": {"temperature": 0, "max_new_tokens": 1}}
    try:
        httpx.post(f"{url}/generate", json=body, timeout=2)
        waits = False
    except httpx.TimeoutException:
        waits = True
    return httpx.get(f"{url}/model_info").json()["weight_version"], waits


def _trainer_logprobs(model, world, output_ids):
    ids = [output_ids]
    dist.broadcast_object_list(ids, src=0)
    tokens = torch.tensor([PROMPT + ids[0]])
    with torch.no_grad():
        logprobs, _ = compute_logprobs(model, tokens)
    return logprobs[0, len(PROMPT) - 1:].tolist()


def _step(model, optimizer, world, step):
    samples = shard_for_rank(batch(step), world.rank, world.world_size)
    train_step(model, optimizer, micro_batches(samples, 2, 3), LossConfig(max_grad_norm=0.5), group=dist.group.WORLD)


def _publish_scenario(rank, world_size, url, base_path):
    world = init_world(TrainerLayout(1, 2, 2, 2))
    model = parallelize(tiny_model(), world, ep_backend="all_to_all")
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-2)
    publisher = None
    if world.is_main:
        publisher = WeightPublisher.Config(servers=[url], backend="gloo", dtype="float32",
                                           master_address="127.0.0.1", bucket_bytes=32 * 1024, timeout_s=60).build()
    report = {}
    try:
        _step(model, optimizer, world, 0)
        tensors = full_hf_tensors(model, world)
        if world.is_main:
            publisher.publish(tensors, version=1)
            report["v1"] = served(url)
        else:
            list(tensors)
        report["v1_trainer"] = _trainer_logprobs(model, world, report.get("v1", ([],))[0])

        _step(model, optimizer, world, 1)
        tensors = full_hf_tensors(model, world)
        if world.is_main:
            def corrupted():
                for i, (name, tensor) in enumerate(tensors):
                    # Halfway through, a tensor of the wrong shape: the engine fails that bucket.
                    yield (name, tensor[:-1]) if i == 20 else (name, tensor)

            with pytest.raises(PublishError, match="has shape"):
                publisher.publish(corrupted(), version=2)
            for _ in tensors:
                pass
            report["after_failure"] = (paused(url), publisher.held == {url})
        else:
            list(tensors)
        tensors = full_hf_tensors(model, world)
        if world.is_main:
            publisher.publish(tensors, version=2)
            report["v2"] = served(url)
        else:
            list(tensors)
        report["v2_trainer"] = _trainer_logprobs(model, world, report.get("v2", ([],))[0])
        probe = PublishProbe.Config().build(model.config.vocab_size)
        expected = probe.expected(model, world.device)  # every rank: a forward, as the trainer does
        if world.is_main:
            report["v2_check"] = [str(m) for m in probe.check(probe.ask(publisher.clients), expected)]

        # A silent corruption: layer 0's experts flipped under their own names. Every bucket
        # loads and the version is right; only the probe sees it, and the rollback reloads the
        # last good export from disk (here the base model the engine started from, version 0).
        expected = probe.expected(model, world.device)
        tensors = full_hf_tensors(model, world)
        if world.is_main:
            flipped = ((n, t.flip(0) if n.startswith("model.layers.0.mlp.experts.") else t) for n, t in tensors)
            publisher.publish(flipped, version=3)
            bad = probe.check(probe.ask(publisher.clients), expected)
            report["v3_check"] = [m.url for m in bad]
            report["restored"] = publisher.roll_back([m.url for m in bad], base_path, 0)
            report["after_check"] = (paused(url), publisher.held)
            report["after_probe"] = probe.ask(publisher.clients)[url]
            report["base_probe"] = probe.expected(load_pretrained(base_path, dtype=torch.float32).eval(), torch.device("cpu")).tolist()
        else:
            list(tensors)
    finally:
        if publisher is not None:
            publisher.close()
    return report


def test_publish_from_sharded_trainer_matches_engine_and_failed_bucket_holds_it(gloo_pool, engine):
    before = served(engine.url)
    report, other = gloo_pool.run(_publish_scenario, engine.url, str(engine.model_path))
    assert other["v1_trainer"] == report["v1_trainer"] and other["v2_trainer"] == report["v2_trainer"]

    ids1, logprobs1, version1 = report["v1"]
    assert version1 == "1"
    assert (ids1, logprobs1) != before[:2]  # the served policy changed
    torch.testing.assert_close(torch.tensor(logprobs1), torch.tensor(report["v1_trainer"]), rtol=0, atol=1e-4)

    # The failed publish of version 2 left the engine paused (partly updated weights: it must
    # not serve them), still reporting version 1, until the good publish of version 2.
    assert report["after_failure"] == (("1", True), True)

    ids2, logprobs2, version2 = report["v2"]
    assert version2 == "2"
    assert logprobs2 != logprobs1
    torch.testing.assert_close(torch.tensor(logprobs2), torch.tensor(report["v2_trainer"]), rtol=0, atol=1e-4)

    # The post-publish probe passes a good sync and catches the flipped experts; the rollback
    # reloads the last good export from disk: the engine serves it again (version 0, not
    # paused, held by nothing) and scores the probe as the base model does.
    assert report["v2_check"] == []
    assert report["v3_check"] == [engine.url] and report["restored"] == [engine.url]
    assert report["after_check"] == (("0", False), set())
    torch.testing.assert_close(torch.tensor(report["after_probe"]), torch.tensor(report["base_probe"]), rtol=0, atol=1e-4)


def _own_rows_and_full(rank, world_size):
    world = init_world(TrainerLayout(1, 2, 2, 2))
    model = parallelize(tiny_model(), world, ep_backend="all_to_all")
    pieces = [(name, shape, first, tensor.clone()) for name, shape, first, tensor in own_hf_rows(model, world)]
    full = dict(full_hf_tensors(model, world))
    return pieces, full, world.replica_ranks


def test_each_rank_s_own_rows_cover_the_gathered_model_once(gloo_pool):
    """What the fan-out stages (payload/sync/fanout.py): each rank's rows of every HF tensor,
    read without communication, put together over the replica are exactly what the gathering
    path (full_hf_tensors, rank 0) yields, every row once; the experts whole on their EP rank."""
    (pieces0, full, replicas), (pieces1, _, _) = gloo_pool.run(_own_rows_and_full)
    assert replicas == [[0, 1]]
    headers = [[Piece(n, s, first, t.shape[0]) for n, s, first, t in pieces] for pieces in (pieces0, pieces1)]
    FanoutLayout.of(headers, 0, 4, 1 << 20)  # raises unless every row of every tensor is held once
    rebuilt = {name: torch.empty(shape) for name, shape, _, _ in pieces0 + pieces1}
    for name, _, first, tensor in pieces0 + pieces1:
        rebuilt[name][first : first + tensor.shape[0]] = tensor
    assert rebuilt.keys() == full.keys()
    for name, tensor in full.items():
        torch.testing.assert_close(rebuilt[name], tensor, rtol=0, atol=0)
    experts = {n for n, *_ in pieces0 if ".experts." in n}
    assert experts and experts.isdisjoint(n for n, *_ in pieces1)
    own = sum(t.numel() for *_, t in pieces0)
    assert own < sum(t.numel() for t in full.values())  # its share, not the model
