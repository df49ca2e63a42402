"""The one producer of tasks: the training set, in the plan's order, into the task queue.

    feeder = Feeder.Config.of(job).build(plan, prompts, dataset, queue)
    feeder.run(stop)        # returns once the feed is finished (or `stop` is set)

Exactly once across SIGKILL and restart: each batch of tasks is submitted together with the
new cursor (`RolloutQueue.submit_feed`, one Lua script in Redis), and only from the cursor this
process last saw; a restarted feeder reads the cursor and continues at that position. Task ids
come from the position's (dataset fingerprint, epoch, row), so they are the same on every run.

Paced by the trainer: version v of the policy (reported by the trainer after it publishes)
can use tasks up to step v + 1 + max_staleness, so the feeder keeps the submitted count at
(v + 1 + max_staleness) x prompts_per_step, plus one task for every group that left the
pipeline without being trained (dropped stale, dead-lettered, or dropped by the trainer's
equal-reward filter). Rollouts never start on weights too old to be trained on, and a filter
that drops groups never starves the trainer.

Redis full (BufferFull: maxmemory reached, the submission refused whole): the feeder waits,
retrying with backoff up to `full_pause_max_s`, and goes on from the same cursor once it has room.

End of data: once every position is submitted (all epochs), or the trainer reached
`data.total_steps`, the cursor is stored with `finished`; the trainer trains what is left
and exits (RolloutQueue.exhausted).

Sizes at 16 nodes / 235B (prompts_per_step 256, ~2048-token prompts): a step's tasks are
256 x 8 KB = 2 MB into Redis per training step (minutes): nothing; building them (a chat
template and a tokenizer call per row) takes well under a second.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from prometheus_client import CollectorRegistry, Counter, Gauge

from payload.data import DataError
from payload.data.plan import FeedPlan
from payload.data.prompts import PromptBuilder
from payload.data.source import OpenDataset
from spec.job import JobConfig
from payload.queue.base import BufferFull, FeedCursor, RolloutQueue, TrainerProgress
from payload.queue.experience import Task

log = logging.getLogger(__name__)


class FeedConflict(RuntimeError):
    """The queue's cursor moved under this feeder: another feeder runs on the same namespace."""


@dataclass
class FeederMetrics:
    registry: CollectorRegistry

    def __post_init__(self) -> None:
        r = self.registry
        self.submitted = Counter("rl_feeder_tasks_submitted_total", "Tasks this feeder process submitted", registry=r)
        self.position = Gauge("rl_feeder_position", "Positions of the feed submitted (all epochs)", registry=r)
        self.epoch = Gauge("rl_feeder_epoch", "Epoch of the next task (0-based)", registry=r)
        self.rows = Gauge("rl_feeder_rows", "Training rows whose prompt fits batch.max_prompt_tokens", registry=r)
        self.filtered = Gauge("rl_feeder_rows_filtered", "Training rows dropped: prompt longer than max_prompt_tokens",
                              registry=r)
        self.budget = Gauge("rl_feeder_budget", "Positions the trainer's progress allows to be submitted", registry=r)
        self.finished = Gauge("rl_feeder_finished", "1 once the end of the data is signalled", registry=r)


class Feeder:
    @dataclass
    class Config:
        group_size: int
        prompts_per_step: int
        max_staleness: int
        total_steps: int | None = None
        # The environment per data source (data.environment_for), "" for one turn.
        environment_for: Callable[[str], str] = lambda data_source: ""
        # Tasks per submission (one round trip).
        batch_tasks: int = 64
        # How often a feeder that is ahead of the trainer looks again.
        poll_s: float = 0.5
        # The longest pause between submissions a full Redis refused (the pause doubles from poll_s).
        full_pause_max_s: float = 10.0

        @classmethod
        def of(cls, job: JobConfig) -> "Feeder.Config":
            return cls(group_size=job.algorithm.group_size, prompts_per_step=job.batch.prompts_per_step,
                       max_staleness=job.rollout.max_staleness,
                       total_steps=job.data.total_steps if job.data else None,
                       environment_for=job.data.environment_for if job.data else (lambda data_source: ""))

        def build(self, plan: FeedPlan, prompts: PromptBuilder, dataset: OpenDataset, queue: RolloutQueue,
                  metrics: FeederMetrics | None = None) -> "Feeder":
            return Feeder(self, plan, prompts, dataset, queue, metrics or FeederMetrics(CollectorRegistry()))

    def __init__(self, config: Config, plan: FeedPlan, prompts: PromptBuilder, dataset: OpenDataset,
                 queue: RolloutQueue, metrics: FeederMetrics) -> None:
        self.config, self.plan, self.prompts, self.dataset, self.queue = config, plan, prompts, dataset, queue
        self.metrics = metrics
        self.cursor: FeedCursor | None = None
        self._full_since: float | None = None
        self._full_pause = config.poll_s

    def budget(self, progress: TrainerProgress) -> int:
        """How many positions may be submitted in total, given the trainer's progress."""
        c = self.config
        steps = progress.policy_version + 1 + c.max_staleness
        if c.total_steps is not None:
            steps = min(steps, c.total_steps)
        stats = self.queue.stats()
        lost = progress.groups_dropped + stats.stale_dropped + stats.dead_letters
        return steps * c.prompts_per_step + lost

    def _tasks(self, start: int, count: int, policy_version: int) -> list[Task]:
        tasks = []
        for position in range(start, start + count):
            epoch, row = self.plan.at(position)
            prompt = self.prompts.prompt(self.dataset, row)
            tasks.append(Task(task_id=self.plan.task_id(epoch, row), prompt_id=self.plan.prompt_id(row),
                              prompt_tokens_P=prompt.tokens_P, group_size=self.config.group_size,
                              policy_version=policy_version, label=prompt.label, verifier=prompt.verifier,
                              environment=self.config.environment_for(prompt.data_source),
                              data_source=prompt.data_source))
        return tasks

    def _finished(self, position: int, progress: TrainerProgress) -> bool:
        if self.plan.total is not None:
            return position >= self.plan.total
        return self.config.total_steps is not None and progress.policy_version >= self.config.total_steps

    def _commit(self, tasks: list[Task], cursor: FeedCursor) -> None:
        # Already stored: this very submission, applied by a Redis that went away before it
        # replied, then retried by the client (the retry found the cursor moved, by itself).
        if not self.queue.submit_feed(tasks, cursor, expected=self.cursor) and self.queue.feed_cursor() != cursor:
            raise FeedConflict(f"the feed cursor moved from {self.cursor} to {self.queue.feed_cursor()} under this "
                               "feeder: is a second feeder running on this queue namespace?")
        self.cursor = cursor
        if self._full_since is not None:
            log.info("Redis has room again: the feed goes on after %.0f s", time.monotonic() - self._full_since)
            self._full_since, self._full_pause = None, self.config.poll_s

    def _wait_for_room(self, exc: BufferFull, stop: threading.Event, beat) -> None:
        """Redis refused a submission for memory (nothing was written): wait, doubling the pause."""
        if self._full_since is None:
            self._full_since = time.monotonic()
            log.warning("%s: the feed waits for room", exc)
        beat()  # waiting on purpose is not a stall
        stop.wait(self._full_pause)
        self._full_pause = min(self._full_pause * 2, self.config.full_pause_max_s)

    def run(self, stop: threading.Event, beat=lambda: None) -> FeedCursor | None:
        m, plan = self.metrics, self.plan
        m.rows.set(plan.rows)
        self.cursor = self.queue.feed_cursor()
        if self.cursor is not None and self.cursor.plan != plan.fingerprint:
            raise DataError(f"the queue's feed cursor belongs to another dataset, filter or order ({self.cursor.plan}; "
                            f"this feed is {plan.fingerprint}): start a new job namespace for new data")
        position = self.cursor.position if self.cursor else 0
        if position:
            log.info("resuming the feed at position %d (epoch %d)", position, position // plan.rows,
                     extra={"position": position})
        while not stop.is_set():
            beat()
            progress = self.queue.trainer_progress()
            m.position.set(position)
            m.epoch.set(position // plan.rows)
            if self._finished(position, progress):
                if not (self.cursor and self.cursor.finished):
                    try:
                        self._commit([], FeedCursor(position, plan.fingerprint, finished=True))
                    except BufferFull as exc:
                        self._wait_for_room(exc, stop, beat)
                        continue
                    log.info("end of data: %d tasks in %s epochs", position, f"{position / plan.rows:g}",
                             extra={"position": position, "event": "end_of_data"})
                m.finished.set(1)
                return self.cursor
            budget = self.budget(progress)
            m.budget.set(budget)
            count = min(budget - position, self.config.batch_tasks)
            if plan.total is not None:
                count = min(count, plan.total - position)
            if count <= 0:
                stop.wait(self.config.poll_s)
                continue
            tasks = self._tasks(position, count, progress.policy_version)
            try:
                self._commit(tasks, FeedCursor(position + count, plan.fingerprint))
            except BufferFull as exc:
                self._wait_for_room(exc, stop, beat)
                continue
            position += count
            m.submitted.inc(count)
            log.info("submitted %d tasks", count, extra={"position": position, "epoch": position // plan.rows,
                                                         "policy_version": progress.policy_version})
        return self.cursor


@dataclass
class PreparedFeed:
    dataset: OpenDataset
    prompts: PromptBuilder
    plan: FeedPlan
    filtered: int


def prepare_feed(job: JobConfig, cache_dir: str) -> PreparedFeed:
    """Open the training set, check every row, and lay out the feed (DataError on bad input)."""
    from payload.data.source import open_dataset

    prompts = PromptBuilder.Config.of(job).build()
    dataset = open_dataset(job.data.train, cache_dir)
    scan = prompts.scan(dataset)
    plan = FeedPlan(dataset.fingerprint, np.asarray(scan.kept), passes=job.data.passes, shuffle=job.data.shuffle,
                    seed=job.data.seed)
    log.info("training set %s: %d rows, %d kept, %d longer than %d tokens (filtered)", dataset.path, scan.rows,
             plan.rows, scan.filtered, job.batch.max_prompt_tokens,
             extra={"rows": scan.rows, "kept": plan.rows, "filtered": scan.filtered, "fingerprint": plan.fingerprint})
    return PreparedFeed(dataset, prompts, plan, scan.filtered)
