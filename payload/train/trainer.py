"""The policy trainer loop: experience in, optimizer steps, weights out, checkpoints.

Per step, on every rank (torchrun):

    wait_experience  rank 0 takes `prompts_per_step` groups from the buffer (dropping stale
                     ones, and equal-reward ones under DAPO filtering), writes them to the
                     replay log, acknowledges them, computes group advantages, splits the
                     samples over the ranks by token count and scatters each rank its part
    train_step       each rank packs its part into micro-batches and trains (train_step)
    publish          each rank stages its own rows of the bf16 weights in host memory (the stall),
                     then behind the next step each replica all-gathers them bucket by bucket and
                     every node's GPUs feed its servers, one at a time (payload/sync/fanout.py)
    export           every checkpoint.export_interval_steps: an HF directory for restarts
    checkpoint       every checkpoint.interval_steps, and on SIGTERM or the last step

End of data: when the feed's cursor is finished and nothing is left in the pipeline
(RolloutQueue.exhausted), the groups in hand are the last step (none: no step); the trainer
then checkpoints, exports and returns, and the pod exits 0. After each publish rank 0 reports
the policy version to the queue: the feeder paces itself by it.

Rank 0 exports the balance signals (spec.signals) to Prometheus and one JSON line
per step; the phase watchdog names a phase that stalls.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import shutil
import time
from dataclasses import asdict, dataclass, field, replace
from datetime import timedelta
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
from prometheus_client import CollectorRegistry, Counter, Gauge

from payload import ep
from spec import signals
from payload.common.service import Service
from spec.hardware import node_of_device
from spec.job import JobConfig
from payload.model import Qwen3MoeConfig
from payload.queue.base import PolicyPointer, RolloutQueue
from payload.queue.experience import ExperienceGroup
from payload.sync.client import RolloutServerClient
from payload.sync.probe import PublishProbe
from payload.sync.fanout import FanOutPublisher, Outcome
from payload.sync.publisher import WeightPublisher
from payload.train import deadline
from payload.train.advantages import group_advantages
from payload.train.shaping import length_metrics, shaped_rewards
from payload.train.batch import (MicroBatch, Sample, TokenVersions, mask_stale_tokens, micro_batches, packed_for_rank,
                                 split_for_ranks)
from payload.train.checkpoint import Checkpointer, TrainCounters, latest
from payload.train.export import export_hf
from estimate.footprint import device_memory_gb, pipeline_budget, trainer_keeps_logits
from estimate.layout import with_publish_bucket
from payload.train.loading import load_sharded
from payload.train.parallel import init_world, job_layout, own_hf_rows
from payload.train.pipeline import PipelineScorer, pipeline_train_step
from payload.train.step import LossConfig, build_optimizer, train_step
from payload.train.tracking import EventFiles, TENSORBOARD_DIR, Tracker, TrackingConfigError, flatten, pick_samples, sample_line
from payload.train.watchdog import PhaseWatchdog

log = logging.getLogger(__name__)

_DTYPES = {"bfloat16": torch.bfloat16, "float32": torch.float32}
# Per-step numbers that also go to Prometheus as gauges (rl_trainer_<name>).
_STEP_GAUGES = ("loss", "policy_loss", "kl_loss", "clip_fraction", "approx_kl", "grad_norm", "mean_reward",
                "response_length_mean", "tis_weight_mean", "rollout_logprob_diff", "rollout_kl",
                "response_length_max", "response_length_p95", "response_clip_ratio", "overlong_penalty_mean",
                "off_policy_masked_fraction", "old_version_token_fraction", "stale_masked_token_fraction")


class TrainerConfigError(ValueError):
    """A trainer setting that cannot work (resume path, model vs job): one line."""


# What rank 0 scatters instead of a step's samples when a failed publish is due again.
REPUBLISH = "republish"


class PublishStalled(RuntimeError):
    """Publishes kept failing until every group the servers make is too stale to train on."""


@dataclass
class PublishFailures:
    """Consecutive failed publishes (rank 0). Servers left on version v make groups of version
    v; once the trainer is more than `max_staleness` steps past v every one of them is dropped
    as stale (and the feeder replaces each with the next row), so the run would go on
    consuming its data without training on it. One failure more than max_staleness stops it.

    A failed publish reached no server, and the publisher holds every server it reached paused
    (partly updated weights): no group comes until a publish completes. So the trainer does not
    wait for the next step's groups to publish again: it publishes the same weights again
    every `retry_s` while it waits (Trainer.run). With the stall watchdog's timeout W,
    retry_s = W / (2 x (max_staleness + 1)): the run stops, checkpointed, W / 2 plus the failed
    attempts' own time after its first failure (max_staleness + 1 attempts; max_staleness 0: at
    once), no phase lasting W (the watchdog never fires), and a rollout fleet that comes back
    within that gets the version. Measured on CPU (tests/payload/train/test_train_publish_stall.py,
    W 30 s, a failed attempt 5 s): stopped 11.9 / 25.8 / 44.9 s after start at max_staleness 0 / 1 / 4."""

    max_staleness: int
    retry_s: float = 60.0
    in_a_row: int = 0
    last_error: str = ""
    failed_at: float = 0.0  # time.monotonic() of the last failure

    @classmethod
    def of(cls, max_staleness: int, stall_timeout_s: float) -> "PublishFailures":
        return cls(max_staleness, retry_s=stall_timeout_s / (2 * (max_staleness + 1)))

    def failed(self, error: str) -> None:
        self.in_a_row += 1
        self.last_error = error
        self.failed_at = time.monotonic()

    def succeeded(self) -> None:
        self.in_a_row = 0

    @property
    def stalled(self) -> bool:
        return self.in_a_row > self.max_staleness

    def retry_due(self) -> bool:
        return 0 < self.in_a_row <= self.max_staleness and time.monotonic() - self.failed_at >= self.retry_s

    def error(self, step: int) -> PublishStalled:
        return PublishStalled(
            f"{self.in_a_row} weight publishes in a row failed (rollout.max_staleness {self.max_staleness}): every group "
            f"the rollout servers make now would be dropped as stale, so the trainer stopped at step {step} (checkpointed) "
            f"instead; fix the servers and restart with --resume auto. Last failure: {self.last_error}")


@dataclass
class TrainerMetrics:
    """Rank 0's Prometheus series: the balance signals plus the loss terms."""

    registry: CollectorRegistry = field(default_factory=CollectorRegistry)

    def __post_init__(self) -> None:
        r, h = self.registry, signals.HELP
        self.groups = Counter(signals.TRAINER_GROUPS_CONSUMED, h[signals.TRAINER_GROUPS_CONSUMED], registry=r)
        self.tokens = Counter(signals.TRAINER_TOKENS_CONSUMED, h[signals.TRAINER_TOKENS_CONSUMED], registry=r)
        self.busy = Counter(signals.TRAINER_BUSY_SECONDS, h[signals.TRAINER_BUSY_SECONDS], registry=r)
        self.idle = Counter(signals.TRAINER_IDLE_SECONDS, h[signals.TRAINER_IDLE_SECONDS], registry=r)
        self.publish = Counter(signals.TRAINER_PUBLISH_SECONDS, h[signals.TRAINER_PUBLISH_SECONDS], registry=r)
        self.steps = Counter(signals.TRAINER_STEPS, h[signals.TRAINER_STEPS], registry=r)
        self.version = Gauge(signals.POLICY_VERSION, h[signals.POLICY_VERSION], registry=r)
        self.staleness = Gauge(signals.POLICY_STALENESS, h[signals.POLICY_STALENESS], registry=r)
        self.buffer = Gauge(signals.BUFFER_GROUPS, h[signals.BUFFER_GROUPS], registry=r)
        self.publish_failures = Counter("rl_trainer_publish_failures_total", "Weight publishes that failed (rolled back)", registry=r)
        self.publish_check_failures = Counter(
            "rl_trainer_publish_check_failures_total",
            "Servers whose logprobs on the post-publish probe differed from the trainer's (rolled back)", registry=r)
        self.dropped = Counter("rl_trainer_groups_dropped_total", "Groups the trainer dropped, by reason", ["reason"], registry=r)
        self.step_values = {n: Gauge(f"rl_trainer_{n}", f"Last step's {n.replace('_', ' ')}", registry=r) for n in _STEP_GAUGES}


@dataclass
class Batch:
    groups: list[ExperienceGroup]
    wait_s: float = 0.0
    stale: int = 0
    filtered: int = 0
    # The feed ended and the pipeline is empty: this (possibly short or empty) batch is the last.
    final: bool = False
    # Taken from the replay log after a resume (the step is trained again; metrics.jsonl says so).
    replayed: bool = False
    # Its policy tokens by the version that sampled them (set when its samples are made).
    tokens: TokenVersions = field(default_factory=TokenVersions)


class Trainer:
    @dataclass
    class Config:
        job: JobConfig = field(default_factory=JobConfig)
        queue: RolloutQueue.Config = field(default_factory=RolloutQueue.Config)
        # Base URLs of the SGLang servers (one per replica leader); none: no publishing.
        rollout_servers: list[str] = field(default_factory=list)
        # Kept for the CLI; unused: every version is checked without waiting (payload/sync/probe.py).
        publish_probe_interval: int = 5
        metrics_jsonl: str | None = None
        metrics_port: int | None = 9400
        stall_timeout_s: float = 900.0
        # The fan-out groups' timeout (estimate/costs.py Timeouts.publish_s: dead servers cost a
        # publish at most one bucket_timeout_s); None: FanOutPublisher derives it.
        publish_timeout_s: float | None = None
        # "auto": the newest complete checkpoint if there is one; "none"; or a checkpoint path.
        resume: str = "auto"
        max_steps: int | None = None
        consumer: str = "trainer"

        def build(self, queue: RolloutQueue | None = None) -> "Trainer":
            return Trainer(self, queue)

    def __init__(self, config: Config, queue: RolloutQueue | None = None) -> None:
        self.config = config
        job = config.job
        # A collective that outlives the phase watchdog is dead: fail it a little after.
        collective_timeout = timedelta(seconds=config.stall_timeout_s + 300)
        # The layout make manifests resolved for this model and the pools (spec.layout; PP > 1:
        # payload.train.pipeline), on the nodes torchrun started. Every later reader (the
        # footprint's logits decision, the publisher) sees the numbers run.
        self.layout = layout = (choice := job_layout(job)).layout
        job = with_publish_bucket(job, choice.publish_bucket_mb).model_copy(
            update={"parallel": job.parallel.model_copy(update=layout.parallel_sizes())})
        self.config = config = replace(config, job=job)
        self.world = world = init_world(layout, timeout=collective_timeout)
        # Rank 0 waits on the buffer (Redis) while the others wait for its batch: they wait in a
        # CPU-side gloo broadcast, never in an NCCL collective (whose watchdog kills the job).
        self._control = dist.new_group(backend="gloo", timeout=collective_timeout) if world.world_size > 1 else None
        self.metrics = TrainerMetrics()
        # Every rank handles SIGTERM (torchrun forwards it to each worker; without a handler the
        # other ranks die and cannot join the stop vote and the checkpoint); only the first
        # local rank serves the pod's health/metrics port and runs the phase watchdog.
        serves = int(os.environ.get("LOCAL_RANK", "0")) == 0
        service_config = Service.Config(metrics_port=config.metrics_port if serves else None,
                                        stall_timeout_s=config.stall_timeout_s)
        self.service = service_config.build("trainer", self.metrics.registry).start()
        self.watchdog = PhaseWatchdog(self.service, self.metrics.registry) if serves else None
        self._stop_at = deadline.stop_at_from_env()  # the Capacity Block's end, less the margin

        compute = None if job.model.dtype == "float32" else _DTYPES[job.model.dtype]
        compile_layers = job.model.compile_layers and world.device.type == "cuda"
        on_gpu = world.device.type == "cuda"
        keep_logits, why = trainer_keeps_logits(
            job, Qwen3MoeConfig.from_pretrained(job.model.path), layout,
            node_of_device(torch.cuda.get_device_name(world.device) if on_gpu else None),
            device_memory_gb(torch.cuda.get_device_properties(world.device).total_memory) if on_gpu else None)
        if world.is_main:
            log.info("%s", why)

        def load():
            # fp32 master shards built on meta and read rank by rank; compute runs in job.model.dtype.
            model, read = load_sharded(job.model.path, world, ep.Config.for_job(job), compute, compile_layers,
                                       mean_sample_tokens=job.batch.max_prompt_tokens + job.batch.max_response_tokens // 2,
                                       activation_checkpointing=job.model.activation_checkpointing,
                                       experts_precision=job.model.experts_precision,
                                       lm_head_keep_logits=keep_logits)
            log.info("rank %d read %.2f GB of %s", world.rank, read / 1e9, job.model.path)
            return model

        self.model = load()
        self.reference = None
        if job.algorithm.kl_coef > 0:
            self.reference = load().requires_grad_(False).eval()
        a = job.algorithm
        self.optimizer = build_optimizer(self.model, a.learning_rate, a.weight_decay, world.device)
        self.loss = LossConfig(
            clip_low=a.clip_low,
            clip_high=a.clip_high,
            dual_clip=a.dual_clip,
            kl_coef=a.kl_coef,
            tis_cap=a.tis_cap,
            off_policy_correction=a.off_policy_correction,
            off_policy_low=a.off_policy_low,
            off_policy_high=a.off_policy_high,
            aggregation=a.aggregation,
            max_response_tokens=job.batch.max_response_tokens,
            router_aux_loss_coef=a.router_aux_loss_coef,
            max_grad_norm=a.max_grad_norm,
            # Logprobs are of the distribution the engine sampled from; greedy (0) has none, use 1.
            temperature=job.rollout.temperature or 1.0,
        )
        self.checkpointer = Checkpointer.Config(
            directory=job.checkpoint.directory, interval_steps=job.checkpoint.interval_steps, keep_last=job.checkpoint.keep_last
        ).build(world)
        self.export_dir = Path(job.checkpoint.directory) / "hf"
        self.queue = queue
        self._owns_queue = queue is None
        self.publisher: FanOutPublisher | None = None
        self.probe = PublishProbe.Config().build(self.model.config.vocab_size)
        self._expected: dict[int, torch.Tensor] = {}  # rank 0: the probe's logprobs per version out
        # Rank 0: the weights a server caught serving a wrong version reloads (payload/sync/probe.py):
        # the newest HF export, else the base model.
        newest = sorted(p for p in self.export_dir.glob("step-*") if p.name[5:].isdigit())
        self._last_good = (str(newest[-1]), int(newest[-1].name[5:])) if newest else (job.model.path, 0)
        if world.is_main:
            self.queue = queue or config.queue.build()
        if config.rollout_servers:
            # Every rank: the replica's gather groups and each node's control group are formed
            # collectively, and every GPU takes part in its node's server groups (payload/sync/fanout.py).
            self.publisher = FanOutPublisher.Config(
                WeightPublisher.Config(
                    servers=config.rollout_servers,
                    ranks_per_server=job.parallel.rollout_tensor_parallel_size if job.parallel.rollout_tensor_parallel_size != "auto" else 1,
                    backend="nccl" if world.device.type == "cuda" else "gloo",
                    dtype=job.model.dtype,
                    precision=job.rollout.precision,
                    pause_mode=job.rollout.pause_mode,
                    bucket_bytes=job.rollout.publish_bucket_bytes,
                    # One HTTP call's outer limit; the publish's own deadlines (DeadServerBound:
                    # a grace a bucket, a deadline a control phase) end a dead server's far sooner.
                    timeout_s=min(600.0, config.stall_timeout_s / 2),
                ),
                local_ranks=layout.gpus_per_node,
                replicas=world.replica_ranks,
                timeout_s=config.publish_timeout_s,
            ).build(world.rank, world.world_size, world.device)
        self.publish_failures = PublishFailures.of(job.rollout.max_staleness, config.stall_timeout_s)
        # Groups taken for the next step when a failed publish was retried (kept for after it).
        self._partial: tuple[Batch, list[str]] | None = None
        self.tracker = self._tracker() if world.is_main else None
        self.events = (EventFiles(Path(job.checkpoint.directory) / TENSORBOARD_DIR)
                       if world.is_main and job.tracking.tensorboard else None)
        self._decode = None  # the prompt's tokenizer, loaded for the first step's samples
        self.evaluator = self._evaluator() if world.is_main else None
        self.counters = TrainCounters()
        self.resumed = False
        self._replayed_tasks: set[str] = set()
        self._resume()
        # What the run ends as in MLflow unless run() reaches the end of the data or max_steps.
        self.outcome = "FAILED"
        if self.tracker is not None:
            self.tracker.start(flatten(job.model_dump(mode="json")) | {
                "trainer.world_size": str(world.world_size), "trainer.rollout_servers": str(len(config.rollout_servers)),
                "trainer.max_steps": str(config.max_steps)})

    # -- start ------------------------------------------------------------------------------

    def _tracker(self) -> Tracker | None:
        try:
            config = Tracker.Config.of(self.config.job, resume=self.config.resume != "none")
        except TrackingConfigError as exc:
            raise TrainerConfigError(str(exc)) from None
        return config and config.build()

    def _evaluator(self):
        from payload.train.evaluation import Evaluator

        try:
            config = Evaluator.Config.of(self.config.job, self.config.rollout_servers, self.config.metrics_jsonl)
        except ValueError as exc:
            raise TrainerConfigError(str(exc)) from None
        eos = self.model.config.eos_token_id
        stop_tokens = [] if eos is None else [eos] if isinstance(eos, int) else list(eos)
        sinks = [sink.log_eval for sink in (self.tracker, self.events) if sink is not None]
        on_record = (lambda record: [log_eval(record) for log_eval in sinks]) if sinks else None
        return config and config.build(self.metrics.registry, stop_tokens, self.service.stopping, on_record)

    def _resume(self) -> None:
        resume = self.config.resume
        if resume == "none":
            return
        path = latest(self.checkpointer.directory) if resume == "auto" else Path(resume)
        if path is None:
            self.resumed = self._replays_from_the_start()
            return
        if not (path / ".metadata").is_file():
            raise TrainerConfigError(f"--resume {resume}: {path} is not a complete checkpoint (no .metadata)")
        self.counters = self.checkpointer.load(path, self.model, self.optimizer)
        self.resumed = True
        log.info("resumed from %s at step %d", path, self.counters.step)

    def _replays_from_the_start(self) -> bool:
        """A trainer killed before its first checkpoint completed: its replay log starts at
        step 1, and those groups are already acknowledged in the buffer. They are trained again
        from the base model (the log is the buffer position, see payload/train/checkpoint.py),
        as after any other resume.

        Replay, not late acknowledgement (holding groups unacknowledged until the checkpoint that
        covers them completes): the replay log is already fsync'd before each acknowledgement,
        so replaying costs nothing new and the buffer drains at the training rate; late
        acknowledgement would keep interval_steps x prompts_per_step groups pending in Redis
        (50 x 512 = 25,600 at p5en-48: ~13 GB at 16 samples of ~4,000 tokens, ~2.5 TB with
        Qwen3-30B-A3B's routed experts), far past its maxmemory, and a consumer restarted
        under another name would leave them stranded."""
        if self.checkpointer.replayed(1) is None:
            log.info("no checkpoint under %s: starting at step 0", self.checkpointer.directory)
            return False
        log.info("no checkpoint under %s, but its replay log starts at step 1: replaying from the base model",
                 self.checkpointer.directory)
        return True

    # -- experience ---------------------------------------------------------------------------

    def _stopping(self) -> bool:
        # SIGTERM, or the Capacity Block's stop-at time (payload/train/deadline.py): the same stop.
        if not self.service.stopping.is_set() and deadline.past(self._stop_at):
            log.warning("%s reached (the Capacity Block ends soon): stopping with a checkpoint", deadline.STOP_AT_ENV)
            self.service.stopping.set()
        return self.service.stopping.is_set()

    def _take_groups(self, step: int) -> Batch | str | None:
        """Rank 0: the step's groups (from the replay log after a resume, else the buffer);
        REPUBLISH when the last publish failed and is due again (no group comes until one
        completes, see PublishFailures); None: stop (SIGTERM, or publishes failed too often)."""
        if self.resumed and (replayed := self.checkpointer.replayed(step)) is not None:
            self._replayed_tasks.update(g.task_id for g in replayed)
            return Batch(replayed, replayed=True)
        job = self.config.job
        batch, entry_ids = self._partial or (Batch([]), [])
        self._partial = None
        started = time.monotonic() - batch.wait_s
        while len(batch.groups) < job.batch.prompts_per_step:
            if self._stopping():
                return None
            self.checkpointer.poll()
            if self.publisher is not None and self.publisher.finished:
                self._settle(self.publisher.wait())  # reports the version: the feeder goes on
            if self.publisher is not None and not self.publisher.in_flight:
                if self.publish_failures.stalled:
                    return None  # its groups stay unacknowledged: redelivered after the restart
                if self.publish_failures.retry_due():
                    batch.wait_s = time.monotonic() - started
                    self._partial = (batch, entry_ids)
                    return REPUBLISH
            consumed = self.queue.consume(
                self.config.consumer,
                max_groups=job.batch.prompts_per_step - len(batch.groups),
                block_s=1.0,
                current_version=self.counters.policy_version,
                max_staleness=job.rollout.max_staleness,
                stale_tokens=job.rollout.stale_tokens,
            )
            batch.stale += len(consumed.stale)
            if not consumed.groups and not consumed.stale and self.queue.exhausted():
                batch.final = True
                break
            dropped = []
            for buffered in consumed.groups:
                group = buffered.group
                if group.task_id in self._replayed_tasks:  # trained before the restart, redelivered
                    dropped.append(buffered.entry_id)
                elif len(group.samples) != job.algorithm.group_size:
                    log.warning("group %s has %d samples, algorithm.group_size is %d: dropped",
                                group.task_id, len(group.samples), job.algorithm.group_size)
                    dropped.append(buffered.entry_id)
                elif job.algorithm.filter_equal_reward_groups and np.all((r := self._rewards(group.samples)[0]) == r[0]):
                    batch.filtered += 1
                    dropped.append(buffered.entry_id)
                else:
                    batch.groups.append(group)
                    entry_ids.append(buffered.entry_id)
            if dropped:
                self.queue.ack(dropped, dropped=True)
        batch.wait_s = time.monotonic() - started
        # Durable before acknowledged: a crash after this point replays these exact groups.
        self.checkpointer.record(step, batch.groups)
        self.queue.ack(entry_ids)
        return batch

    def _scatter(self, batch: Batch | str | None) -> tuple[list[Sample], int, bool] | str | None:
        """Rank 0 splits the step's samples over the ranks by token count and sends each rank
        only its own part (numpy arrays, pickled once per rank) with the step's group count
        and whether it is the data's last; REPUBLISH everywhere: publish again; None: stop."""
        world = self.world
        parts = [None] * world.world_size
        if batch == REPUBLISH:
            parts = [REPUBLISH] * world.world_size
        elif batch is not None:
            # One share per data-parallel rank; every stage of a pipeline gets its pipeline's share.
            dp = world.stage_world_size
            shares = split_for_ranks(self._samples(batch), dp) if batch.groups else [[]] * dp
            parts = [(shares[rank % dp], len(batch.groups), batch.final) for rank in range(world.world_size)]
        if world.world_size == 1:
            return parts[0]
        mine = [None]
        # On the CPU-side gloo group: the other ranks wait here while rank 0 waits on the buffer.
        dist.scatter_object_list(mine, parts if world.is_main else None, src=0, group=self._control)
        return mine[0]

    def _micro_batches(self, mine: list[Sample]) -> list[MicroBatch]:
        batch, world = self.config.job.batch, self.world
        group = dist.group.WORLD if world.world_size > 1 else None
        if batch.packing:
            # Pipelined: packed to at least the longest sample, so the near-equal micro-batches
            # pad little to the step's longest (payload.train.pipeline).
            budget = pipeline_budget(self.config.job) if world.pp_size > 1 else batch.micro_batch_tokens
            return packed_for_rank(mine, budget, group, world.device, min_count=world.pp_size)
        count = torch.tensor([max(math.ceil(len(mine) / batch.micro_batch_size), 1)], device=world.device)
        if group is not None:
            dist.all_reduce(count, op=dist.ReduceOp.MAX, group=group)
        return micro_batches(mine, batch.micro_batch_size, int(count.item()))

    def _rewards(self, samples) -> tuple[np.ndarray, np.ndarray]:
        """(shaped rewards, overlong penalties) of these samples, float64: the verifiers' rewards
        plus algorithm.overlong_penalty's length penalty (payload.train.shaping), what both the
        equal-reward filter and the advantages see."""
        job = self.config.job
        rewards = np.array([s.reward for s in samples], dtype=np.float32)
        return shaped_rewards(rewards, [len(s.token_ids_T) for s in samples], job.batch.max_response_tokens,
                              job.algorithm.overlong_penalty)

    def _samples(self, batch: Batch) -> list[Sample]:
        """Rank 0: every sample of the step with its group's advantage, arrays kept as they are,
        and each token's version: under rollout.stale_tokens mask the tokens more than
        max_staleness behind the version trained (the one the queue judged them against) leave
        the loss; `batch.tokens` counts them."""
        job = self.config.job
        a, groups = job.algorithm, batch.groups
        shaped, _ = self._rewards([s for g in groups for s in g.samples])
        rewards = torch.tensor(shaped, dtype=torch.float32)
        advantages = group_advantages(rewards, a.group_size, a.advantage_scale).numpy()
        samples, counts = [], TokenVersions()
        for group in groups:
            for s in group.samples:
                sample, seen = mask_stale_tokens(
                    Sample(group.prompt_tokens_P, s.token_ids_T, s.logprobs_T, float(s.reward),
                           float(advantages[len(samples)]), s.routed_experts_SLK, s.loss_mask_T, group.token_versions(s)),
                    self.counters.policy_version, job.rollout.max_staleness, mask=job.rollout.stale_tokens == "mask")
                samples.append(sample)
                counts += seen
        batch.tokens = counts
        return samples

    # -- weights out --------------------------------------------------------------------------

    def _publish(self, version: int) -> float:
        """Stage `version`, score the probe with its weights, and send it behind the next step;
        returns the trainer's stall (the wait for the previous publish if it is still out, the
        copy of this rank's shard and the probe's forward)."""
        if self.publisher is None:
            return 0.0
        started = time.monotonic()
        self._settle(self.publisher.wait())
        # Each rank's own rows, cast to the engine's dtype: nothing is gathered here.
        self.publisher.stage(own_hf_rows(self.model, self.world, _DTYPES[self.config.job.model.dtype]))
        # Every version is checked (payload/sync/probe.py): the trainer's side now, while it
        # holds these weights (every rank: a forward); the servers' side when the publish settles.
        scorer = self.model if self.world.pp_size == 1 else PipelineScorer(self.model, self.world,
                                                                            _DTYPES.get(self.config.job.model.dtype))
        expected = self.probe.expected(scorer, self.world.device)
        if self.world.is_main:
            self._expected[version] = expected
        self.publisher.start(version)
        return time.monotonic() - started

    def _settle(self, outcome: Outcome | None) -> None:
        """Rank 0 (the others hold no outcome): account for a finished publish. Every server
        that took it scores the probe; one that differs from the trainer is rolled back to the
        last good export. The version counts as failed when no server serves it correctly, and
        only a checked success resets the count of failures in a row."""
        if outcome is None:
            return
        # The feeder paces itself by the version the servers were sent (its next tasks are
        # for the step after), so it is reported once the publish is over, not at the handoff.
        self.queue.report_progress(outcome.version)
        expected = self._expected.pop(outcome.version, None)
        self._expected = {v: e for v, e in self._expected.items() if v > outcome.version}
        if outcome.error:
            self.metrics.publish_failures.inc()
            log.error("publishing version %d failed: %s", outcome.version, outcome.error)
            self.publish_failures.failed(outcome.error)
            return
        if expected is None:  # cannot happen: every staged version is scored before it starts
            self.publish_failures.failed(f"version {outcome.version} was not checked")
            return
        clients = [RolloutServerClient(url, self.publisher.config.publisher.probe_timeout_s) for url in outcome.done]
        try:
            bad = self.probe.check(self.probe.ask(clients), expected)
        finally:
            for client in clients:
                client.close()
        if bad:
            self.metrics.publish_check_failures.inc(len(bad))
            path, version = self._last_good
            log.error("version %d is served WRONG by %d of %d servers (rolled back to %s): %s", outcome.version,
                      len(bad), len(outcome.done), path, "; ".join(map(str, bad)))
            self.publisher.roll_back([m.url for m in bad], path, version)
        if self.evaluator is not None:
            self.evaluator.serve_from([url for url in outcome.done if url not in {m.url for m in bad}])
        if len(bad) == len(outcome.done):
            self.metrics.publish_failures.inc()
            self.publish_failures.failed(f"version {outcome.version} served wrong: " + "; ".join(map(str, bad)))
        else:
            self.publish_failures.succeeded()

    def _export(self, step: int) -> None:
        path = self.export_dir / f"step-{step:08d}"
        # Every rank writes its own shards, streaming (payload/train/export.py).
        # In the rollout servers' precision: a restarted server loads it as it loads the base.
        export_hf(self.model, self.world, path, self.config.job.model.path, _DTYPES[self.config.job.model.dtype],
                  precision=self.config.job.rollout.precision)
        if self.world.is_main:
            self._last_good = (str(path), step)  # what a server serving wrong weights reloads
            self.queue.publish_policy(PolicyPointer(step, str(path)))
            if self.tracker is not None:
                self.tracker.log_export(step, str(path))
            exports = sorted(p for p in self.export_dir.glob("step-*") if p.name[5:].isdigit())
            for old in exports[: -self.config.job.checkpoint.keep_last]:
                shutil.rmtree(old, ignore_errors=True)

    # -- the loop -----------------------------------------------------------------------------

    def _phase(self, name: str):
        return self.watchdog.phase(name) if self.watchdog else contextlib.nullcontext()

    def run(self) -> TrainCounters:
        job = self.config.job
        self.service.set_ready(True)
        self._finished = False
        saved_at = self.counters.step
        if self.evaluator and job.eval.before_training and self.counters.step == 0:
            self.evaluator.run(0)
        while self.config.max_steps is None or self.counters.step < self.config.max_steps:
            step = self.counters.step + 1
            with self._phase("wait_experience"):
                batch = self._take_groups(step) if self.world.is_main else None
                received = self._scatter(batch)
            if received is None:  # SIGTERM while waiting, or publishes failed too often
                break
            if received == REPUBLISH:  # the same weights again: no group comes until a publish lands
                log.warning("publishing version %d again (%d failed in a row; rollout.max_staleness %d)",
                            self.counters.step, self.publish_failures.in_a_row, self.publish_failures.max_staleness)
                with self._phase("publish"):
                    self._publish(self.counters.step)
                continue
            mine, groups, final = received
            self._finished = final
            if not groups:  # end of data, nothing left: export what the last step made
                if self.counters.step and self.counters.step % job.checkpoint.export_interval_steps:
                    self._export(self.counters.step)
                self._evaluate(self.counters.step, final=True)
                break
            with self._phase("train_step"):
                metrics = self._train_step(self._micro_batches(mine))
            self.counters = TrainCounters(step, step, self.counters.groups_consumed + groups)
            with self._phase("publish"):
                publish_s = self._publish(step)
            if self.world.is_main and self.publisher is None:  # the feeder paces itself by this
                self.queue.report_progress(step)
            if step % job.checkpoint.export_interval_steps == 0 or final:
                with self._phase("export"):
                    self._export(step)
            stopping = self._agree_to_stop()
            last = stopping or final or (self.config.max_steps is not None and step >= self.config.max_steps)
            if last and self.publisher is not None:
                with self._phase("publish"):  # the last version is served before the final eval
                    self._settle(self.publisher.wait())
            self._evaluate(step, final=last)
            if step % job.checkpoint.interval_steps == 0 or last:
                with self._phase("checkpoint"):
                    # Asynchronous: staged in host memory, written while the next steps run
                    # (waiting first for the previous write). On SIGTERM or the last step,
                    # wait for this one: see payload/train/checkpoint.py for the grace period.
                    self.checkpointer.save(self.model, self.optimizer, self.counters, wait=last)
                saved_at = step
            else:
                self.checkpointer.poll()
            if self.world.is_main:
                self._record(step, batch, metrics, publish_s)
            if stopping or final:
                break
        if self.publisher is not None:
            with self._phase("publish"):  # a version still out (SIGTERM while waiting) before returning
                self._settle(self.publisher.wait())
        with self._phase("checkpoint"):
            if saved_at != self.counters.step:
                self.checkpointer.save(self.model, self.optimizer, self.counters, wait=True)
            self.checkpointer.wait()
        if self.watchdog:
            self.watchdog.enter("done")
        if self.publish_failures.stalled:
            raise self.publish_failures.error(self.counters.step)
        done = self.config.max_steps is not None and self.counters.step >= self.config.max_steps
        # Stopped by SIGTERM: KILLED, and the restart that resumes the checkpoint reopens the run.
        self.outcome = "FINISHED" if done or self._finished else "KILLED"
        return self.counters

    def _train_step(self, micro: list[MicroBatch]) -> dict:
        world = self.world
        if world.pp_size > 1:
            return pipeline_train_step(self.model, self.optimizer, micro, self.loss, world, reference=self.reference,
                                       compute_dtype=_DTYPES.get(self.config.job.model.dtype))
        return train_step(self.model, self.optimizer, micro, self.loss, group=dist.group.WORLD, reference=self.reference,
                          device=world.device, norm_group=world.replica_group,
                          sync_every_micro_batch=not self.layout.per_step_sync)

    def _evaluate(self, step: int, final: bool) -> None:
        """The eval due after `step`, on the servers that serve the newest version. A run whose
        last publish failed has none (its servers are held paused and would never answer):
        its final eval is skipped, said in the log, and an eval still out is not waited for."""
        if self.evaluator is None:
            return
        if self.publisher is not None and self.publish_failures.in_a_row:
            log.warning("eval after step %d skipped: version %d reached no server (%s)", step, self.counters.step,
                        self.publish_failures.last_error)
            return
        self.evaluator.after_step(step, final=final)

    def _agree_to_stop(self) -> bool:
        # Rank 0 alone knows the publishes failed; every rank stops and checkpoints with it. A
        # publish still out decides it when one more failure would stall the run: wait for it.
        if (self.world.is_main and self.publisher is not None and self.publisher.in_flight
                and self.publish_failures.in_a_row + 1 > self.publish_failures.max_staleness):
            self._settle(self.publisher.wait())
        flag = torch.tensor([float(self._stopping() or self.publish_failures.stalled)], device=self.world.device)
        if self.world.world_size > 1:
            dist.all_reduce(flag, op=dist.ReduceOp.MAX)
        return bool(flag.item())

    def _record(self, step: int, batch: Batch, metrics: dict, publish_s: float) -> None:
        m = self.metrics
        every = [s for g in batch.groups for s in g.samples]
        lengths = [len(s.token_ids_T) for s in every]
        tokens = sum(lengths)
        busy = metrics["step_seconds"]
        staleness = [step - 1 - g.policy_version for g in batch.groups]
        buffer_groups = self.queue.buffer_fill()
        m.groups.inc(len(batch.groups))
        m.tokens.inc(tokens)
        m.busy.inc(busy)
        m.idle.inc(batch.wait_s)
        m.publish.inc(publish_s)
        m.steps.inc()
        m.version.set(step)
        m.staleness.set(float(np.mean(staleness)))
        m.buffer.set(buffer_groups)
        m.dropped.labels("stale").inc(batch.stale)
        m.dropped.labels("filtered").inc(batch.filtered)
        extra = dict(metrics, mean_reward=float(np.mean(np.concatenate([g.rewards_G for g in batch.groups]))),
                     **length_metrics(lengths, [s.finish_reason == "length" for s in every], self._rewards(every)[1]),
                     groups_dropped_filtered=batch.filtered,
                     old_version_token_fraction=batch.tokens.older_fraction,
                     stale_masked_token_fraction=batch.tokens.stale_fraction)
        for name, gauge in m.step_values.items():
            if name in extra:
                gauge.set(extra[name])
        self._log_samples(step, batch)
        if self.config.metrics_jsonl is None and self.tracker is None and self.events is None:
            return
        record = signals.TrainStepRecord(
            step=step,
            wall_time=time.time(),
            mean_reward=extra["mean_reward"],
            groups=len(batch.groups),
            tokens=tokens,
            tokens_per_s=tokens / max(busy + batch.wait_s + publish_s, 1e-9),
            trainer_busy_s=busy,
            trainer_wait_s=batch.wait_s,
            publish_s=publish_s,
            buffer_groups=buffer_groups,
            staleness_mean=float(np.mean(staleness)),
            staleness_max=int(max(staleness)),
            groups_dropped_stale=batch.stale,
            old_version_token_fraction=batch.tokens.older_fraction,
            stale_masked_token_fraction=batch.tokens.stale_fraction,
            policy_version=step,
            model=self.config.job.model.architecture or self.config.job.model.path.rstrip("/").rsplit("/", 1)[-1],
            device=device_name(self.world.device),
            replayed=batch.replayed,
        )
        line = asdict(record) | {k: v for k, v in extra.items() if k not in asdict(record)}
        if self.tracker is not None:
            self.tracker.log_step(step, line)
        if self.events is not None:
            self.events.log_step(step, line)
        if self.config.metrics_jsonl is not None:
            with open(self.config.metrics_jsonl, "a") as f:
                f.write(json.dumps(line, separators=(",", ":")) + "\n")

    def _log_samples(self, step: int, batch: Batch) -> None:
        """A few of the step's generations (payload.train.tracking.pick_samples) on the console,
        as an MLflow artifact and in TensorBoard."""
        count = self.config.job.tracking.samples_per_step
        if not count or not batch.groups:
            return
        if self._decode is None:
            from payload.rollout.tokenizer import load_tokenizer

            self._decode = load_tokenizer(self.config.job.model.path).decode
        samples = pick_samples(step, batch.groups, count, self._decode)
        for sample in samples:
            log.info("%s", sample_line(sample))
        if self.tracker is not None:
            self.tracker.log_samples(step, samples)
        if self.events is not None:
            self.events.log_samples(step, samples)

    def close(self) -> None:
        if self.evaluator is not None:
            self.evaluator.close(wait=not self.publish_failures.in_a_row)
        if self.tracker is not None:
            self.tracker.finish(self.outcome)
        if self.events is not None:
            self.events.close()
        self.checkpointer.close()
        if self.publisher is not None:
            self.publisher.close()
        if self.watchdog:
            self.watchdog.close()
        self.service.close()
        if self.queue is not None and self._owns_queue:
            self.queue.close()


def device_name(device: torch.device) -> str:
    """The GPU's model as its driver names it ("NVIDIA H200"), or the device type ("cpu")."""
    return torch.cuda.get_device_name(device) if device.type == "cuda" else device.type
