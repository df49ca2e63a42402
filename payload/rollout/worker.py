"""The rollout worker: task in, one experience group out, acknowledged together.

    worker = RolloutWorker(RolloutWorker.Config(name="pod-7"), queue, client)
    worker.run(stop)          # until `stop` is set (SIGTERM), then drains

Each of `concurrency` slots loops: wait for room in the buffer (backpressure) → claim a task
→ ask the server for its G samples → score them (inline verifier) or leave them for the
verifiers → `complete` (write the group + acknowledge the task, atomically).

What can go wrong and what happens:
- the worker is SIGKILLed (spot reclaim without notice): its tasks stay pending and are
  reclaimed by live workers after the queue's visibility timeout;
- SIGTERM (the two-minute spot notice): slots stop claiming, in-flight tasks get
  `drain_timeout_s` to finish, what is left is handed back without charging an attempt;
- the server fails or is unreachable: the client retries with backoff, then the task is
  handed back (not charged: an outage is not the task's fault) and the slot backs off;
- the server answers every attempt for this task with an error (HTTP 500, or a connection it
  drops mid-request) yet generates for its own health check: the task is the cause, so it is charged (the reason says so) and
  reaches the dead-letter stream after max_deliveries instead of circling forever;
- Redis refuses the group for lack of memory (BufferFull): the task is handed back without
  charge and the slot backs off; producers already wait below the byte high-water mark;
- the server rejects the request (4xx) or a verifier crashes: handed back and charged, so a
  poison task reaches the dead-letter stream instead of looping forever; so is a task naming
  an environment this build lacks, or one whose tokenizer has no usable chat template;
- a multi-turn task's tool sandbox is unreachable: handed back without charge, the slot backs off;
  so is a task whose inline reward model (job.rewards) cannot be reached;
- the worker dies mid-conversation: the conversation is lost and replayed from the prompt by
  whoever reclaims the task (payload.rollout.episode says why restart, not resume);
- Redis is restarting: redis-py reconnects with backoff; a slot that still gets an error
  logs it and carries on: the task it held is reclaimed after the visibility timeout.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from dataclasses import dataclass, field

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram

from spec import signals
from payload.envs.base import ToolEnvironmentError
from spec.job import RewardsSection
from payload.queue.base import BufferFull, Delivery, RolloutQueue, Stage
from payload.queue.experience import ExperienceGroup, Sample, Task
from payload.rollout.chat import ChatTemplateError, ChatTurns
from payload.rollout.client import (RequestRejected, SamplingParams, ServerUnavailable, SGLangClient, Stopped,
                                    integer_spans)
from payload.rewards.model import RewardModelUnavailable
from payload.rollout.episode import EpisodeRunner
from payload.sandbox.jail import SandboxError

log = logging.getLogger(__name__)


class _Metrics:
    def __init__(self, registry: CollectorRegistry) -> None:
        h = signals.HELP
        self.groups = Counter(signals.ROLLOUT_GROUPS_PRODUCED, h[signals.ROLLOUT_GROUPS_PRODUCED], registry=registry)
        self.tokens = Counter(signals.ROLLOUT_TOKENS_GENERATED, h[signals.ROLLOUT_TOKENS_GENERATED], registry=registry)
        self.busy = Counter(signals.ROLLOUT_BUSY_SECONDS, h[signals.ROLLOUT_BUSY_SECONDS], registry=registry)
        self.idle = Counter(signals.ROLLOUT_IDLE_SECONDS, h[signals.ROLLOUT_IDLE_SECONDS], registry=registry)
        self.duplicates = Counter(
            "rl_rollout_duplicates_total", "Groups not written because the task's group already existed", registry=registry
        )
        self.released = Counter(
            "rl_rollout_tasks_released_total", "Tasks handed back to the queue, by reason", ["reason"], registry=registry
        )
        self.retries = Counter("rl_rollout_request_retries_total", "Generation requests retried", registry=registry)
        self.waiting = Gauge(
            "rl_rollout_backpressure_waiting", "Slots waiting because the buffer is at its high-water mark", registry=registry
        )
        self.in_flight = Gauge("rl_rollout_tasks_in_flight", "Tasks this worker holds", registry=registry)
        self.group_seconds = Histogram(
            "rl_rollout_group_seconds", "Seconds from claiming a task to writing its group",
            buckets=(0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800), registry=registry,
        )


class RolloutWorker:
    @dataclass
    class Config:
        name: str = field(default_factory=socket.gethostname)
        # Tasks in flight per worker: enough to keep the server's batch full.
        concurrency: int = 4
        sampling: SamplingParams = field(default_factory=SamplingParams)
        # Score in this process (cheap verifiers) or leave the group to `verify` workers.
        inline_verifier: bool = True
        verifier_processes: int = 1
        # job.rewards and the reward model's address, for the inline verifier (payload.rewards.pool).
        rewards: RewardsSection | None = None
        reward_url: str | None = None
        claim_block_s: float = 2.0
        # Less than the pod's terminationGracePeriodSeconds (spot notices give two minutes).
        drain_timeout_s: float = 90.0
        # After ServerUnavailable, a slot pauses this long before claiming again.
        server_down_pause_s: float = 5.0
        # Multi-turn tasks (Task.environment): the policy's tokenizer directory (its chat
        # template frames the environment's replies), loaded on the first such task.
        chat_tokenizer_path: str | None = None
        chat_template_kwargs: dict = field(default_factory=dict)
        episode: EpisodeRunner.Config = field(default_factory=EpisodeRunner.Config)

    def __init__(
        self,
        config: Config,
        queue: RolloutQueue,
        client: SGLangClient,
        registry: CollectorRegistry = REGISTRY,
        on_progress=lambda: None,
        chat: ChatTurns | None = None,
    ) -> None:
        self.config = config
        self.queue = queue
        self.client = client
        self.metrics = _Metrics(registry)
        self.on_progress = on_progress
        self._pool = None
        if config.inline_verifier:
            from payload.rewards import RewardPool

            self._pool = RewardPool.Config(processes=config.verifier_processes, rewards=config.rewards,
                                           model_url=config.reward_url).build(registry)
        self._lock = threading.Lock()
        self._in_flight: dict[str, Delivery] = {}
        self._retries_seen = 0
        # Given (a job with environments): multi-turn from the start; else made on the first such task.
        self._episodes = None if chat is None else EpisodeRunner(config.episode, client, chat)
        self._episodes_lock = threading.Lock()

    # -- the process ----------------------------------------------------------------------------

    def run(self, stop: threading.Event) -> None:
        """Serve until `stop` is set, then drain and hand back what is left."""
        slots = [
            threading.Thread(target=self._slot, args=(stop,), name=f"slot-{i}", daemon=True)
            for i in range(self.config.concurrency)
        ]
        for slot in slots:
            slot.start()
        stop.wait()
        log.info("stopping: draining %d in-flight tasks for up to %.0f s", len(self._in_flight), self.config.drain_timeout_s)
        deadline = time.monotonic() + self.config.drain_timeout_s
        for slot in slots:
            slot.join(max(0.0, deadline - time.monotonic()))
        self.hand_back_all("drain timeout")
        if self._pool is not None:
            self._pool.close()

    def hand_back_all(self, reason: str) -> None:
        with self._lock:
            left = list(self._in_flight.values())
            self._in_flight.clear()
        for delivery in left:
            try:
                self.queue.release(delivery, failed=False, reason=reason)
                self.metrics.released.labels("preempted").inc()
                log.info("handed back task %s", delivery.task_id, extra={"task_id": delivery.task_id})
            except Exception as exc:  # noqa: BLE001 - the visibility timeout reclaims it anyway
                log.warning("could not hand back %s (%s): it is reclaimed after the visibility timeout", delivery.task_id, exc)

    # -- one slot -------------------------------------------------------------------------------

    def _slot(self, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                self._step(stop)
            except Exception:  # noqa: BLE001 - a slot never dies; the task it held is reclaimed
                log.exception("rollout slot error")
                stop.wait(1.0)

    def _step(self, stop: threading.Event) -> None:
        start = time.monotonic()
        self.metrics.waiting.inc()
        try:
            room = self.queue.wait_for_room(1.0, stop)
        finally:
            self.metrics.waiting.dec()
        if not room:
            self.metrics.idle.inc(time.monotonic() - start)
            self.on_progress()  # waiting on purpose is not a stall
            return
        delivery = self.queue.claim(Stage.ROLLOUT, self.config.name, block_s=self.config.claim_block_s)
        self.on_progress()
        if delivery is None:
            return
        if stop.is_set():  # SIGTERM arrived during the claim
            self.queue.release(delivery, failed=False, reason="stopping")
            return
        with self._lock:
            self._in_flight[delivery.entry_id] = delivery
        self.metrics.in_flight.inc()
        try:
            self._process(delivery, stop)
        finally:
            self.metrics.in_flight.dec()
            with self._lock:
                self._in_flight.pop(delivery.entry_id, None)

    def _release(self, delivery: Delivery, failed: bool, reason: str, label: str) -> None:
        with self._lock:
            if self._in_flight.pop(delivery.entry_id, None) is None:
                return  # the drain already handed it back
        self.queue.release(delivery, failed=failed, reason=reason)
        self.metrics.released.labels(label).inc()

    def _process(self, delivery: Delivery, stop: threading.Event) -> None:
        task: Task = delivery.item
        start = time.monotonic()
        extra = {"task_id": task.task_id, "deliveries": delivery.deliveries}
        try:
            group = self.rollout(task, stop)
        except Stopped:
            self._release(delivery, False, "stopping", "preempted")
            return
        except ServerUnavailable as exc:
            if exc.answered and self.client.generates():
                log.error("server healthy but failed task %s every attempt, charged an attempt: %s", task.task_id, exc,
                          extra=extra)
                self._release(delivery, True, f"failed every attempt on a healthy server: {exc}"[:300], "task_failed")
                return
            log.warning("server unavailable, task %s handed back: %s", task.task_id, exc, extra=extra)
            self._release(delivery, False, str(exc)[:200], "server_unavailable")
            stop.wait(self.config.server_down_pause_s)
            return
        except RequestRejected as exc:
            log.error("request rejected, task %s charged an attempt: %s", task.task_id, exc, extra=extra)
            self._release(delivery, True, str(exc)[:200], "rejected")
            return
        except SandboxError as exc:
            # The code tool's sandbox pool is down (not the task's fault): handed back uncharged.
            log.warning("sandbox unavailable, task %s handed back: %s", task.task_id, exc, extra=extra)
            self._release(delivery, False, str(exc)[:200], "sandbox_unavailable")
            stop.wait(self.config.server_down_pause_s)
            return
        except (ToolEnvironmentError, ChatTemplateError) as exc:
            # A task naming an unknown environment, or a tokenizer that cannot frame its
            # replies: charged, so it reaches the dead-letter stream instead of circling.
            log.error("task %s cannot be played: %s", task.task_id, exc, extra=extra)
            self._release(delivery, True, str(exc)[:200], "rejected")
            return
        finally:
            self.metrics.busy.inc(time.monotonic() - start)
            self._count_retries()
        # An environment that scores its own episodes leaves nothing for the verifier.
        if self._pool is not None and not group.verified:
            try:
                self._pool.score_group(group)
            except RewardModelUnavailable as exc:
                log.warning("reward model unavailable, task %s handed back: %s", task.task_id, exc, extra=extra)
                self._release(delivery, False, str(exc)[:200], "reward_model_unavailable")
                stop.wait(self.config.server_down_pause_s)
                return
            except Exception as exc:  # noqa: BLE001 - a verifier failure is charged to the task
                log.error("verifier failed on %s: %s", task.task_id, exc, extra=extra)
                self._release(delivery, True, f"verifier: {exc}"[:200], "verifier_failed")
                return
        with self._lock:
            if self._in_flight.get(delivery.entry_id) is None:
                return  # handed back by the drain meanwhile; another worker redoes it
        try:
            written = self.queue.complete(delivery, group)
        except BufferFull as exc:
            log.error("%s; task %s handed back", exc, task.task_id, extra=extra)
            self._release(delivery, False, "Redis out of memory", "buffer_full")
            stop.wait(self.config.server_down_pause_s)
            return
        self.on_progress()
        if written:
            self.metrics.groups.inc()
            # The policy's tokens only: a multi-turn response also holds the tools' replies.
            self.metrics.tokens.inc(sum(len(s.token_ids_T) if s.loss_mask_T is None else int(s.loss_mask_T.sum())
                                        for s in group.samples))
            self.metrics.group_seconds.observe(time.monotonic() - start)
            log.info("group written", extra={**extra, "policy_version": group.policy_version})
        else:
            self.metrics.duplicates.inc()
            log.info("duplicate group not written (the task was finished elsewhere)", extra=extra)

    def _count_retries(self) -> None:
        retries = self.client.retries
        with self._lock:
            new, self._retries_seen = retries - self._retries_seen, retries
        if new > 0:
            self.metrics.retries.inc(new)

    def _episode_runner(self) -> EpisodeRunner:
        with self._episodes_lock:
            if self._episodes is None:
                if self.config.chat_tokenizer_path is None:
                    raise ChatTemplateError("a multi-turn task needs the policy's tokenizer (job model.path)")
                chat = ChatTurns.from_pretrained(self.config.chat_tokenizer_path, self.config.chat_template_kwargs)
                self._episodes = EpisodeRunner(self.config.episode, self.client, chat)
            return self._episodes

    def rollout(self, task: Task, stop: threading.Event | None = None) -> ExperienceGroup:
        """The task's G samples as an experience group (unscored unless its environment scored it)."""
        if task.environment:
            return self._episode_runner().rollout(task, self.config.sampling, self.config.name, stop)
        generations = self.client.generate(task.prompt_tokens_P, task.group_size, self.config.sampling, stop,
                                           session=task.task_id)
        # Each generation's oldest span (client.Generation.weight_version), and the group's oldest
        # of those: staleness is counted from the oldest weights any of its tokens came from.
        versions = [int(g.weight_version) for g in generations if g.weight_version.isdigit()]
        # Servers started by `serve` always carry an integer version; a bare SGLang says "default".
        version = min(versions) if len(versions) == len(generations) else task.policy_version
        # And every token's own version (SGLang's spans), kept for the trainer's per-token staleness.
        spans = [integer_spans(g.weight_spans) for g in generations]
        if len(versions) != len(generations) or any(s is None for s in spans):
            spans = [None] * len(generations)
        samples = [
            Sample(
                token_ids_T=g.token_ids_T,
                logprobs_T=g.logprobs_T,
                finish_reason=g.finish_reason,
                text=g.text,
                routed_experts_SLK=g.routed_experts_SLK,
                version_spans=span,
            )
            for g, span in zip(generations, spans)
        ]
        return ExperienceGroup(
            task_id=task.task_id,
            prompt_id=task.prompt_id,
            policy_version=version,
            prompt_tokens_P=task.prompt_tokens_P,
            samples=samples,
            label=task.label,
            verifier=task.verifier,
            worker=self.config.name,
            data_source=task.data_source,
        )
