"""The in-memory queue, shared with the demo's other processes over loopback.

The memory backend is a plain in-process object; the launcher keeps it and serves it with
`multiprocessing.managers` (pickled calls over an authenticated local socket), and every
child process wraps its proxy in `SharedQueue`: a `RolloutQueue` whose calls run in the
launcher, on the one queue. `wait_for_room` stays on the caller's side (its stop event cannot
cross processes; it only polls `buffer_fill`).
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Sequence
from multiprocessing.managers import BaseManager

from payload.queue.base import (
    Consumed,
    DeadLetter,
    Delivery,
    FeedCursor,
    PolicyPointer,
    QueueError,
    QueueStats,
    RolloutQueue,
    Stage,
    TrainerProgress,
)
from payload.queue.experience import ExperienceGroup, Task

_METHODS = ("submit", "claim", "complete", "release", "dead_letters", "buffer_fill", "consume", "ack",
            "publish_policy", "latest_policy", "stats", "submit_feed", "feed_cursor", "exhausted",
            "report_progress", "trainer_progress")


class _ServerManager(BaseManager):
    pass


class _ClientManager(BaseManager):  # a class of its own: `register` sets class-wide typeids
    pass


class QueueServer:
    """Serves `queue` on 127.0.0.1 (any free port) from a thread of this process."""

    def __init__(self, queue: RolloutQueue) -> None:
        self.authkey = secrets.token_bytes(16)
        manager = _ServerManager(address=("127.0.0.1", 0), authkey=self.authkey)
        manager.register("queue", callable=lambda: queue, exposed=_METHODS)
        self._server = manager.get_server()
        self.address: tuple[str, int] = self._server.address
        self._thread = threading.Thread(target=self._server.serve_forever, name="queue-server", daemon=True)

    def start(self) -> "QueueServer":
        self._thread.start()
        return self

    def url(self, config: RolloutQueue.Config) -> str:
        """The queue as a `--queue-url` for the payload's commands (`local://host:port?...`)."""
        host, port = self.address
        return f"local://{host}:{port}?authkey={self.authkey.hex()}&high_water_groups={config.high_water_groups}"



class SharedQueue(RolloutQueue):
    """A child's handle on the launcher's queue."""

    def __init__(self, spec: dict) -> None:
        super().__init__(RolloutQueue.Config(backend="memory", high_water_groups=spec["high_water_groups"]))
        manager = _ClientManager(address=tuple(spec["address"]), authkey=bytes.fromhex(spec["authkey"]))
        manager.register("queue")
        manager.connect()
        self._remote = manager.queue()

    @classmethod
    def from_url(cls, url: str) -> "SharedQueue":
        from urllib.parse import parse_qs, urlsplit

        parts = urlsplit(url)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        try:
            return cls({"address": [parts.hostname, parts.port], "authkey": query["authkey"],
                        "high_water_groups": int(query["high_water_groups"])})
        except (KeyError, ValueError, OSError) as exc:
            raise QueueError(f"queue url {url!r}: not a reachable local:// queue ({exc})") from None

    def submit(self, tasks: Sequence[Task]) -> None:
        self._remote.submit(list(tasks))

    def submit_feed(self, tasks: Sequence[Task], cursor: FeedCursor, expected: FeedCursor | None) -> bool:
        return self._remote.submit_feed(list(tasks), cursor, expected)

    def feed_cursor(self) -> FeedCursor | None:
        return self._remote.feed_cursor()

    def exhausted(self) -> bool:
        return self._remote.exhausted()

    def claim(self, stage: Stage, consumer: str, block_s: float = 1.0) -> Delivery | None:
        return self._remote.claim(stage, consumer, block_s)

    def complete(self, delivery: Delivery, group: ExperienceGroup) -> bool:
        return self._remote.complete(delivery, group)

    def release(self, delivery: Delivery, *, failed: bool, reason: str = "") -> None:
        self._remote.release(delivery, failed=failed, reason=reason)

    def dead_letters(self, stage: Stage) -> list[DeadLetter]:
        return self._remote.dead_letters(stage)

    def buffer_fill(self) -> int:
        return self._remote.buffer_fill()

    def consume(self, consumer: str, max_groups: int, block_s: float, current_version: int, max_staleness: int,
                stale_tokens: str = "drop_group") -> Consumed:
        return self._remote.consume(consumer, max_groups, block_s, current_version, max_staleness, stale_tokens)

    def ack(self, entry_ids: Sequence[str], *, dropped: bool = False) -> None:
        self._remote.ack(list(entry_ids), dropped=dropped)

    def report_progress(self, policy_version: int) -> None:
        self._remote.report_progress(policy_version)

    def trainer_progress(self) -> TrainerProgress:
        return self._remote.trainer_progress()

    def publish_policy(self, pointer: PolicyPointer) -> None:
        self._remote.publish_policy(pointer)

    def latest_policy(self) -> PolicyPointer | None:
        return self._remote.latest_policy()

    def stats(self) -> QueueStats:
        return self._remote.stats()
