"""The fan-out publisher (payload/sync/fanout.py) on 2 gloo ranks standing for 2 training nodes,
against 3 real HTTP servers with SGLang 0.5.23's receiving semantics (sglang_protocol_server.py):
each source feeds only its own servers' groups, every bucket is relayed once and in order, the
trainer's next collective runs while a publish is out (ordered by events, not by time), and a
server lost mid-bucket costs only itself."""

import threading

import httpx
import pytest
import torch
import torch.distributed as dist
from safetensors.torch import save_file

from payload.sync.fanout import FanOutPublisher, assign, source_ranks
from payload.sync.publisher import WeightPublisher
from sglang_protocol_server import fetch_weights
from test_sync_publisher import Server, weights
from tests.payload.train.train_dist_pool import GlooPool


@pytest.fixture(scope="module")
def pool():
    pool = GlooPool(world_size=2)
    yield pool
    pool.close()


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """Shared by the tests below, in file order (versions 1-2, 3, then 4-5 with one lost)."""
    initial = tmp_path_factory.mktemp("fanout") / "initial.safetensors"
    save_file(weights(0), initial)
    started = [Server(initial) for _ in range(3)]
    yield started
    for s in started:
        s.stop()


def _fanout(urls, rank, world_size):
    config = WeightPublisher.Config(servers=urls, backend="gloo", dtype="float32", master_address="127.0.0.1",
                                    bucket_bytes=600, timeout_s=60, bucket_timeout_s=3.0)
    return FanOutPublisher.Config(config, ranks_per_node=1).build(rank, world_size, torch.device("cpu"))


def _publish_twice(rank, world_size, urls):
    fanout = _fanout(urls, rank, world_size)
    events = []
    fanout.on_event = lambda *event: events.append(event)
    try:
        outcomes = []
        for version in (1, 2):
            fanout.stage(iter(weights(version).items()) if rank == 0 else iter(()))
            fanout.start(version)
            outcomes.append(fanout.wait())
        linked = sorted(fanout.publisher._links) if fanout.publisher else []
        return dict(servers=fanout.servers, linked=linked, outcomes=[vars(o) if o else None for o in outcomes],
                    events=events)
    finally:
        fanout.close()


def test_source_plan():
    assert source_ranks(32, 8) == [0, 8, 16, 24]
    assert source_ranks(32, 8, pp_size=2) == [0, 16]
    assert assign(["a", "b", "c"], 2) == [["a"], ["b", "c"]]
    config = WeightPublisher.Config(servers=["http://one:1"], backend="gloo")
    single = FanOutPublisher.Config(config, ranks_per_node=1).build(0, 1, torch.device("cpu"))
    assert single.sources == [0] and single.servers == ["http://one:1"]
    single.close()
    assert assign([f"s{i}" for i in range(32)], 16)[15] == ["s30", "s31"]


def test_each_server_gets_bit_exact_weights_from_its_own_source_once_per_bucket_in_order(pool, servers):
    urls = [s.url for s in servers]
    first, second = pool.run(_publish_twice, urls)
    # Rank 0 (node 0) feeds server 0; rank 1 (node 1) feeds servers 1 and 2: its own groups only.
    assert first["servers"] == first["linked"] == [urls[0]]
    assert sorted(second["servers"]) == second["linked"] == sorted(urls[1:])
    assert [o["done"] for o in first["outcomes"]] == [urls, urls] and second["outcomes"] == [None, None]
    for server in servers:
        received = fetch_weights(server.url)
        for name, tensor in weights(2).items():
            torch.testing.assert_close(received[name], tensor, rtol=0, atol=0)
        assert server.version() == "2"
        requests = httpx.get(f"{server.url}/debug/requests").json()
        updates = [r["body"] for r in requests if r["route"] == "/update_weights_from_distributed"]
        # Every tensor exactly once per publish, in order, in 3 buckets; only the last names the version.
        sent = [name for body in updates for name in body["names"]]
        assert sent == list(weights(1)) * 2
        assert ["weight_version" in u for u in updates] == [False, False, True] * 2
    # Every source relayed buckets 0, 1, 2 once each and in order, then finished.
    for report in (first, second):
        assert report["events"] == [e for v in (1, 2) for e in [*(("relayed", v, i) for i in range(3)), ("published", v)]]


def _step_while_publishing(rank, world_size, urls):
    """The publish thread may not relay its first bucket until this rank's next training step
    (a collective on the default group) has run: if the trainer waited for the publish, this
    would deadlock instead of completing."""
    fanout = _fanout(urls, rank, world_size)
    stepped = threading.Event()
    log = []

    def on_event(*event):
        if event[0] == "relayed" and event[2] == 0:
            stepped.wait()
        log.append(event[0])

    fanout.on_event = on_event
    try:
        fanout.stage(iter(weights(3).items()) if rank == 0 else iter(()))
        log.append("staged")
        fanout.start(3)
        grads = torch.ones(4) * (rank + 1)
        dist.all_reduce(grads)  # the next step's collective, on the trainer's own group
        log.append("stepped")
        stepped.set()
        outcome = fanout.wait()
        log.append("joined")
        return log, grads.tolist(), outcome and outcome.done
    finally:
        fanout.close()


def test_the_next_step_runs_while_the_publish_is_out(pool, servers):
    urls = [s.url for s in servers]
    (log0, grads0, done), (log1, grads1, _) = pool.run(_step_while_publishing, urls)
    assert grads0 == grads1 == [3.0] * 4
    for log in (log0, log1):
        assert log[:2] == ["staged", "stepped"] and log[-2:] == ["published", "joined"]
    assert done == urls
    assert all(s.version() == "3" for s in servers)


def _publish_with_a_lost_server(rank, world_size, urls, lost):
    fanout = _fanout(urls, rank, world_size)
    try:
        done = []
        for version in (4, 5):
            if version == 5 and rank == 1:
                httpx.post(f"{lost}/debug/fault", json={"bucket": 2, "how": "exit"}).raise_for_status()
            dist.barrier()
            fanout.stage(iter(weights(version).items()) if rank == 0 else iter(()))
            fanout.start(version)
            outcome = fanout.wait()
            done.append(outcome and outcome.done)
        held = sorted(fanout.publisher.held) if fanout.publisher else []
        return done, held
    finally:
        fanout.close()


def test_a_server_lost_mid_bucket_costs_only_itself(pool, servers):
    """Server 2 (fed by rank 1, beside server 1) dies in its second bucket: server 1 and rank
    0's server 0 still get the version; the relay to rank 1 carries on for server 1."""
    urls = [s.url for s in servers]
    (done, _), (_, held) = pool.run(_publish_with_a_lost_server, urls, urls[2])
    assert done == [urls, urls[:2]]
    assert held == [urls[2]]
    for server in servers[:2]:
        received = fetch_weights(server.url)
        for name, tensor in weights(5).items():
            torch.testing.assert_close(received[name], tensor, rtol=0, atol=0)
        assert server.version() == "5"
