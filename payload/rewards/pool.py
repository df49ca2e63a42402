"""Scores groups in worker processes.

Processes rather than threads: verifiers are CPU-bound Python (sympy), their timeouts need a
main thread (SIGALRM), and a verifier for untrusted output (code execution, a judge's parser)
must not be able to corrupt or stall the process that holds the queue lease.

A verifier that hangs (no timeout of its own, or stuck in native code) is killed: once a
sample outlives `timeout_s`, every process of the pool is killed and a new pool started (a
hung process would otherwise hold its slot, and every later sample would time out behind
it). The sample stays unscored (reward NaN: the group is not `verified`) and `score_group`
raises VerifierTimeout, which the caller charges to the group like a verifier crash: it is
verified again elsewhere, or dead-lettered with the reason after max_deliveries. Never a 0:
a made-up reward would be trained on as if the response were wrong.
"""

from __future__ import annotations

import importlib
import logging
import multiprocessing
import threading
import weakref
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from functools import lru_cache

from payload.queue.experience import ExperienceGroup
from payload.rewards.base import Verifier, get_verifier

log = logging.getLogger(__name__)


# A new pool's processes must have started within this (spawn + imports).
POOL_START_TIMEOUT_S = 120.0


class VerifierTimeout(RuntimeError):
    """A verifier outlived the pool's timeout on a sample; its process was killed."""


def _kill_workers(pool: ProcessPoolExecutor) -> None:
    """Kill the pool's processes now (Python 3.14's ProcessPoolExecutor.kill_workers; before it,
    the executor's own process table: shutdown() alone waits for a running call forever)."""
    if hasattr(pool, "kill_workers"):
        pool.kill_workers()
        return
    for process in list((pool._processes or {}).values()):
        process.kill()


@lru_cache(maxsize=None)
def _verifier(name: str) -> Verifier:
    return get_verifier(name)


def _import_modules(modules: tuple[str, ...]) -> None:
    for module in modules:
        importlib.import_module(module)


def _score(name: str, response: str, label: str) -> float:
    return _verifier(name).score(response, label)


class RewardPool:
    @dataclass
    class Config:
        processes: int = 2
        # A sample whose verification outlives this is left unscored and its verifier process
        # killed (the verifier's own timeout should fire first; this bounds one that has none).
        timeout_s: float = 30.0
        # Modules each verifier process imports first: their Verifier subclasses join the
        # registry (payload.rewards.base), so a site adds verifiers without editing the payload.
        verifier_modules: tuple[str, ...] = ()

        def build(self) -> "RewardPool":
            return RewardPool(self)

    def __init__(self, config: Config) -> None:
        self.config = config
        self._lock = threading.Lock()
        self._pool = self._new_pool()
        # Pools killed for a hung verifier: the other groups they were scoring are innocent and
        # are scored again on the new pool, not charged.
        self._killed: weakref.WeakSet[ProcessPoolExecutor] = weakref.WeakSet()

    def _new_pool(self) -> ProcessPoolExecutor:
        # spawn: the caller has threads (worker slots, HTTP clients); forking them is unsafe.
        modules = tuple(self.config.verifier_modules)
        pool = ProcessPoolExecutor(self.config.processes, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_import_modules, initargs=(modules,))
        # Started and imported before the first sample's clock runs: a process's start (seconds
        # on a busy node) must not count as a verifier's time.
        for warm in [pool.submit(_import_modules, modules) for _ in range(self.config.processes)]:
            warm.result(timeout=POOL_START_TIMEOUT_S)
        return pool

    def _replace(self, pool: ProcessPoolExecutor, kill: bool) -> None:
        with self._lock:
            if pool is not self._pool:
                return  # another caller replaced it already
            if kill:
                self._killed.add(pool)
                _kill_workers(pool)
            self._pool = self._new_pool()
        pool.shutdown(wait=kill, cancel_futures=True)

    def score_group(self, group: ExperienceGroup) -> ExperienceGroup:
        """Set every sample's reward (in place) and return the group."""
        _import_modules(self.config.verifier_modules)
        get_verifier(group.verifier)  # an unknown name fails here, in the caller, with its one-line error
        while True:
            pool = self._pool
            futures = [pool.submit(_score, group.verifier, s.text, group.label) for s in group.samples]
            try:
                for i, (sample, future) in enumerate(zip(group.samples, futures)):
                    try:
                        sample.reward = float(future.result(timeout=self.config.timeout_s))
                    except FutureTimeout:
                        sample.reward = float("nan")  # unverified, whatever an earlier attempt left
                        self._replace(pool, kill=True)
                        raise VerifierTimeout(f"verifier {group.verifier} did not finish sample {i} of task "
                                              f"{group.task_id} within {self.config.timeout_s:g} s: killed") from None
                return group
            except BrokenProcessPool:
                if pool in self._killed:
                    continue  # killed for another group's hung verifier: score this one again
                # A verifier process died (OOM, segfault in a native parser): start over with a
                # new pool; the caller hands the group back.
                self._replace(pool, kill=False)
                raise

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
