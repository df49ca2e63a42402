"""Scores groups in worker processes.

A job's rewards (job.rewards) may add a served reward model (payload/rewards/model.py): per
data source, reward = verifier weight × the verifier's score + model weight × the model's
score (a scalar model's of prompt + response tokens, or a judge's grade of the response text
against the label); a weight of 0 skips that scorer.

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

A verifier whose own time limit runs out (VerifierTimedOut, e.g. math-verify's) is treated the
same way, without the kill (its process is fine): the sample unscored, VerifierTimeout raised.
Both are counted in rl_verifier_timeouts_total, by which limit ran out.
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

import numpy as np
from prometheus_client import CollectorRegistry, Counter

from spec.job import RewardsSection
from payload.queue.experience import ExperienceGroup
from payload.rewards.base import Verifier, VerifierTimedOut, get_verifier
from payload.rewards.model import RewardModelClient

log = logging.getLogger(__name__)


# A new pool's processes must have started within this (spawn + imports).
POOL_START_TIMEOUT_S = 120.0


class VerifierTimeout(RuntimeError):
    """A verifier outlived the pool's timeout on a sample (its process was killed) or its own."""


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
        # The job's rewards section (None: the task's verifier alone) and the reward model's
        # address (its url, or the job's own tier's: $RL_REWARD_URL).
        rewards: RewardsSection | None = None
        model_url: str | None = None

        def build(self, registry: CollectorRegistry | None = None) -> "RewardPool":
            return RewardPool(self, registry)

    def __init__(self, config: Config, registry: CollectorRegistry | None = None) -> None:
        self.config = config
        # The caller's registry (exported); a private one otherwise (eval, tests: a second pool
        # in one process must not register the name twice).
        self.timeouts = Counter("rl_verifier_timeouts_total", "Samples left unscored because verification timed "
                                "out: limit=verifier (its own) or pool (killed after timeout_s)", ["limit"],
                                registry=CollectorRegistry() if registry is None else registry)
        for limit in ("verifier", "pool"):
            self.timeouts.labels(limit)  # exported as 0 from the start: a rate() sees the first one
        self._lock = threading.Lock()
        self._pool = self._new_pool()
        # Pools killed for a hung verifier: the other groups they were scoring are innocent and
        # are scored again on the new pool, not charged.
        self._killed: weakref.WeakSet[ProcessPoolExecutor] = weakref.WeakSet()
        self._model = None
        rewards = config.rewards
        if rewards is not None and rewards.uses_model:
            if not config.model_url:
                raise ValueError("job.rewards weighs a reward model but no url was given (rewards.model.url, or "
                                 "$RL_REWARD_URL for the job's own reward servers)")
            self._model = RewardModelClient.Config(url=config.model_url, timeout_s=rewards.model.timeout_s).build()

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
        """Set every sample's reward (in place) and return the group. A failure (verifier or
        reward model) leaves every reward NaN: the group is never written half-scored."""
        weights = None if self.config.rewards is None else self.config.rewards.weights_for(group.data_source)
        if weights is None or (weights.model == 0 and weights.verifier == 1):
            return self._verify(group)
        try:
            verified = np.zeros(len(group.samples))
            if weights.verifier > 0:
                verified = self._verify(group).rewards_G.astype(np.float64)
            modelled = np.zeros(len(group.samples))
            if weights.model > 0:
                modelled = np.array(self._model_scores(group))
        except BaseException:
            for sample in group.samples:
                sample.reward = float("nan")
            raise
        for sample, v, m in zip(group.samples, verified, modelled):
            sample.reward = float(weights.verifier * v + weights.model * m)
        return group

    def _model_scores(self, group: ExperienceGroup) -> list[float]:
        model = self.config.rewards.model
        if model.kind == "judge":
            prompts = [model.judge_prompt.format(response=s.text, label=group.label) for s in group.samples]
            return self._model.judge(prompts, model.judge_max_tokens, model.judge_max_score)
        prompt = group.prompt_tokens_P.tolist()
        return self._model.score([prompt + s.token_ids_T.tolist() for s in group.samples])

    def _verify(self, group: ExperienceGroup) -> ExperienceGroup:
        _import_modules(self.config.verifier_modules)
        get_verifier(group.verifier)  # an unknown name fails here, in the caller, with its one-line error
        while True:
            pool = self._pool
            futures = [pool.submit(_score, group.verifier, s.text, group.label) for s in group.samples]
            try:
                for i, (sample, future) in enumerate(zip(group.samples, futures)):
                    try:
                        sample.reward = float(future.result(timeout=self.config.timeout_s))
                    except VerifierTimedOut as exc:
                        sample.reward = float("nan")
                        self.timeouts.labels("verifier").inc()
                        raise VerifierTimeout(f"verifier {group.verifier} timed out on sample {i} of task "
                                              f"{group.task_id}: {exc}") from None
                    except FutureTimeout:
                        sample.reward = float("nan")  # unverified, whatever an earlier attempt left
                        self.timeouts.labels("pool").inc()
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
        if self._model is not None:
            self._model.close()
