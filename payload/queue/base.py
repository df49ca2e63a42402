"""The queue interface every backend implements, and what each call guarantees.

Three stages, each a stream of work with at-least-once delivery and exactly-once results:

    submit(tasks) ──► ROLLOUT ──claim/complete──► VERIFY (groups awaiting a verifier) ──► buffer
                                 └── group already verified (inline verifier) ──────────► buffer
    buffer ──consume/ack──► trainer

- `claim` hands one item to one consumer. It stays pending (owned, invisible to others)
  until `complete` or `release`; if its consumer dies it becomes claimable again once idle
  for `visibility_timeout_s`. Every hand-out counts as a delivery; an item that would be
  delivered more than `max_deliveries` times goes to the stage's dead-letter list instead.
- `complete` writes the result and acknowledges the item in one atomic step. The result's
  identity is the task id: a second `complete` for the same task (a slow worker whose task
  was reclaimed and finished elsewhere) acknowledges but writes nothing and returns False.
- `release` hands an item back at once (SIGTERM, server unavailable); `failed=True` counts the
  attempt toward `max_deliveries`, `failed=False` (a preempted worker) does not.
- The buffer has a high-water mark: producers call `wait_for_room` before claiming new work,
  so a slow trainer makes rollouts wait (counted), never drops them. The mark is in groups
  and, for Redis, in bytes (`high_water_bytes`, a share of the server's maxmemory): a group
  with routed experts can be hundreds of MB, so a count alone lets Redis run out of memory.
- `consume` returns buffered groups to the trainer and drops (acknowledges, counts, returns
  separately) those older than `max_staleness` policy versions (spec.job.drops_group: by the
  group's oldest token, or under rollout.stale_tokens mask its newest); groups count toward the
  buffer fill until `ack`. (Redis: a restarted trainer process that consumes under the same
  consumer name first gets back the groups it had not acknowledged.)

The feed (the dataset feeder, the one producer of tasks on a cluster):
- `submit_feed(tasks, cursor, expected)` adds the tasks and moves the feed's cursor in one
  atomic step, and only if the stored cursor is still `expected`: a feeder killed at any
  instruction and restarted from the stored cursor submits every position exactly once.
- A cursor with `finished` set is the end of the data: `exhausted()` is true once it is set
  and no task waits, runs, awaits a verifier or sits unread in the buffer; the trainer then
  trains what it holds as its last step and exits.
- The trainer reports its policy version after each publish (`report_progress`) and counts
  the groups it takes without training (`ack(..., dropped=True)`); the feeder reads both
  (`trainer_progress`) to keep only what the trainer can use ahead of it.
"""

from __future__ import annotations

import enum
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from payload.queue.experience import ExperienceGroup, Task


class QueueError(RuntimeError):
    """The queue cannot do what was asked (bad configuration, unreachable backend)."""


class QueueUnavailable(QueueError):
    """The backend stayed unreachable for longer than the outage this process rides out."""


class BufferFull(QueueError):
    """Redis refused a write for lack of memory (maxmemory reached, noeviction)."""


class Stage(enum.Enum):
    ROLLOUT = "rollout"
    VERIFY = "verify"


@dataclass
class Delivery:
    """One hand-out of a task (ROLLOUT) or an unverified group (VERIFY) to a consumer."""

    stage: Stage
    entry_id: str
    item: Task | ExperienceGroup
    # 1 on first hand-out; grows with each reclaim (and with each failed release).
    deliveries: int
    consumer: str

    @property
    def task_id(self) -> str:
        return self.item.task_id


@dataclass
class DeadLetter:
    stage: Stage
    entry_id: str
    payload: bytes
    deliveries: int
    reason: str


@dataclass
class BufferedGroup:
    entry_id: str
    group: ExperienceGroup


@dataclass
class Consumed:
    groups: list[BufferedGroup] = field(default_factory=list)
    # Dropped for staleness (already acknowledged): the caller counts them or re-issues the prompts.
    stale: list[ExperienceGroup] = field(default_factory=list)


@dataclass(frozen=True)
class PolicyPointer:
    """The newest weights exported to shared storage: where a (re)started rollout server loads from."""

    version: int
    path: str


@dataclass(frozen=True)
class FeedCursor:
    """How far the feed got: positions submitted, of which sequence (see payload.data.plan)."""

    position: int
    plan: str
    finished: bool = False


@dataclass(frozen=True)
class TrainerProgress:
    policy_version: int = 0  # the newest version the trainer published (0: none yet)
    groups_dropped: int = 0  # groups the trainer took and did not train on (filtered, wrong size, replayed)


@dataclass
class QueueStats:
    tasks_waiting: int  # submitted, never handed out
    tasks_in_flight: int  # handed out, not completed (includes those of dead workers until reclaimed)
    verify_waiting: int
    verify_in_flight: int
    buffer_fill: int  # groups in the buffer not acknowledged by the trainer (+ those awaiting verification)
    dead_letters: int
    duplicates: int  # completes refused because the task's group already existed
    stale_dropped: int


class RolloutQueue(ABC):
    @dataclass
    class Config:
        backend: Literal["memory", "redis"] = "memory"
        url: str = "redis://localhost:6379/0"
        # Key prefix: one RL job per namespace on a shared Redis.
        namespace: str = "rl"
        # A handed-out item whose consumer went silent this long is reclaimed by another one.
        # Longer than the slowest rollout of a group, shorter than a tolerable stall.
        visibility_timeout_s: float = 600.0
        max_deliveries: int = 3
        high_water_groups: int = 1024
        # Producers also wait while Redis's used memory is at or above this (None: 80% of the
        # server's maxmemory; no maxmemory: no byte mark). The memory backend has none.
        high_water_bytes: int | None = None
        # A connection error is retried for this long before the call fails (QueueUnavailable):
        # a Redis pod rescheduled onto another node and replaying its append-only file.
        outage_s: float = 300.0
        # A reply that has not come this long means a dead connection (a Redis pod whose IP
        # vanished leaves a half-open TCP connection that would hang the call forever): it is
        # dropped and retried like any connection error. Longer than any blocking read (redis-py
        # 8 defaults to 5 s without saying so; named here so the block limit can check it).
        reply_timeout_s: float = 10.0
        # How long a finished task id is remembered for duplicate detection.
        dedup_ttl_s: int = 7 * 24 * 3600
        # How long `build()` waits for Redis to answer (pods may start before the Redis pod).
        connect_timeout_s: float = 60.0

        def __post_init__(self) -> None:
            if self.backend not in ("memory", "redis"):
                raise QueueError(f"queue backend {self.backend!r}: must be 'memory' or 'redis'")
            for name in ("visibility_timeout_s", "max_deliveries", "high_water_groups", "dedup_ttl_s", "outage_s",
                         "reply_timeout_s"):
                if getattr(self, name) <= 0:
                    raise QueueError(f"queue {name}={getattr(self, name)!r}: must be positive")
            if self.high_water_bytes is not None and self.high_water_bytes <= 0:
                raise QueueError(f"queue high_water_bytes={self.high_water_bytes!r}: must be positive")

        def build(self) -> "RolloutQueue":
            if self.backend == "memory":
                from payload.queue.memory import MemoryQueue

                return MemoryQueue(self)
            from payload.queue.redis_streams import RedisQueue

            return RedisQueue(self)

    def __init__(self, config: Config) -> None:
        self.config = config
        self.high_water_bytes = config.high_water_bytes
        self._room_known_until = 0.0

    # -- producers of tasks (the trainer's prompt feeder) ---------------------------------------
    @abstractmethod
    def submit(self, tasks: Sequence[Task]) -> None: ...

    @abstractmethod
    def submit_feed(self, tasks: Sequence[Task], cursor: FeedCursor, expected: FeedCursor | None) -> bool:
        """Submit `tasks` and store `cursor`, atomically, if the stored cursor equals `expected`
        (None: no cursor yet); else submit nothing and return False."""

    @abstractmethod
    def feed_cursor(self) -> FeedCursor | None: ...

    @abstractmethod
    def exhausted(self) -> bool:
        """The feed is finished and every task it submitted has left the pipeline or is held
        by the trainer (nothing waiting, in flight, awaiting a verifier or unread in the buffer)."""

    # -- rollout workers and verifiers -----------------------------------------------------------
    @abstractmethod
    def claim(self, stage: Stage, consumer: str, block_s: float = 1.0) -> Delivery | None:
        """The oldest reclaimable item, else a new one (waiting up to block_s), else None."""

    @abstractmethod
    def complete(self, delivery: Delivery, group: ExperienceGroup) -> bool:
        """Write `group` (to the buffer when verified, else to VERIFY) and acknowledge the delivery."""

    @abstractmethod
    def release(self, delivery: Delivery, *, failed: bool, reason: str = "") -> None: ...

    @abstractmethod
    def dead_letters(self, stage: Stage) -> list[DeadLetter]: ...

    # -- backpressure ---------------------------------------------------------------------------
    @abstractmethod
    def buffer_fill(self) -> int: ...

    def _fill_and_bytes(self) -> tuple[int, int | None]:
        """The buffer fill in groups and the backend's used memory in bytes (None: not counted)."""
        return self.buffer_fill(), None

    # A fill well below the high-water mark is trusted this long without asking again: the
    # check is a round trip per task otherwise, and the mark is a soft limit (every producer
    # together can overshoot it by what they write in this window).
    ROOM_CACHE_S = 0.2

    def wait_for_room(self, timeout_s: float, stop: threading.Event | None = None) -> bool:
        """True once the buffer is below its high-water mark; False on timeout or stop."""
        now = time.monotonic()
        if now < self._room_known_until:
            return True
        deadline = now + timeout_s
        pause = 0.01
        groups, limit = self.config.high_water_groups, self.high_water_bytes
        while True:
            fill, used = self._fill_and_bytes()
            over_bytes = limit is not None and used is not None and used >= limit
            if fill < groups and not over_bytes:
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0 or (stop is not None and stop.is_set()):
                return False
            time.sleep(min(pause, remaining))
            pause = min(pause * 2, 0.5)
        if fill <= 0.9 * groups and (limit is None or used is None or used <= 0.9 * limit):
            self._room_known_until = time.monotonic() + self.ROOM_CACHE_S
        return True

    # -- the trainer ----------------------------------------------------------------------------
    @abstractmethod
    def consume(
        self, consumer: str, max_groups: int, block_s: float, current_version: int, max_staleness: int,
        stale_tokens: str = "drop_group",
    ) -> Consumed:
        """Up to `max_groups` buffered groups for `consumer`; groups spec.job.drops_group drops
        under rollout.stale_tokens (by their oldest token, or with mask their newest) come back
        in `stale`, acknowledged and counted, never trained."""

    @abstractmethod
    def ack(self, entry_ids: Sequence[str], *, dropped: bool = False) -> None:
        """Acknowledge consumed groups; `dropped`: the trainer did not train on them (counted)."""

    @abstractmethod
    def report_progress(self, policy_version: int) -> None: ...

    @abstractmethod
    def trainer_progress(self) -> TrainerProgress: ...

    # -- weights for (re)starting rollout servers -------------------------------------------------
    @abstractmethod
    def publish_policy(self, pointer: PolicyPointer) -> None: ...

    @abstractmethod
    def latest_policy(self) -> PolicyPointer | None: ...

    @abstractmethod
    def stats(self) -> QueueStats: ...

    def close(self) -> None:
        """Release connections (the memory backend has none)."""
