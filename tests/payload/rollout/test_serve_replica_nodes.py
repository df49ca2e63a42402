"""`serve` on the nodes of an SGLang replica that spans several nodes.

A non-leader node serves only SGLang's placeholder health routes (which routes, the release
contract test reads from sglang 0.5.23's own source); here a real HTTP server on loopback
answers exactly those, 404 to everything else, and records what it was asked."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from prometheus_client import CollectorRegistry

from payload.common.service import Service
from payload.queue.base import PolicyPointer, RolloutQueue
from payload.rollout.serve import Supervisor, launch_start_weights, replica_nodes

PLACEHOLDER_ROUTES = {"/ping", "/health", "/health_generate"}


class Placeholder:
    """GET on PLACEHOLDER_ROUTES answers 200, anything else 404; every request is recorded."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str]] = []
        record = self.requests

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                record.append((self.command, self.path))
                ok = self.command == "GET" and self.path in PLACEHOLDER_ROUTES
                self.send_response(200 if ok else 404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST = _answer

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def queue_with_export():
    queue = RolloutQueue.Config(backend="memory").build()
    queue.publish_policy(PolicyPointer(7, "/fsx/ckpt/hf/7"))
    return queue


def supervise(follower: bool, queue) -> tuple[int, int, list]:
    """Run a supervisor against the placeholder for 2.5 s (longer than the watchdog's
    stall timeout): the HTTP status of its /readyz and /healthz then, and what it asked."""
    placeholder = Placeholder()
    service = Service(Service.Config(metrics_port=0, metrics_host="127.0.0.1", stall_timeout_s=1.0), "serve-test",
                      CollectorRegistry())
    service.start(handle_signals=False)
    supervisor = Supervisor(Supervisor.Config(url=placeholder.url, poll_s=0.05, follower=follower), service, queue)
    thread = threading.Thread(target=supervisor.run, daemon=True)
    thread.start()
    try:
        time.sleep(2.5)
        probes = [httpx.get(f"http://127.0.0.1:{service.port}{route}").status_code for route in ("/readyz", "/healthz")]
    finally:
        service.stopping.set()
        thread.join(10)
        supervisor.close()
        service.close()
        placeholder.close()
    return *probes, placeholder.requests


def test_a_follower_node_is_ready_and_alive_on_the_placeholder_routes_alone(queue_with_export):
    ready, alive, requests = supervise(follower=True, queue=queue_with_export)
    assert (ready, alive) == (200, 200)
    # It never asks for a version or loads weights: those reach it through the leader.
    assert {path for _, path in requests} <= PLACEHOLDER_ROUTES, requests


def test_a_leader_on_the_same_routes_would_never_be_ready(queue_with_export):
    """The same supervisor as a leader asks for the served version, which a non-leader node
    cannot answer: it would stay unready for ever (what follower mode exists for)."""
    ready, _, requests = supervise(follower=False, queue=queue_with_export)
    assert ready == 503
    assert {path for _, path in requests} - PLACEHOLDER_ROUTES


def test_a_multi_node_replica_starts_every_node_from_the_base_model(queue_with_export):
    chart = ["--model-path", "/fsx/models/base", "--tp-size", "16", "--nnodes", "2", "--node-rank", "1"]
    assert replica_nodes(chart) == (2, 1)
    assert replica_nodes(["--tp-size", "8"]) == (1, 0)
    # One node: the newest export at once. Several: the base, then the leader catches the group up.
    assert launch_start_weights("/fsx/models/base", queue_with_export) == ("/fsx/ckpt/hf/7", "7")
    assert launch_start_weights("/fsx/models/base", queue_with_export, nodes=2) == ("/fsx/models/base", "0")
