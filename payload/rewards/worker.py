"""The `verify` worker: scores groups the rollout workers left unverified, then writes them
to the buffer. Same lease rules as a rollout worker: a group is acknowledged only together
with its scored copy; SIGTERM hands back what is in flight; a crashing verifier, or one that
hangs past `verifier_timeout_s` (killed, payload/rewards/pool.py), or whose own time limit
runs out (math-verify's), charges the group an attempt, so a group that always crashes or hangs
it ends in the dead-letter stream, never in the buffer with a made-up reward. A reward model
server that cannot be reached hands the group back uncharged (an outage is not the group's
fault) and the slot pauses. So is a scored group Redis refuses for lack of memory (BufferFull):
charging it would dead-letter healthy groups whenever Redis stays full for max_deliveries claims."""

from __future__ import annotations

import logging
import socket
import threading
from dataclasses import dataclass, field

from prometheus_client import REGISTRY, CollectorRegistry, Counter

from spec.job import RewardsSection
from payload.queue.base import BufferFull, Delivery, RolloutQueue, Stage
from payload.rewards.model import RewardModelUnavailable
from payload.rewards.pool import RewardPool

log = logging.getLogger(__name__)


class VerifyWorker:
    @dataclass
    class Config:
        name: str = field(default_factory=socket.gethostname)
        processes: int = 2
        claim_block_s: float = 2.0
        # A sample's verification outliving this kills the verifier and charges the group.
        verifier_timeout_s: float = 30.0
        verifier_modules: tuple[str, ...] = ()
        # job.rewards and the reward model's address (payload.rewards.pool).
        rewards: RewardsSection | None = None
        reward_url: str | None = None
        # After the reward model was unreachable, or Redis full, a slot pauses this long before claiming again.
        server_down_pause_s: float = 5.0

    def __init__(self, config: Config, queue: RolloutQueue, registry: CollectorRegistry = REGISTRY,
                 on_progress=lambda: None) -> None:
        self.config = config
        self.queue = queue
        self.on_progress = on_progress
        self.pool = RewardPool.Config(processes=config.processes, timeout_s=config.verifier_timeout_s,
                                      verifier_modules=config.verifier_modules, rewards=config.rewards,
                                      model_url=config.reward_url).build(registry)
        self.verified = Counter("rl_verify_groups_total", "Groups scored and written to the buffer", registry=registry)
        self.failed = Counter("rl_verify_failures_total", "Groups handed back because verification failed", registry=registry)
        self.refused = Counter("rl_verify_buffer_full_total", "Scored groups handed back uncharged: Redis was full",
                               registry=registry)
        self._lock = threading.Lock()
        self._in_flight: dict[str, Delivery] = {}

    def run(self, stop: threading.Event) -> None:
        # One slot per verifier process keeps them all busy.
        slots = [threading.Thread(target=self._slot, args=(stop,), daemon=True) for _ in range(self.config.processes)]
        for slot in slots:
            slot.start()
        stop.wait()
        for slot in slots:
            slot.join(30)
        with self._lock:
            left, self._in_flight = list(self._in_flight.values()), {}
        for delivery in left:
            self.queue.release(delivery, failed=False, reason="stopping")
        self.pool.close()

    def _slot(self, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                delivery = self.queue.claim(Stage.VERIFY, self.config.name, block_s=self.config.claim_block_s)
                self.on_progress()
                if delivery is None:
                    continue
                with self._lock:
                    self._in_flight[delivery.entry_id] = delivery
                try:
                    group = self.pool.score_group(delivery.item)
                except RewardModelUnavailable as exc:
                    log.warning("reward model unavailable, %s handed back: %s", delivery.task_id, exc)
                    self.queue.release(delivery, failed=False, reason=str(exc)[:200])
                    stop.wait(self.config.server_down_pause_s)
                    continue
                except Exception as exc:  # noqa: BLE001 - charged to the group, never fatal
                    log.error("verification of %s failed: %s", delivery.task_id, exc)
                    self.queue.release(delivery, failed=True, reason=f"verifier: {exc}"[:200])
                    self.failed.inc()
                    continue
                finally:
                    with self._lock:
                        self._in_flight.pop(delivery.entry_id, None)
                try:
                    self.queue.complete(delivery, group)
                except BufferFull as exc:
                    log.warning("%s; %s handed back uncharged", exc, delivery.task_id)
                    self.queue.release(delivery, failed=False, reason="Redis out of memory")
                    self.refused.inc()
                    stop.wait(self.config.server_down_pause_s)
                    continue
                self.verified.inc()
                self.on_progress()
            except Exception:  # noqa: BLE001 - e.g. Redis restarting: the lease is reclaimed later
                log.exception("verify slot error")
                stop.wait(1.0)
