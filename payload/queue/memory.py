"""The in-process backend: the same semantics as Redis Streams, for the one-machine loop and CI.

Items are stored encoded, exactly as they would cross the wire, so a record that Redis could
not carry fails here too. Thread-safe; not shared between processes.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Sequence
from dataclasses import dataclass

from payload.queue.base import (
    BufferedGroup,
    Consumed,
    DeadLetter,
    Delivery,
    FeedCursor,
    PolicyPointer,
    QueueStats,
    RolloutQueue,
    Stage,
    TrainerProgress,
)
from payload.queue.experience import ExperienceGroup, Task, decode_group, decode_task, encode_group, encode_task
from spec.job import drops_group


@dataclass
class _Pending:
    payload: bytes
    consumer: str
    delivered_at: float
    deliveries: int


class _WorkStream:
    def __init__(self) -> None:
        self.waiting: deque[tuple[str, bytes]] = deque()
        self.pending: OrderedDict[str, _Pending] = OrderedDict()
        self.dead: list[DeadLetter] = []
        self.done: dict[str, float] = {}  # task id -> expiry


class MemoryQueue(RolloutQueue):
    def __init__(self, config: RolloutQueue.Config) -> None:
        super().__init__(config)
        self._lock = threading.Condition()
        self._ids = itertools.count(1)
        self._streams = {stage: _WorkStream() for stage in Stage}
        self._buffer: deque[tuple[str, bytes]] = deque()
        self._unacked: dict[str, dict[str, bytes]] = {}  # trainer consumer -> entry id -> payload
        self._policy: PolicyPointer | None = None
        self._duplicates = 0
        self._stale = 0
        self._cursor: FeedCursor | None = None
        self._progress = TrainerProgress()

    def _next_id(self) -> str:
        return f"{next(self._ids)}-0"

    @staticmethod
    def _decode(stage: Stage, payload: bytes) -> Task | ExperienceGroup:
        return decode_task(payload) if stage is Stage.ROLLOUT else decode_group(payload)

    def submit(self, tasks: Sequence[Task]) -> None:
        encoded = [encode_task(t) for t in tasks]
        with self._lock:
            self._streams[Stage.ROLLOUT].waiting.extend((self._next_id(), p) for p in encoded)
            self._lock.notify_all()

    def submit_feed(self, tasks: Sequence[Task], cursor: FeedCursor, expected: FeedCursor | None) -> bool:
        encoded = [encode_task(t) for t in tasks]
        with self._lock:
            if self._cursor != expected:
                return False
            self._streams[Stage.ROLLOUT].waiting.extend((self._next_id(), p) for p in encoded)
            self._cursor = cursor
            self._lock.notify_all()
            return True

    def feed_cursor(self) -> FeedCursor | None:
        with self._lock:
            return self._cursor

    def exhausted(self) -> bool:
        with self._lock:
            rollout, verify = self._streams[Stage.ROLLOUT], self._streams[Stage.VERIFY]
            return (self._cursor is not None and self._cursor.finished and not rollout.waiting and not rollout.pending
                    and not verify.waiting and not verify.pending and not self._buffer)

    def _reclaim(self, stream: _WorkStream, stage: Stage, consumer: str) -> Delivery | None:
        now = time.monotonic()
        for entry_id, pending in list(stream.pending.items()):
            if now - pending.delivered_at < self.config.visibility_timeout_s:
                continue
            if pending.deliveries >= self.config.max_deliveries:
                del stream.pending[entry_id]
                stream.dead.append(DeadLetter(stage, entry_id, pending.payload, pending.deliveries, "visibility timeout"))
                continue
            pending.consumer, pending.delivered_at = consumer, now
            pending.deliveries += 1
            stream.pending.move_to_end(entry_id)
            return Delivery(stage, entry_id, self._decode(stage, pending.payload), pending.deliveries, consumer)
        return None

    def claim(self, stage: Stage, consumer: str, block_s: float = 1.0) -> Delivery | None:
        stream = self._streams[stage]
        deadline = time.monotonic() + block_s
        with self._lock:
            while True:
                delivery = self._reclaim(stream, stage, consumer)
                if delivery is not None:
                    return delivery
                if stream.waiting:
                    entry_id, payload = stream.waiting.popleft()
                    stream.pending[entry_id] = _Pending(payload, consumer, time.monotonic(), 1)
                    return Delivery(stage, entry_id, self._decode(stage, payload), 1, consumer)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                # Wake for new work, or when the oldest pending item could become reclaimable.
                self._lock.wait(min(remaining, max(self.config.visibility_timeout_s / 4, 0.01)))

    def complete(self, delivery: Delivery, group: ExperienceGroup) -> bool:
        payload = encode_group(group)
        stream = self._streams[delivery.stage]
        with self._lock:
            now = time.monotonic()
            fresh = stream.done.get(group.task_id, 0.0) <= now
            if fresh:
                stream.done[group.task_id] = now + self.config.dedup_ttl_s
                target = self._buffer if group.verified else self._streams[Stage.VERIFY].waiting
                target.append((self._next_id(), payload))
            else:
                self._duplicates += 1
            stream.pending.pop(delivery.entry_id, None)
            self._lock.notify_all()
            return fresh

    def release(self, delivery: Delivery, *, failed: bool, reason: str = "") -> None:
        stream = self._streams[delivery.stage]
        with self._lock:
            pending = stream.pending.get(delivery.entry_id)
            if pending is None or pending.consumer != delivery.consumer:
                return  # already completed, or reclaimed by another consumer
            if failed and pending.deliveries >= self.config.max_deliveries:
                del stream.pending[delivery.entry_id]
                stream.dead.append(
                    DeadLetter(delivery.stage, delivery.entry_id, pending.payload, pending.deliveries, reason or "failed")
                )
                return
            if not failed:
                pending.deliveries -= 1
            pending.delivered_at = -float("inf")  # reclaimable now
            self._lock.notify_all()

    def dead_letters(self, stage: Stage) -> list[DeadLetter]:
        with self._lock:
            return list(self._streams[stage].dead)

    def buffer_fill(self) -> int:
        with self._lock:
            verify = self._streams[Stage.VERIFY]
            unacked = sum(len(u) for u in self._unacked.values())
            return len(self._buffer) + unacked + len(verify.waiting) + len(verify.pending)

    def consume(
        self, consumer: str, max_groups: int, block_s: float, current_version: int, max_staleness: int,
        stale_tokens: str = "drop_group",
    ) -> Consumed:
        deadline = time.monotonic() + block_s
        result = Consumed()
        with self._lock:
            unacked = self._unacked.setdefault(consumer, {})
            while not self._buffer and time.monotonic() < deadline:
                self._lock.wait(deadline - time.monotonic())
            while self._buffer and len(result.groups) < max_groups:
                entry_id, payload = self._buffer.popleft()
                group = decode_group(payload)
                if drops_group(group.policy_version, group.newest_version, current_version, max_staleness, stale_tokens):
                    self._stale += 1
                    result.stale.append(group)
                    continue
                unacked[entry_id] = payload
                result.groups.append(BufferedGroup(entry_id, group))
            self._lock.notify_all()
        return result

    def ack(self, entry_ids: Sequence[str], *, dropped: bool = False) -> None:
        with self._lock:
            for unacked in self._unacked.values():
                for entry_id in entry_ids:
                    unacked.pop(entry_id, None)
            if dropped:
                p = self._progress
                self._progress = TrainerProgress(p.policy_version, p.groups_dropped + len(entry_ids))
            self._lock.notify_all()

    def report_progress(self, policy_version: int) -> None:
        with self._lock:
            self._progress = TrainerProgress(policy_version, self._progress.groups_dropped)

    def trainer_progress(self) -> TrainerProgress:
        with self._lock:
            return self._progress

    def publish_policy(self, pointer: PolicyPointer) -> None:
        with self._lock:
            if self._policy is None or pointer.version >= self._policy.version:
                self._policy = pointer

    def latest_policy(self) -> PolicyPointer | None:
        with self._lock:
            return self._policy

    def stats(self) -> QueueStats:
        with self._lock:
            rollout, verify = self._streams[Stage.ROLLOUT], self._streams[Stage.VERIFY]
            unacked = sum(len(u) for u in self._unacked.values())
            return QueueStats(
                tasks_waiting=len(rollout.waiting),
                tasks_in_flight=len(rollout.pending),
                verify_waiting=len(verify.waiting),
                verify_in_flight=len(verify.pending),
                buffer_fill=len(self._buffer) + unacked + len(verify.waiting) + len(verify.pending),
                dead_letters=len(rollout.dead) + len(verify.dead),
                duplicates=self._duplicates,
                stale_dropped=self._stale,
            )
