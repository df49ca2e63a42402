"""Which phase of a step the trainer is in, and a watchdog that names the one that stalled.

payload.common.service answers /healthz 503 once no progress beat came for its stall timeout;
the kubelet's liveness probe then restarts the pod. That tells *that* the trainer is stuck;
this says *where*: every phase change beats, and a phase that outlives the timeout is logged
once as an error naming it and written to the container's termination message, which
`kubectl describe pod` shows after the restart ("phase 'wait_experience' stalled for 612 s").
A phase that waits on others (experience, a collective) therefore trips it; one that only
takes long must beat (`watchdog.beat()`) as it progresses.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from prometheus_client import REGISTRY, CollectorRegistry, Enum

from payload.common.service import Service

log = logging.getLogger(__name__)

PHASES = ("start", "wait_experience", "train_step", "publish", "export", "checkpoint", "done")
TERMINATION_LOG = "/dev/termination-log"


class PhaseWatchdog:
    def __init__(
        self,
        service: Service,
        registry: CollectorRegistry = REGISTRY,
        termination_log: str | None = TERMINATION_LOG,
        poll_s: float = 1.0,
    ) -> None:
        self.service = service
        self.termination_log = termination_log
        self.current = "start"
        self.since = time.monotonic()
        self.stalled: str | None = None
        self._state = Enum("rl_trainer_phase", "The phase of a step the trainer is in", states=list(PHASES), registry=registry)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, args=(poll_s,), name="phase-watchdog", daemon=True)
        self._thread.start()

    def beat(self) -> None:
        self.since = time.monotonic()
        self.service.beat()

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        self.enter(name)
        yield
        self.beat()

    def enter(self, name: str) -> None:
        self.current = name
        self._state.state(name)
        self.beat()

    def _watch(self, poll_s: float) -> None:
        while not self._stop.wait(poll_s):
            stalled_for = time.monotonic() - self.since
            if stalled_for < self.service.config.stall_timeout_s:
                self.stalled = None
                continue
            if self.stalled == self.current:
                continue
            self.stalled = self.current
            message = (
                f"trainer phase {self.current!r} stalled for {stalled_for:.0f} s "
                f"(stall timeout {self.service.config.stall_timeout_s:.0f} s)"
            )
            log.error(message)
            if self.termination_log:
                try:
                    Path(self.termination_log).write_text(message + "\n")
                except OSError:  # not in a container
                    pass

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
