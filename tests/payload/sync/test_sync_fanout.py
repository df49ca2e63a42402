"""The fan-out publisher (payload/sync/fanout.py) on 4 gloo ranks standing for 2 training nodes of
2 GPUs, one replica, against 2 real HTTP servers with SGLang 0.5.23's receiving semantics
(sglang_protocol_server.py): each rank stages only its own rows; each server's group holds its
node's 2 GPUs (rank_offset 2) and gets bit-exact weights from them; the trainer's next collective
runs while a publish is out (ordered by events, not by time); a server lost mid-bucket costs
only itself and rejoins the next publish; a rank whose publish thread fails mid-publish leaves
the others a bounded wait and a reported error, never a hang."""

import threading
import time

import httpx
import pytest
import torch
import torch.distributed as dist
from safetensors.torch import save_file

from payload.sync.fanout import FanOutBroken, FanOutPublisher, FanoutLayout, Piece, assign
from payload.sync.publisher import WeightPublisher
from sglang_protocol_server import fetch_weights
from test_sync_publisher import Server, weights
from tests.payload.train.train_dist_pool import GlooPool

WORLD, LOCAL = 4, 2
# Experts are whole on one rank (EP); the other tensors split by rows over the replica (FSDP).
EXPERT_HOLDER = {"model.layers.0.mlp.experts.0.gate_proj.weight": 3, "model.layers.0.mlp.experts.1.gate_proj.weight": 1}


def own_rows(version, rank):
    """This rank's pieces of weights(version), as payload/train/parallel.py own_hf_rows gives them."""
    for name, tensor in weights(version).items():
        if name in EXPERT_HOLDER:
            if EXPERT_HOLDER[name] == rank:
                yield name, tuple(tensor.shape), 0, tensor
            continue
        parts = torch.tensor_split(tensor, WORLD)
        yield name, tuple(tensor.shape), sum(p.shape[0] for p in parts[:rank]), parts[rank]


@pytest.fixture(scope="module")
def pool():
    pool = GlooPool(world_size=WORLD)
    yield pool
    pool.close()


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """Shared by the tests below, in file order (versions 1-2, 3, 4-5 with one lost, 6-7)."""
    initial = tmp_path_factory.mktemp("fanout") / "initial.safetensors"
    save_file(weights(0), initial)
    started = [Server(initial) for _ in range(2)]
    yield started
    for s in started:
        s.stop()


def _fanout(urls, rank, world_size, timeout_s=None):
    config = WeightPublisher.Config(servers=urls, backend="gloo", dtype="float32", master_address="127.0.0.1",
                                    bucket_bytes=600, timeout_s=60, bucket_timeout_s=3.0,
                                    control_s=3.0)  # not 0.75 s: gloo groups form slowly on a loaded runner
    return FanOutPublisher.Config(config, local_ranks=LOCAL, timeout_s=timeout_s).build(rank, world_size,
                                                                                         torch.device("cpu"))


def test_layout_places_every_rank_rows_and_refuses_a_group_that_is_not_one_replica():
    headers = [[Piece("a", (4, 2), 0, 1), Piece("b", (2,), 0, 2)], [Piece("a", (4, 2), 1, 3)]]
    layout = FanoutLayout.of(headers, rank=1, itemsize=4, bucket_bytes=32)
    assert layout.names == [["a"], ["b"]] and layout.nbytes == [32, 8]  # b follows a in rank 0's list
    assert layout.places == [[[(0, 8)], [(8, 24)]], [[(0, 8)], []]]
    assert layout.mine == [[0], []] and layout.share(0, 1) == 24
    # Pieces of one rank that lie back to back in a bucket (an EP rank's experts) are one run.
    merged = FanoutLayout.of([[Piece("e0", (2,), 0, 2), Piece("e1", (2,), 0, 2)]], 0, 4, 32)
    assert merged.places == [[[(0, 16)]]] and merged.mine == [[0, 1]]
    with pytest.raises(ValueError, match="holds 2 rows of a"):
        FanoutLayout.of([[Piece("a", (4, 2), 0, 1)], [Piece("a", (4, 2), 1, 1)]], 0, 4, 32)
    assert assign([f"s{i}" for i in range(64)], 16)[15] == ["s60", "s61", "s62", "s63"]


def _publish_twice(rank, world_size, urls):
    fanout = _fanout(urls, rank, world_size)
    events = []
    fanout.on_event = lambda *event: events.append(event)
    try:
        outcomes = []
        for version in (1, 2):
            fanout.stage(own_rows(version, rank))
            fanout.start(version)
            outcomes.append(fanout.wait())
        own = sum(t.numel() * 4 for *_, t in own_rows(2, rank))
        return dict(servers=fanout.servers, joined=sorted(fanout._links), staged=fanout.staged_bytes, own=own,
                    outcomes=[vars(o) if o else None for o in outcomes], events=events)
    finally:
        fanout.close()


def test_each_server_gets_bit_exact_weights_through_its_node_s_every_gpu(pool, servers):
    urls = [s.url for s in servers]
    reports = pool.run(_publish_twice, urls)
    total = sum(t.numel() * 4 for t in weights(0).values())
    # Node 0 (ranks 0, 1) feeds server 0, node 1 (ranks 2, 3) server 1; the non-root GPU of each
    # node joined its server's group too.
    assert [r["servers"] for r in reports] == [[urls[0]], [urls[0]], [urls[1]], [urls[1]]]
    assert [r["joined"] for r in reports] == [[], [urls[0]], [], [urls[1]]]
    # Each rank staged its own rows and nothing else (bytes counted): the four add up to the model once.
    assert [r["staged"] for r in reports] == [r["own"] for r in reports]
    assert sum(r["staged"] for r in reports) == total and max(r["staged"] for r in reports) < total / 2
    assert [o["done"] for o in reports[0]["outcomes"]] == [urls, urls]
    assert all(r["outcomes"] == [None, None] for r in reports[1:])
    for server in servers:
        received = fetch_weights(server.url)
        for name, tensor in weights(2).items():
            torch.testing.assert_close(received[name], tensor, rtol=0, atol=0)
        assert server.version() == "2"
        requests = httpx.get(f"{server.url}/debug/requests").json()
        (init,) = [r["body"] for r in requests if r["route"] == "/init_weights_update_group"]
        assert (init["rank_offset"], init["world_size"]) == (LOCAL, LOCAL + 1)
        updates = [r["body"] for r in requests if r["route"] == "/update_weights_from_distributed"]
        # Every tensor exactly once per publish, in 3 buckets; only the last names the version.
        for publish in (updates[:3], updates[3:]):
            assert sorted(name for body in publish for name in body["names"]) == sorted(weights(1))
        assert ["weight_version" in u for u in updates] == [False, False, True] * 2
    # Every rank gathered buckets 0, 1, 2 once each (one round: a server a node) and in order.
    for report in reports:
        assert report["events"] == [e for v in (1, 2) for e in [*(("gathered", v, 0, k) for k in range(3)), ("published", v)]]


def _step_while_publishing(rank, world_size, urls):
    """The publish thread may not gather its first bucket until this rank's next training step
    (a collective on the default group) has run: if the trainer waited for the publish, this
    would deadlock instead of completing."""
    fanout = _fanout(urls, rank, world_size)
    stepped = threading.Event()
    log = []

    def on_event(*event):
        if event[0] == "gathered" and event[3] == 0:
            stepped.wait()
        log.append(event[0])

    fanout.on_event = on_event
    try:
        fanout.stage(own_rows(3, rank))
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
    results = pool.run(_step_while_publishing, urls)
    for log, grads, _ in results:
        assert grads == [10.0] * 4
        assert log[:2] == ["staged", "stepped"] and log[-2:] == ["published", "joined"]
    assert results[0][2] == urls
    assert all(s.version() == "3" for s in servers)


def _publish_with_a_lost_server(rank, world_size, urls, lost):
    fanout = _fanout(urls, rank, world_size)
    try:
        done = []
        for version in (4, 5):
            if version == 5 and rank == 0:
                httpx.post(f"{lost}/debug/fault", json={"bucket": 2, "how": "hang"}).raise_for_status()
            dist.barrier()
            fanout.stage(own_rows(version, rank))
            fanout.start(version)
            outcome = fanout.wait()
            done.append(outcome and outcome.done)
        held = sorted(fanout.publishers[0].held) if fanout.publishers else []
        return done, held, sorted(fanout._links)
    finally:
        fanout.close()


def test_a_server_lost_mid_bucket_costs_only_itself_and_its_node_drops_the_group(pool, servers):
    """Server 1 (node 1) wedges in its second bucket of version 5: server 0 still gets it; node
    1's leader holds server 1 after one bucket deadline and its other GPU drops its side too."""
    urls = [s.url for s in servers]
    results = pool.run(_publish_with_a_lost_server, urls, urls[1])
    assert results[0][0] == [urls, urls[:1]]
    assert results[2][1] == [urls[1]] and results[3][2] == []  # held by its leader, dropped by the follower
    assert results[1][2] == [urls[0]]
    received = fetch_weights(urls[0])
    for name, tensor in weights(5).items():
        torch.testing.assert_close(received[name], tensor, rtol=0, atol=0)
    assert servers[0].version() == "5"


def _a_rank_fails_mid_publish(rank, world_size, urls):
    """Rank 2's publish thread raises as it assembles its first bucket: every other rank waits
    in that gather at most the fan-out's timeout, reports the failure, and refuses to stage."""
    fanout = _fanout(urls[:1], rank, world_size, timeout_s=5.0)

    def on_event(*event):
        if rank == 2 and event[0] == "gathered" and event[3] == 0:
            raise RuntimeError("injected: publish thread lost")

    fanout.on_event = on_event
    try:
        fanout.stage(own_rows(6, rank))
        started = time.monotonic()
        fanout.start(6)
        outcome = fanout.wait()
        waited = time.monotonic() - started
        try:
            fanout.stage(own_rows(7, rank))
            refused = ""
        except FanOutBroken as exc:
            refused = str(exc)
        return (outcome and vars(outcome)), waited, refused
    finally:
        fanout.close()


def test_a_publish_thread_that_fails_mid_publish_bounds_every_other_rank_s_wait(pool, servers):
    urls = [s.url for s in servers]
    results = pool.run(_a_rank_fails_mid_publish, urls)
    for outcome, waited, refused in results:
        assert "failed" in refused
        assert waited < 60  # the pool's own limit is 120 s: a hang would fail the run instead
    outcome = results[0][0]
    assert outcome["done"] == [] and outcome["error"]  # reported on rank 0, not lost in a thread
    assert "gather of bucket 0 failed: injected" in results[2][2]
