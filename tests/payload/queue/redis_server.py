"""A real redis-server on a free loopback port, for tests and benchmarks (no mocks of Redis).

Never skipped: `make test` installs redis-server where it is missing, and where it still is,
every test that needs it fails with the command that installs it.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import redis

from payload.common.ports import free_port

REDIS_SERVER = shutil.which("redis-server")
MISSING_REASON = (
    "redis-server is not installed: the queue and buffer tests run against a real Redis. Install it with "
    "`make redis-server` (apt-get install -y redis-server; on macOS: brew install redis; Redis 7 or newer)"
)


class RedisServer:
    """AOF on with fsync on every write, as the chart runs it, so a restart keeps acknowledged data."""

    def __init__(self, directory: str | None = None, password: str | None = None) -> None:
        if REDIS_SERVER is None:
            raise RuntimeError(MISSING_REASON)
        self._tmp = None if directory else tempfile.TemporaryDirectory(prefix="redis-")
        self.directory = Path(directory or self._tmp.name)
        self.port = free_port()
        self.password = password
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def start(self) -> "RedisServer":
        self.process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.directory),
             "--save", "", "--appendonly", "yes", "--appendfsync", "always", "--protected-mode", "no",
             *(["--requirepass", self.password] if self.password else [])],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        wait_until_up(self.process, redis.Redis(port=self.port, password=self.password, socket_connect_timeout=0.2),
                      f"redis-server did not start on port {self.port}")
        return self

    def stop(self, kill: bool = False) -> None:
        if self.process is None:
            return
        if kill:
            self.process.kill()
        else:
            self.process.terminate()
        self.process.wait(10)
        self.process = None

    def flush(self) -> None:
        client = redis.Redis(port=self.port, password=self.password)
        client.flushall()
        client.close()

    def close(self) -> None:
        self.stop(kill=True)
        if self._tmp is not None:
            self._tmp.cleanup()


def wait_until_up(process: subprocess.Popen, client: redis.Redis, failure: str, timeout_s: float = 10) -> None:
    """Ping until the server answers (and has loaded its AOF); `failure` if it exits or times out."""
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            try:
                client.ping()
                return
            except redis.BusyLoadingError:
                pass
            except redis.ConnectionError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError(failure) from None
            time.sleep(0.02)
    finally:
        client.close()


def started(directory: str | None = None, password: str | None = None) -> RedisServer:
    """A running server for a test, or the test fails (never skips) saying how to install one."""
    if REDIS_SERVER is None:
        pytest.fail(MISSING_REASON, pytrace=False)
    return RedisServer(directory, password).start()
