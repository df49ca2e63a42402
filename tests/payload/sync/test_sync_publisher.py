"""WeightPublisher against real HTTP servers on loopback that receive over real gloo groups
with SGLang 0.5.23's semantics (sglang_protocol_server.py): a group per server, begin/end
sessions, flattened buckets (one broadcast each), versions, pause/continue; a member that dies or
hangs mid-bucket costs the others at most bucket_timeout_s; a failed or returning server is
brought up to date by the next publish, never from disk."""

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import torch
from safetensors.torch import save_file

from payload.sync.bucket import pack
from payload.sync.publisher import PublishError, WeightPublisher, buckets
from sglang_protocol_server import fetch_weights

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]


def free_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def weights(seed):
    g = torch.Generator().manual_seed(seed)
    return {
        "model.embed_tokens.weight": torch.randn(16, 8, generator=g),
        "model.layers.0.self_attn.q_proj.weight": torch.randn(8, 8, generator=g),
        "model.layers.0.mlp.experts.0.gate_proj.weight": torch.randn(4, 8, generator=g),
        "model.layers.0.mlp.experts.1.gate_proj.weight": torch.randn(4, 8, generator=g),
        "lm_head.weight": torch.randn(16, 8, generator=g),
    }


class Server:
    def __init__(self, initial: Path, port: int | None = None):
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, PYTHONPATH=str(REPO))
        self.proc = subprocess.Popen([sys.executable, str(HERE / "sglang_protocol_server.py"), str(self.port), str(initial)],
                                     env=env)
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{self.url}/health", timeout=1).raise_for_status()
                return
            except httpx.HTTPError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError("protocol server did not start")
                time.sleep(0.2)

    def events(self):
        return httpx.get(f"{self.url}/debug/events").json()

    def version(self):
        return httpx.get(f"{self.url}/model_info").json()["weight_version"]

    def stop(self):
        self.proc.kill()
        self.proc.wait()


@pytest.fixture
def initial(tmp_path):
    path = tmp_path / "initial.safetensors"
    save_file(weights(0), path)
    return path


def make_publisher(servers, **overrides):
    # bucket_timeout_s 3 s keeps the failure tests short; the control phases get 10 s, not its
    # 0.75 s: forming gloo groups with test servers on a loaded 2-core runner can take longer.
    config = WeightPublisher.Config(servers=[s.url for s in servers], backend="gloo", master_address="127.0.0.1",
                                    timeout_s=60, **{"dtype": "float32", "bucket_bytes": 600, "bucket_timeout_s": 3.0,
                                                     "control_s": 10.0, **overrides})
    return config.build()


def test_buckets_keep_order_and_size():
    tensors = [(f"t{i}", torch.zeros(n)) for i, n in enumerate([10, 100, 60, 5, 200])]
    got = [[name for name, _ in b] for b in buckets(tensors, bucket_bytes=4 * 110)]
    assert got == [["t0", "t1"], ["t2", "t3"], ["t4"]]


def test_publish_reaches_every_server_in_buckets_with_one_version(initial):
    servers = [Server(initial), Server(initial)]
    publisher = make_publisher(servers)
    try:
        new = weights(1)
        publisher.publish(new.items(), version=1)
        for server in servers:
            received = fetch_weights(server.url)
            for name, tensor in new.items():
                torch.testing.assert_close(received[name], tensor, rtol=0, atol=0)
            assert server.version() == "1"
            # Every response after the publish reports it too (the publisher paused first).
            [answer] = httpx.post(f"{server.url}/generate", json={"input_ids": [[1, 2]]}).json()
            assert answer["meta_info"]["weight_version"] == "1"
            events = server.events()
            # 5 tensors of 512/128/128/128/512 bytes in 600-byte buckets: [512] [128·3] [512].
            assert events == ["init", "pause:retract", "begin", "bucket", "bucket", "bucket", "end", "continue"]
        publisher.publish(weights(2).items(), version=2)
        assert all(s.version() == "2" for s in servers)
        # The group is kept between publishes: no second init.
        assert servers[0].events().count("init") == 1
    finally:
        publisher.close()
        for s in servers:
            s.stop()


def assert_serves(server, expected, version):
    received = fetch_weights(server.url)
    for name, tensor in expected.items():
        torch.testing.assert_close(received[name], tensor, rtol=0, atol=0)
    assert server.version() == version


def test_failed_bucket_holds_the_server_paused_until_the_next_publish(initial):
    """SGLang has no transaction: a bucket that fails leaves partly updated weights. The server
    is not resumed (it would serve them) nor reloaded from disk; the next publish re-sends it
    every tensor and resumes it."""
    server = Server(initial)
    publisher = make_publisher([server])
    try:
        bad = list(weights(1).items())
        bad.insert(3, ("model.layers.0.mlp.experts.9.gate_proj.weight", torch.ones(4, 8)))  # not in the model
        with pytest.raises(PublishError, match="unknown parameter model.layers.0.mlp.experts.9"):
            publisher.publish(bad, version=1)
        assert publisher.held == {server.url}
        assert server.events()[-2:] == ["bucket-failed", "end"]  # session closed, still paused
        publisher.publish(weights(2).items(), version=2)
        assert_serves(server, weights(2), "2")
        assert publisher.held == set() and server.events()[-1] == "continue" and "disk" not in server.events()

        def gather_fails():  # the trainer's gather raising halfway: same hold, same recovery
            for i, item in enumerate(weights(3).items()):
                if i == 3:
                    raise RuntimeError("gather failed")
                yield item

        with pytest.raises(PublishError, match="RuntimeError: gather failed"):
            publisher.publish(gather_fails(), version=3)
        assert publisher.held == {server.url} and server.events()[-1] == "end" and server.version() == "2"
        publisher.publish(weights(4).items(), version=4)
        assert_serves(server, weights(4), "4")
        assert server.events()[-1] == "continue"
    finally:
        publisher.close()
        server.stop()


@pytest.mark.parametrize("how", ["exit", "hang"])
def test_member_lost_mid_bucket_costs_the_others_one_bucket_timeout(initial, how):
    """Three servers; one dies (or wedges) inside its second bucket. The others get the whole
    version within the bucket timeout plus the publish itself; the next publish reaches every
    live server (the dead one restarted at the same address with its launch weights), in full
    and without any disk load."""
    servers = [Server(initial) for _ in range(3)]
    publisher = make_publisher(servers)
    lost = servers[1]
    try:
        publisher.publish(weights(1).items(), version=1)  # groups formed
        httpx.post(f"{lost.url}/debug/fault", json={"bucket": 2, "how": how}).raise_for_status()
        started = time.monotonic()
        done = publisher.publish(weights(2).items(), version=2)
        took = time.monotonic() - started
        assert done == [servers[0].url, servers[2].url]
        assert took < publisher.config.bucket_timeout_s + 5  # not the 30-minute default group timeout
        for server in (servers[0], servers[2]):
            assert_serves(server, weights(2), "2")
        assert publisher.held == {lost.url}
        if how == "hang":  # still answering HTTP, blocked in the broadcast: left out, no second wait
            started = time.monotonic()
            assert publisher.publish(weights(3).items(), version=3) == [servers[0].url, servers[2].url]
            assert time.monotonic() - started < publisher.config.bucket_timeout_s
        lost.stop()
        servers[1] = Server(initial, port=lost.port)
        assert servers[1].version() == "default"
        assert publisher.publish(weights(4).items(), version=4) == [s.url for s in servers]
        for server in servers:
            assert_serves(server, weights(4), "4")
            assert "disk" not in server.events()
        assert servers[1].events().count("init") == 1 and publisher.held == set()
    finally:
        publisher.close()
        for s in servers:
            s.stop()


def test_pack_is_sglangs_flattened_bucket_layout():
    """Byte offsets as FlattenedTensorBucket.empty computes them; cast to the wire dtype."""
    stacked = torch.randn(2, 4, 3)  # an [E, 2F, D] expert stack split into HF tensors: packed in one copy
    experts = [(f"e{e}.{kind}", half) for e in range(2) for kind, half in zip(("gate", "up"), stacked[e].split(2))]
    tensors = [("a", torch.randn(3, 5)), ("b", torch.randn(7)), ("c", torch.randn(2, 2, 2)), *experts]
    packed = pack(tensors, torch.bfloat16)
    assert packed.flat.dtype == torch.uint8 and packed.nbytes == 2 * (15 + 7 + 8 + 24)
    assert packed.dtypes == ["bfloat16"] * 7 and packed.shapes == [[3, 5], [7], [2, 2, 2]] + [[2, 3]] * 4
    offset = 0
    for (name, original), (got_name, view) in zip(tensors, packed.tensors()):
        expected = packed.flat[offset : offset + original.numel() * 2].view(torch.bfloat16).view(original.shape)
        assert got_name == name and torch.equal(view, expected) and torch.equal(view, original.to(torch.bfloat16))
        offset += original.numel() * 2


def test_server_that_missed_versions_rejoins_the_next_publish_without_a_disk_load(initial):
    """One of two servers is down during a publish: the other gets the version without waiting
    on it beyond the probe. Back at the same address with its launch weights, two versions
    behind, it takes part in the next publish and serves exactly that version."""
    up = Server(initial)
    down = Server(initial)
    publisher = make_publisher([up, down])
    returned = None
    try:
        publisher.publish(weights(1).items(), version=1)
        down.stop()
        started = time.monotonic()
        assert publisher.publish(weights(2).items(), version=2) == [up.url]
        assert time.monotonic() - started < publisher.config.probe_timeout_s + 5
        assert_serves(up, weights(2), "2")
        returned = Server(initial, port=down.port)
        assert returned.version() == "default"
        assert publisher.publish(weights(3).items(), version=3) == [up.url, returned.url]
        for server in (up, returned):
            assert_serves(server, weights(3), "3")
        assert "disk" not in returned.events()
        assert returned.events() == ["init", "pause:retract", "begin", "bucket", "bucket", "bucket", "end", "continue"]
    finally:
        publisher.close()
        up.stop()
        (returned or down).stop()


def test_a_new_groups_first_bucket_may_take_first_bucket_s_a_later_one_only_grace_s(initial):
    """Neither side creates a weight-update group's NCCL communicator when it forms (SGLang
    0.5.23 passes no device_id): the first broadcast does, which takes seconds across nodes.
    A server that joins its first bucket later than grace_s, within first_bucket_s, still takes
    the version; the same delay in a later publish drops it (estimate/costs.py DeadServerBound)."""
    servers = [Server(initial), Server(initial)]
    slow = servers[1]
    publisher = make_publisher(servers, bucket_timeout_s=8.0)  # grace 2 s, first bucket 4 s
    assert (publisher.grace_s, publisher.first_bucket_s) == (2.0, 4.0)
    try:
        httpx.post(f"{slow.url}/debug/fault", json={"bucket": 1, "how": "slow", "seconds": 3}).raise_for_status()
        assert publisher.publish(weights(1).items(), version=1) == [s.url for s in servers]
        assert_serves(slow, weights(1), "1")
        httpx.post(f"{slow.url}/debug/fault", json={"bucket": 1, "how": "slow", "seconds": 3}).raise_for_status()
        assert publisher.publish(weights(2).items(), version=2) == [servers[0].url]
        assert "within 2 s" in publisher.left_out[slow.url] and publisher.held == {slow.url}
    finally:
        publisher.close()
        for s in servers:
            s.stop()


def test_roll_back_reloads_the_last_good_export_and_resumes(initial):
    """A server the probe found wrong is paused, reloads the last good export from disk as its
    version, and serves again (issue 45 item 4)."""
    server = Server(initial)
    publisher = make_publisher([server])
    try:
        publisher.publish(weights(1).items(), version=1)
        export = initial.parent / "step-00000000"  # an HF export directory, as the trainer writes
        export.mkdir()
        save_file(weights(0), export / "model.safetensors")
        assert publisher.roll_back([server.url], str(export), 0) == [server.url]
        assert server.events()[-3:] == ["pause:retract", "disk", "continue"] and publisher.held == set()
        assert_serves(server, weights(0), "0")
    finally:
        publisher.close()
        server.stop()


@pytest.mark.parametrize("mode, flushes", [("retract", [False, False, True]), ("in_place", [False, False, False])])
def test_a_request_running_across_a_publish_keeps_going_in_either_pause_mode(initial, mode, flushes):
    """0.5.23 refuses a cache flush while a request runs, and an in_place pause leaves it
    running: the publisher sends flush_cache only when it retracts, and in both modes the
    request in flight finishes after the publish, on the new version."""
    import threading

    server = Server(initial)
    publisher = make_publisher([server], pause_mode=mode)
    answers = []
    try:
        httpx.post(f"{server.url}/debug/hold", json={"hold": True}).raise_for_status()
        body = {"input_ids": [[1, 2]], "sampling_params": {"max_new_tokens": 1}}
        client = threading.Thread(target=lambda: answers.extend(httpx.post(f"{server.url}/generate", json=body,
                                                                           timeout=60).json()))
        client.start()
        deadline = time.monotonic() + 30
        while httpx.get(f"{server.url}/debug/running").json() != 1:
            assert time.monotonic() < deadline, "the request never started running"
            time.sleep(0.05)
        assert publisher.publish(weights(1).items(), version=1) == [server.url]
        assert_serves(server, weights(1), "1")
        assert server.events() == ["init", f"pause:{mode}", "begin", "bucket", "bucket", "bucket", "end", "continue"]
        updates = [r["body"] for r in httpx.get(f"{server.url}/debug/requests").json()
                   if r["route"] == "/update_weights_from_distributed"]
        assert [u["flush_cache"] for u in updates] == flushes
        assert [u.get("weight_version") for u in updates] == [None, None, "1"]
        httpx.post(f"{server.url}/debug/hold", json={"hold": False}).raise_for_status()
        client.join(timeout=60)
        assert [a["meta_info"]["weight_version"] for a in answers] == ["1"]
    finally:
        httpx.post(f"{server.url}/debug/hold", json={"hold": False})
        publisher.close()
        server.stop()


def test_a_flush_while_a_request_runs_in_place_fails_the_update_like_sglang(initial):
    """Why in_place sends no flush: with a request still running, 0.5.23 loads the bucket but
    answers success false (the flush was refused) and the version does not move. The
    publisher's own calls, driven by hand: pause in place, then a last bucket with the flush."""
    import threading

    server = Server(initial)
    publisher = make_publisher([server])  # retract mode: its last bucket carries the flush
    try:
        httpx.post(f"{server.url}/debug/hold", json={"hold": True}).raise_for_status()
        client = threading.Thread(target=lambda: httpx.post(f"{server.url}/generate", json={"input_ids": [[1]]}, timeout=60))
        client.start()
        deadline = time.monotonic() + 30
        while httpx.get(f"{server.url}/debug/running").json() != 1:
            assert time.monotonic() < deadline, "the request never started running"
            time.sleep(0.05)
        [c] = publisher.participants()
        publisher._connect(c)
        c.pause_generation("in_place")
        c.begin_weight_update()
        bucket = next(publisher._packed(weights(1).items()))
        failed = {}
        publisher._finish_bucket(publisher._start_bucket(0, bucket, [c], True, 1), failed)
        assert "the cache was not flushed" in failed[server.url]
        assert server.version() == "default"
        c.end_weight_update()
        c.continue_generation()
        httpx.post(f"{server.url}/debug/hold", json={"hold": False}).raise_for_status()
        client.join(timeout=60)  # the request finishes once resumed
    finally:
        httpx.post(f"{server.url}/debug/hold", json={"hold": False})
        publisher.close()
        server.stop()


def test_update_outside_a_session_is_refused_like_sglang(initial):
    """The fake holds 0.5.23's session rule (what made the old publisher fail on that release)."""
    server = Server(initial)
    try:
        body = dict(names=["lm_head.weight"], dtypes=["float32"], shapes=[[16, 8]], group_name="g",
                    load_format="flattened_bucket")
        answer = httpx.post(f"{server.url}/update_weights_from_distributed", json=body)
        assert answer.status_code == 400 and "between begin_weight_update() and end_weight_update()" in answer.json()["message"]
        assert httpx.post(f"{server.url}/end_weight_update", json={}).status_code == 400
    finally:
        server.stop()


def test_fp8_publish_reaches_a_server_started_from_an_fp8_checkpoint(tmp_path):
    """job.rollout.precision fp8: the server holds the block-FP8 checkpoint's tensors (fp8
    weights, fp32 weight_scale_inv, bf16 rest); the publisher quantizes while it packs and the
    server loads every tensor under its own name, in its own dtype, over the real group."""
    from payload.sync import fp8
    from payload.sync.wire import WireFormat

    wire = WireFormat(torch.bfloat16, "fp8")
    start, _ = wire.encode(list(weights(0).items()))
    initial = tmp_path / "initial-fp8.safetensors"
    save_file({n: t.contiguous() for n, t in start}, initial)
    server = Server(initial)
    publisher = make_publisher([server], dtype="bfloat16", precision="fp8", bucket_bytes=1 << 20)

    def served_in_fp8(new: dict[str, torch.Tensor]) -> None:
        """`new` as quantized from what the publisher holds when it packs."""
        received = fetch_weights(server.url)
        assert len(received) == len(start)
        for name, tensor in new.items():
            if fp8.is_quantized(name):
                q, scale_inv = fp8.quantize_block(tensor)
                assert received[name].dtype == torch.float8_e4m3fn
                assert torch.equal(received[name].view(torch.uint8), q.view(torch.uint8))
                assert torch.equal(received[name.removesuffix("weight") + fp8.SCALE_SUFFIX], scale_inv)
            else:
                assert torch.equal(received[name], tensor.to(torch.bfloat16))

    try:
        assert publisher.publish(weights(1).items(), version=1) == [server.url]
        served_in_fp8(weights(1))
        assert server.version() == "1"
    finally:
        publisher.close()
    # The trainer's path (payload/sync/fanout.py, one GPU here): it stages its rows in bf16,
    # gathers a bucket, and quantizes the gathered bf16 bucket before it is sent.
    from payload.sync.fanout import FanOutPublisher

    config = WeightPublisher.Config(servers=[server.url], backend="gloo", dtype="bfloat16", precision="fp8",
                                    master_address="127.0.0.1", timeout_s=60, bucket_bytes=1 << 20,
                                    bucket_timeout_s=3.0)
    fanout = FanOutPublisher.Config(config).build(0, 1, torch.device("cpu"))
    try:
        fanout.stage((name, tuple(t.shape), 0, t) for name, t in weights(2).items())
        fanout.start(2)
        outcome = fanout.wait()
        assert outcome.error == "" and outcome.done == [server.url]
        served_in_fp8({name: t.to(torch.bfloat16) for name, t in weights(2).items()})
        assert server.version() == "2"
    finally:
        fanout.close()
        server.stop()


def test_fp8_rollout_needs_an_fp8_start_checkpoint():
    from spec.job import JobConfigError, parse_job_config

    with pytest.raises(JobConfigError) as raised:
        parse_job_config({"rollout": {"precision": "fp8"}}, "env.yaml")
    assert str(raised.value).startswith("env.yaml: job.rollout: rollout.precision fp8 needs rollout.model_path")
    with pytest.raises(JobConfigError, match="job.rollout.precision"):
        parse_job_config({"rollout": {"precision": "int4"}}, "env.yaml")
    job = parse_job_config({"rollout": {"precision": "fp8", "model_path": "/fsx/models/Qwen3-30B-A3B-FP8"}}, "env.yaml")
    assert job.rollout_model_path == "/fsx/models/Qwen3-30B-A3B-FP8"
    assert parse_job_config({}, "env.yaml").rollout_model_path == job.model.path
