"""`serve` stops SGLang within the pod's grace period, draining first (payload/rollout/serve.py).

The stand-in does on SIGTERM what SGLang 0.5.23's tokenizer_manager.sigterm_watchdog does: it
exits once no request is left. A paused server's requests never finish by themselves; `serve`
aborts them (POST /abort_request {abort_all: true}, the release's AbortReq) near the grace's end.
"""

import subprocess
import sys
import textwrap
import time

from spec.job import SPOT_GRACE_SECONDS
from payload.rollout.serve import ABORT_BEFORE_END_S, EXIT_MARGIN_S, stop_sglang
from tests.payload.rollout.helpers import free_port

STAND_IN = textwrap.dedent('''
    import json, signal, sys, threading, time
    from http.server import BaseHTTPRequestHandler, HTTPServer
    port, requests_left_s, out = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
    state = {"term": None, "aborted": False}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state["aborted"] = self.path == "/abort_request" and body.get("abort_all") is True
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    signal.signal(signal.SIGTERM, lambda *a: state.update(term=time.monotonic()))
    print("up", flush=True)
    while True:  # requests in flight finish after requests_left_s (never: a paused server)
        if state["term"] and (state["aborted"] or time.monotonic() - state["term"] >= requests_left_s):
            open(out, "w").write("aborted" if state["aborted"] else "drained")
            sys.exit(0)
        time.sleep(0.05)
''')


def start(tmp_path, requests_left_s):
    port = free_port()
    process = subprocess.Popen([sys.executable, "-c", STAND_IN, str(port), str(requests_left_s), str(tmp_path / "how")],
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "up"
    return process, f"http://127.0.0.1:{port}"


def test_the_grace_period_is_one_constant():
    """The pod's terminationGracePeriodSeconds (k8s/charts/rollout_servers.py) is the same
    constant `serve` drains in, less its own exit."""
    from k8s import pods

    assert pods.SPOT_GRACE_SECONDS is SPOT_GRACE_SECONDS
    assert stop_sglang.__defaults__ == (SPOT_GRACE_SECONDS - EXIT_MARGIN_S,)


def test_draining_server_is_waited_for(tmp_path):
    process, url = start(tmp_path, requests_left_s=2.0)
    started = time.monotonic()
    assert stop_sglang(process, url, grace_s=ABORT_BEFORE_END_S + 20) == 0
    assert 2.0 <= time.monotonic() - started < 15 and (tmp_path / "how").read_text() == "drained"


def test_paused_server_is_aborted_before_the_grace_ends(tmp_path):
    grace_s = ABORT_BEFORE_END_S + 1.0
    process, url = start(tmp_path, requests_left_s=float("inf"))
    started = time.monotonic()
    assert stop_sglang(process, url, grace_s=grace_s) == 0
    assert 1.0 <= time.monotonic() - started < grace_s and (tmp_path / "how").read_text() == "aborted"
