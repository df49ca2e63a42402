"""What every long-running payload process has: metrics, a watchdog health check, JSON logs,
and a graceful stop on SIGTERM.

    service = Service.Config(metrics_port=9400, stall_timeout_s=300).build("rollout-worker")
    service.start()                  # /metrics, /healthz, /readyz on the port; SIGTERM/SIGINT handlers
    while not service.stopping.is_set():
        ...; service.beat()          # progress (or a deliberate idle wait) resets the watchdog
    service.close()

/healthz answers 503 when no beat came for `stall_timeout_s`: a process that is alive but
stuck (a hung request, a deadlocked collective, a latency spike in the rollout-training loop)
is restarted by the kubelet's liveness probe instead of silently holding its work. /readyz
answers 503 until `set_ready(True)` (e.g. a rollout server that has not caught up to the
current weights yet).

SIGTERM is the spot interruption notice (the node termination handler drains the node): it
sets `stopping`; the process finishes or hands back its work within its grace period.
"""

from __future__ import annotations

import json
import logging
import signal
import socket
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Gauge, generate_latest

log = logging.getLogger(__name__)


class JsonFormatter(logging.Formatter):
    """One JSON object per line (what CloudWatch / Loki parse without a grok pattern)."""

    _RESERVED = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}

    def __init__(self, service: str) -> None:
        super().__init__()
        self.service = service

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "service": self.service,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        # `log.info("...", extra={"task_id": ...})` fields become top-level keys.
        entry.update({k: v for k, v in vars(record).items() if k not in self._RESERVED})
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def configure_logging(service: str, level: str = "INFO") -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter(service))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


class PortInUse(RuntimeError):
    """A port this process must listen on is taken (another process, a second copy of this one)."""


def bound_socket(host: str, port: int, what: str) -> socket.socket:
    """A TCP socket bound to (host, port), or PortInUse naming `what` (the flag that sets it)."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise PortInUse(f"{what} {port}: cannot listen on {host}:{port} ({exc.strerror}); is another process "
                        "using it? choose another port") from None
    return sock


class Service:
    @dataclass
    class Config:
        # 0 picks a free port (tests); None serves nothing.
        metrics_port: int | None = 9400
        metrics_host: str = "0.0.0.0"
        stall_timeout_s: float = 300.0

        def build(self, name: str, registry: CollectorRegistry = REGISTRY) -> "Service":
            return Service(self, name, registry)

    def __init__(self, config: Config, name: str, registry: CollectorRegistry = REGISTRY) -> None:
        self.config = config
        self.name = name
        self.registry = registry
        self.stopping = threading.Event()
        self._last_beat = time.monotonic()
        self._ready = False
        self._server: ThreadingHTTPServer | None = None
        self._seconds_since_beat = Gauge(
            "rl_seconds_since_progress",
            "Seconds since this process last made progress (the /healthz watchdog input).",
            ["service"],
            registry=registry,
        ).labels(name)
        self._seconds_since_beat.set_function(lambda: time.monotonic() - self._last_beat)

    @property
    def port(self) -> int | None:
        return None if self._server is None else self._server.server_address[1]

    def beat(self) -> None:
        self._last_beat = time.monotonic()

    def set_ready(self, ready: bool) -> None:
        self._ready = ready

    def healthy(self) -> bool:
        return time.monotonic() - self._last_beat < self.config.stall_timeout_s

    def start(self, handle_signals: bool = True) -> "Service":
        if handle_signals and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self._on_signal)
            signal.signal(signal.SIGINT, self._on_signal)
        if self.config.metrics_port is not None:
            bound_socket(self.config.metrics_host, self.config.metrics_port, "--metrics-port").close()  # PortInUse first
            try:
                self._server = ThreadingHTTPServer((self.config.metrics_host, self.config.metrics_port), self._handler())
            except OSError as exc:  # taken between the check and here
                raise PortInUse(f"--metrics-port {self.config.metrics_port}: {exc.strerror}") from None
            self._server.daemon_threads = True
            threading.Thread(target=self._server.serve_forever, name=f"{self.name}-metrics", daemon=True).start()
            log.info("metrics and health on port %d", self.port)
        self.beat()
        return self

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def _on_signal(self, signum: int, _frame) -> None:
        log.info("received %s: stopping", signal.Signals(signum).name)
        self.stopping.set()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                path = self.path.split("?", 1)[0]
                if path == "/metrics":
                    self._send(200, generate_latest(service.registry), CONTENT_TYPE_LATEST)
                elif path == "/healthz":
                    since = time.monotonic() - service._last_beat
                    ok = since < service.config.stall_timeout_s
                    body = {"status": "ok" if ok else "stalled", "seconds_since_progress": round(since, 3),
                            "stall_timeout_s": service.config.stall_timeout_s, "stopping": service.stopping.is_set()}
                    self._send(200 if ok else 503, json.dumps(body).encode(), "application/json")
                elif path == "/readyz":
                    ready = service._ready and not service.stopping.is_set()
                    self._send(200 if ready else 503, json.dumps({"ready": ready}).encode(), "application/json")
                else:
                    self._send(404, b"not found\n", "text/plain")

            def _send(self, status: int, body: bytes, content_type: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_args) -> None:  # probes every few seconds: not worth a log line
                pass

        return Handler
