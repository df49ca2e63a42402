"""WeightPublisher against a real HTTP server on loopback that receives over a real gloo group
with SGLang's semantics (sglang_protocol_server.py): buckets, versions, pause/continue,
rollback of a failed bucket to the last export, catch-up of a restarted server."""

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import torch
from safetensors.torch import save_file

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


@pytest.fixture
def export_v0(tmp_path):
    directory = tmp_path / "export-v0"
    directory.mkdir()
    save_file(weights(100), directory / "model.safetensors")
    return directory


def make_publisher(servers, **overrides):
    config = WeightPublisher.Config(servers=[s.url for s in servers], backend="gloo", dtype="float32",
                                    master_address="127.0.0.1", bucket_bytes=600, timeout_s=60, **overrides)
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
            assert events == ["init", "pause:retract", "bucket", "bucket", "bucket", "continue"]
        publisher.publish(weights(2).items(), version=2)
        assert all(s.version() == "2" for s in servers)
        # The group is kept between publishes: no second init.
        assert servers[0].events().count("init") == 1
    finally:
        publisher.close()
        for s in servers:
            s.stop()


def test_failed_bucket_rolls_back_to_the_export_and_resumes(initial, export_v0):
    server = Server(initial)
    publisher = make_publisher([server])
    try:
        publisher.exported(str(export_v0), version=0)
        bad = list(weights(1).items())
        bad.insert(3, ("model.layers.0.mlp.experts.9.gate_proj.weight", torch.ones(4, 8)))  # not in the model
        with pytest.raises(PublishError, match="unknown parameter model.layers.0.mlp.experts.9"):
            publisher.publish(bad, version=1)
        received = fetch_weights(server.url)
        for name, tensor in weights(100).items():
            torch.testing.assert_close(received[name], tensor, rtol=0, atol=0)
        assert server.version() == "0"
        assert server.events()[-3:] == ["bucket-failed", "disk", "continue"]
        # The next publish forms a new group and succeeds.
        publisher.publish(weights(2).items(), version=2)
        assert server.version() == "2"
        assert server.events().count("init") == 2
    finally:
        publisher.close()
        server.stop()


def test_restarted_server_catches_up_from_disk_then_rejoins(initial, export_v0):
    first = Server(initial)
    publisher = make_publisher([first])
    second = None
    try:
        publisher.publish(weights(1).items(), version=1)
        publisher.exported(str(export_v0), version=0)
        assert publisher.catch_up() == []
        first.stop()
        # The pod comes back at the same address, serving its launch weights.
        second = Server(initial, port=first.port)
        assert second.version() == "default"
        assert publisher.catch_up() == [second.url]
        assert second.version() == "0"
        publisher.publish(weights(3).items(), version=3)
        torch.testing.assert_close(fetch_weights(second.url)["lm_head.weight"], weights(3)["lm_head.weight"])
        assert second.version() == "3"
    finally:
        publisher.close()
        if second is not None:
            second.stop()
