"""`serve`: a rollout server (SGLang, or the embedded engine) plus the supervisor beside it.

The supervisor makes a (re)started server current before it serves, and keeps it current:

- at launch, the server loads the newest exported weights (the queue's policy pointer, which
  the trainer moves forward at each HF export) instead of the base model, with that version
  as its `--weight-version`: a server on a reclaimed spot node that comes back serves the
  current policy from its first request, not the base model;
- every `poll_s`, if the pointer is ahead of what the server reports (it missed a publish,
  or was not in the weight-update group yet), it calls /update_weights_from_disk;
- liveness (/healthz, the watchdog): beaten while SGLang's /health answers, which with
  SGLANG_ENV never generates (sglang 0.5.23's /health runs a generation unless
  SGLANG_ENABLE_HEALTH_ENDPOINT_GENERATION=0, and a generation waits out a weight publish).
  A server whose /health_generate has failed for `hung_after_s` (longer than any publish)
  stops being beaten, so a hung scheduler is still restarted by the kubelet;
- readiness (/readyz): caught up with the pointer and /health_generate answered (able to
  serve a rollout now).

A replica spanning several nodes (LeaderWorkerSet, `--nnodes`) runs one `serve` per node. Its
leader (node rank 0) is supervised as above. The other nodes serve only SGLang's placeholder
/health and /health_generate (sglang 0.5.23 `launch_dummy_health_check_server`): their weights
change only through the leader, so their supervisor never catches up (`follower`). And the
group starts from the base model, the leader then loading the newest export into every rank:
each node reading the pointer itself could start two nodes of one replica on two versions.

Catch-up is for a server that starts behind (a multi-node replica's leader, on the base model);
once current, a server that misses a publish is brought up to date by the next publish, which
sends every tensor anyway (payload/sync/publisher.py): no second reload from FSx (470 GB for
235B) behind the trainer's back.

Shutdown (SIGTERM, the pod's terminationGracePeriodSeconds = SPOT_GRACE_SECONDS, one constant
for both): SGLang 0.5.23 drains on SIGTERM (tokenizer_manager.sigterm_watchdog: every 5 s,
until no request is left, then exits). Requests held by a paused server never finish, so near
the end of the grace `stop_sglang` aborts what is left (POST /abort_request {abort_all}: the
rollout workers hand those tasks back) and SIGKILLs only at the grace's end, minus our own exit.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

import httpx

from payload.common.service import Service, bound_socket
from spec.job import SPOT_GRACE_SECONDS, JobConfig
from payload.queue.base import PolicyPointer, RolloutQueue
from payload.rollout.sglang_args import server_args
from payload.sync.client import RolloutServerClient, RolloutServerError

log = logging.getLogger(__name__)

# Of the pod's grace period: kept for `serve` itself after SGLang is gone, and for SGLang's
# abort of what a paused server still holds (its drain loop looks every 5 s).
EXIT_MARGIN_S = 10.0
ABORT_BEFORE_END_S = 15.0
# POST /abort_request's body (sglang 0.5.23 AbortReq): every request the server holds.
ABORT_ALL = {"abort_all": True}


def stop_sglang(process: subprocess.Popen, url: str, grace_s: float = SPOT_GRACE_SECONDS - EXIT_MARGIN_S) -> int:
    """SIGTERM, let SGLang drain for `grace_s` minus ABORT_BEFORE_END_S, then abort every
    request still held (a paused server's), then SIGKILL at `grace_s`. Its exit code."""
    if process.poll() is not None:
        return process.returncode
    process.terminate()
    try:
        return process.wait(max(grace_s - ABORT_BEFORE_END_S, 0))
    except subprocess.TimeoutExpired:
        pass
    log.warning("SGLang still draining %.0f s after SIGTERM: aborting the requests it holds", grace_s - ABORT_BEFORE_END_S)
    try:
        httpx.post(f"{url}/abort_request", json=ABORT_ALL, timeout=5.0)
    except httpx.HTTPError as exc:
        log.warning("abort_request: %s", exc)
    try:
        return process.wait(min(ABORT_BEFORE_END_S, grace_s))
    except subprocess.TimeoutExpired:
        log.error("SGLang did not exit within %.0f s of SIGTERM: killed", grace_s)
        process.kill()
        return process.wait()


# SGLang's environment under `serve`: /health answers without generating (the kubelet's
# startup probe and the router's health checks call it; neither may wait out a publish).
SGLANG_ENV = {"SGLANG_ENABLE_HEALTH_ENDPOINT_GENERATION": "0"}


def share_sglang_metrics(registry, directory: str) -> dict[str, str]:
    """SGLang's Prometheus metrics on the supervisor's metrics port instead of SGLang's own.

    SGLang 0.5.23 serves /metrics only on its API port (utils/common.py add_prometheus_middleware),
    the port whose admin routes swap the served weights: Prometheus must not reach it. Its
    metrics are prometheus_client multiprocess files in $PROMETHEUS_MULTIPROC_DIR (which it
    keeps when set, set_prometheus_multiproc_dir); the supervisor reads the same directory into
    its own registry. Returns the environment for the SGLang process.
    """
    from prometheus_client import multiprocess

    multiprocess.MultiProcessCollector(registry, path=directory)
    return {"PROMETHEUS_MULTIPROC_DIR": directory}


def sglang_command(job: JobConfig, *, model_path: str, host: str, port: int, weight_version: str) -> list[str]:
    """`python -m sglang.launch_server ...` for one single-node rollout replica of this job."""
    return [sys.executable, "-m", "sglang.launch_server",
            *server_args(job, model_path=model_path, host=host, port=port), "--weight-version", weight_version]


def flag_value(args: list[str], flag: str) -> str | None:
    """The value of `--flag value` or `--flag=value` in an argument list."""
    for i, arg in enumerate(args):
        if arg == flag and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(flag + "="):
            return arg.split("=", 1)[1]
    return None


def passthrough_args(args: list[str], *, model_path: str, weight_version: str) -> list[str]:
    """SGLang's arguments as the chart wrote them, starting from `model_path` at `weight_version`
    (the newest export, when there is one; the tokenizer stays the base model's)."""
    out: list[str] = []
    skip = False
    base = flag_value(args, "--model-path")
    for arg in args:
        if skip:
            skip = False
            continue
        name = arg.split("=", 1)[0]
        if name in ("--model-path", "--weight-version"):
            skip = "=" not in arg
            continue
        out.append(arg)
    out += ["--model-path", model_path, "--weight-version", weight_version]
    if base and base != model_path and flag_value(args, "--tokenizer-path") is None:
        out += ["--tokenizer-path", base]
    return out


class Supervisor:
    @dataclass
    class Config:
        url: str = "http://127.0.0.1:30000"
        poll_s: float = 30.0
        start_timeout_s: float = 1800.0  # a 30B checkpoint from FSx and CUDA graph capture take minutes
        # Generation failing this long is a hang, not a publish (235B in bf16 is 470 GB: a
        # publish over EFA takes minutes, a rollback from FSx a few more).
        hung_after_s: float = 1800.0
        # A node of a multi-node replica other than its leader: no catch-up of its own.
        follower: bool = False

    def __init__(self, config: Config, service: Service, queue: RolloutQueue | None,
                 process: subprocess.Popen | None = None) -> None:
        self.config = config
        self.service = service
        self.queue = queue
        self.process = process
        self.client = RolloutServerClient(config.url, timeout_s=600.0)
        self._http = httpx.Client(base_url=config.url, timeout=httpx.Timeout(60.0, connect=5.0))
        self._caught_up = False  # after the first time, the publisher keeps the server current

    def pointer(self) -> PolicyPointer | None:
        if self.queue is None:
            return None
        try:
            return self.queue.latest_policy()
        except Exception as exc:  # noqa: BLE001 - the queue being away must not stop serving
            log.warning("cannot read the policy pointer: %s", exc)
            return None

    def _server_exited(self) -> int | None:
        return None if self.process is None else self.process.poll()

    def wait_until_up(self) -> bool:
        deadline = time.monotonic() + self.config.start_timeout_s
        while not self.service.stopping.is_set():
            if self._server_exited() is not None:
                return False
            try:
                if self._http.get("/health", timeout=5.0).status_code == 200:
                    return True
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                return False
            self.service.beat()  # starting is progress
            self.service.stopping.wait(1.0)
        return False

    def catch_up(self) -> bool:
        """Bring the server to the pointer's version if it starts behind; True when current.
        Only until it has been current once: then publishes keep it so (see above)."""
        if self._caught_up:
            return True
        pointer = self.pointer()
        if pointer is None:
            return True
        try:
            served = self.client.weight_version()
        except RolloutServerError as exc:
            log.warning("cannot read the served weight version: %s", exc)
            return False
        if served.isdigit() and int(served) >= pointer.version:
            self._caught_up = True
            return True
        log.info("server at version %s, newest export is %d: loading %s", served, pointer.version, pointer.path)
        try:
            self.client.update_weights_from_disk(model_path=pointer.path, weight_version=str(pointer.version))
        except RolloutServerError as exc:
            log.error("catch-up from %s failed: %s", pointer.path, exc)
            return False
        self._caught_up = True
        return True

    def _answers(self, route: str) -> bool:
        try:
            return self._http.get(route).status_code == 200
        except httpx.HTTPError as exc:
            log.warning("%s failed: %s", route, exc)
            return False

    def run(self) -> int:
        if not self.wait_until_up():
            code = self._server_exited()
            log.error("the rollout server did not come up (exit code %s)", code)
            return code or 1
        last_served = time.monotonic()
        while not self.service.stopping.is_set():
            code = self._server_exited()
            if code is not None:
                log.error("the rollout server exited with code %s", code)
                return code or 1
            current = self.config.follower or self.catch_up()
            serving = self._answers("/health_generate")
            now = time.monotonic()
            if serving:
                last_served = now
            if self._answers("/health") and now - last_served < self.config.hung_after_s:
                self.service.beat()
            self.service.set_ready(current and serving)
            self.service.stopping.wait(self.config.poll_s)
        return 0

    def close(self) -> None:
        self.client.close()
        self._http.close()


def replica_nodes(sglang_args: list[str]) -> tuple[int, int]:
    """(nodes of this SGLang replica, this node's rank in it) from its `--nnodes`/`--node-rank`."""
    return int(flag_value(sglang_args, "--nnodes") or 1), int(flag_value(sglang_args, "--node-rank") or 0)


def launch_start_weights(job_model_path: str, queue: RolloutQueue | None, nodes: int = 1) -> tuple[str, str]:
    """(model path, weight version) a server should start from: the newest export, else the base;
    always the base for a replica of several nodes (see the module's docstring)."""
    pointer = None if queue is None or nodes > 1 else queue.latest_policy()
    if pointer is not None and pointer.version > 0:
        return pointer.path, str(pointer.version)
    return job_model_path, "0"


@dataclass
class LocalServer:
    """The embedded engine behind uvicorn on a thread (the main thread runs the supervisor)."""

    engine: object
    host: str
    port: int
    _server: object = field(default=None, init=False)
    _thread: threading.Thread | None = field(default=None, init=False)

    def start(self) -> "LocalServer":
        import uvicorn

        from payload.rollout.server import build_app

        # Bound here, in the main thread: uvicorn failing to bind on its thread would only
        # end that thread, leaving a supervisor that waits forever for a server that is not there.
        sock = bound_socket(self.host, self.port, "--port")
        config = uvicorn.Config(build_app(self.engine), host=self.host, port=self.port, log_level="warning",
                                access_log=False)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]}, name="http", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(30)
        self.engine.close()
