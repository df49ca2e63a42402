"""Scores groups in worker processes.

Processes rather than threads: verifiers are CPU-bound Python (sympy), their timeouts need a
main thread (SIGALRM), and a verifier for untrusted output (code execution, a judge's parser)
must not be able to corrupt or stall the process that holds the queue lease.
"""

from __future__ import annotations

import logging
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from functools import lru_cache

from payload.queue.experience import ExperienceGroup
from payload.rewards.base import Verifier, get_verifier

log = logging.getLogger(__name__)


@lru_cache(maxsize=None)
def _verifier(name: str) -> Verifier:
    return get_verifier(name)


def _score(name: str, response: str, label: str) -> float:
    return _verifier(name).score(response, label)


class RewardPool:
    @dataclass
    class Config:
        processes: int = 2
        # A sample whose verification outlives this scores 0 (the verifier's own timeout
        # should fire first; this bounds a verifier that has none).
        timeout_s: float = 30.0

        def build(self) -> "RewardPool":
            return RewardPool(self)

    def __init__(self, config: Config) -> None:
        self.config = config
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        # spawn: the caller has threads (worker slots, HTTP clients); forking them is unsafe.
        return ProcessPoolExecutor(self.config.processes, mp_context=multiprocessing.get_context("spawn"))

    def score_group(self, group: ExperienceGroup) -> ExperienceGroup:
        """Set every sample's reward (in place) and return the group."""
        get_verifier(group.verifier)  # an unknown name fails here, in the caller, with its one-line error
        futures = [self._pool.submit(_score, group.verifier, s.text, group.label) for s in group.samples]
        try:
            for sample, future in zip(group.samples, futures):
                try:
                    sample.reward = float(future.result(timeout=self.config.timeout_s))
                except FutureTimeout:
                    log.warning("verifier %s timed out on %s", group.verifier, group.task_id)
                    sample.reward = 0.0
        except BrokenProcessPool:
            # A verifier process died (OOM, segfault in a native parser): start over with a new pool;
            # the caller hands the group back.
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = self._new_pool()
            raise
        return group

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
