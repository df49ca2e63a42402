"""The live balance signals: what the trainer and the rollout workers export, by name.

One module so the producers (payload.train, payload.rollout, the local loop), the consumer
(`python -m payload plan --from-metrics`) and the monitoring rules (k8s PrometheusRule)
can never disagree on a name. Import the constants; never retype the strings.

Units: one *group* is the `algorithm.group_size` responses to one prompt (what the
buffer holds and what GRPO normalises over); *tokens* are always RESPONSE tokens (the
generated ones). The planner measures both sides in response tokens per second, so the
trainer's rate already folds in the cost of the prompt tokens it re-reads.

Prometheus (scraped from every trainer rank 0 and every rollout worker). Counters are
named with their exported `_total` suffix; prometheus_client accepts the full name.

    Trainer (rank 0)
      rl_trainer_groups_consumed_total     counter  groups that entered an optimizer step
      rl_trainer_tokens_consumed_total     counter  response tokens in those groups
      rl_trainer_busy_seconds_total        counter  forward/backward/optimizer time
      rl_trainer_idle_seconds_total        counter  waiting for the buffer to fill a batch
      rl_trainer_publish_seconds_total     counter  trainer paused publishing weights
      rl_trainer_steps_total               counter  optimizer steps done
      rl_policy_version                    gauge    version of the weights last published
      rl_policy_staleness                  gauge    mean (trainer version - sample version) of the last batch
      rl_buffer_groups                     gauge    groups waiting in the experience buffer
      rl_eval_mean_reward                  gauge    held-out eval mean reward, label `data_source`
      rl_eval_pass_at_1 / rl_eval_pass_at_k  gauge  held-out eval pass@1 / pass@k, label `data_source`
      rl_eval_step                         gauge    policy step of the newest evaluation

    Rollout worker (one series per worker; sum() over workers)
      rl_rollout_groups_produced_total     counter  groups durably written to the buffer
      rl_rollout_tokens_generated_total    counter  response tokens in those groups
      rl_rollout_groups_dropped_total      counter  groups discarded, label `reason`:
                                                    "stale" (over rollout.max_staleness) or
                                                    "filtered" (equal rewards, DAPO filter)
      rl_rollout_busy_seconds_total        counter  seconds with generation requests in flight
      rl_rollout_idle_seconds_total        counter  seconds paused: buffer at the high-water
                                                    mark, or waiting for new weights

Imbalance, as the alert rules read it: trainer idle fraction
  rate(rl_trainer_idle_seconds_total) / (rate(busy) + rate(idle) + rate(publish))
high for long → rollout-bound (move nodes to rollout); rollout idle fraction
  sum(rate(rl_rollout_idle_seconds_total)) / sum(rate(busy) + rate(idle))
high for long → training-bound (move nodes to train).

Metrics JSONL (one JSON object per line, `kind` tells the record type):

    kind="train_step" — written by the trainer once per optimizer step (`TrainStepRecord`)
    kind="rollout"    — written by each rollout worker every few seconds (`RolloutRecord`),
                        counting what happened since that worker's previous record
    kind="eval"       — written by the trainer per held-out evaluation (payload.train.evaluation)

Fields are listed on the two dataclasses below; `to_json()` renders one line.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields

# Prometheus: trainer
TRAINER_GROUPS_CONSUMED = "rl_trainer_groups_consumed_total"
TRAINER_TOKENS_CONSUMED = "rl_trainer_tokens_consumed_total"
TRAINER_BUSY_SECONDS = "rl_trainer_busy_seconds_total"
TRAINER_IDLE_SECONDS = "rl_trainer_idle_seconds_total"
TRAINER_PUBLISH_SECONDS = "rl_trainer_publish_seconds_total"
TRAINER_STEPS = "rl_trainer_steps_total"
POLICY_VERSION = "rl_policy_version"
POLICY_STALENESS = "rl_policy_staleness"
BUFFER_GROUPS = "rl_buffer_groups"
# Prometheus: the trainer's held-out evaluation (payload.train.evaluation), per data source
EVAL_MEAN_REWARD = "rl_eval_mean_reward"
EVAL_PASS_AT_1 = "rl_eval_pass_at_1"
EVAL_PASS_AT_K = "rl_eval_pass_at_k"
EVAL_STEP = "rl_eval_step"

# Prometheus: rollout workers
ROLLOUT_GROUPS_PRODUCED = "rl_rollout_groups_produced_total"
ROLLOUT_TOKENS_GENERATED = "rl_rollout_tokens_generated_total"
ROLLOUT_GROUPS_DROPPED = "rl_rollout_groups_dropped_total"
ROLLOUT_BUSY_SECONDS = "rl_rollout_busy_seconds_total"
ROLLOUT_IDLE_SECONDS = "rl_rollout_idle_seconds_total"
# The label on ROLLOUT_GROUPS_DROPPED and its values.
DROP_REASON_LABEL = "reason"
DROP_REASON_STALE = "stale"
DROP_REASON_FILTERED = "filtered"

# Help strings, so every exporter registers the same text.
HELP = {
    TRAINER_GROUPS_CONSUMED: "Groups that entered an optimizer step",
    TRAINER_TOKENS_CONSUMED: "Response tokens in the groups the trainer consumed",
    TRAINER_BUSY_SECONDS: "Seconds the trainer spent in forward/backward/optimizer",
    TRAINER_IDLE_SECONDS: "Seconds the trainer waited for the buffer to fill a batch",
    TRAINER_PUBLISH_SECONDS: "Seconds the trainer was paused publishing weights",
    TRAINER_STEPS: "Optimizer steps done",
    POLICY_VERSION: "Version of the weights last published",
    POLICY_STALENESS: "Mean policy versions between the trainer and the samples of its last batch",
    BUFFER_GROUPS: "Groups waiting in the experience buffer",
    ROLLOUT_GROUPS_PRODUCED: "Groups written durably to the experience buffer",
    ROLLOUT_TOKENS_GENERATED: "Response tokens in the groups written to the buffer",
    ROLLOUT_GROUPS_DROPPED: "Groups discarded, by reason (stale, filtered)",
    ROLLOUT_BUSY_SECONDS: "Seconds the worker had generation requests in flight",
    ROLLOUT_IDLE_SECONDS: "Seconds the worker was paused (buffer high-water mark or waiting for weights)",
}

KIND_TRAIN_STEP = "train_step"
KIND_ROLLOUT = "rollout"


@dataclass(frozen=True)
class TrainStepRecord:
    """One optimizer step, as the trainer writes it to the metrics JSONL."""

    step: int  # optimizer step just finished (1-based)
    wall_time: float  # unix seconds when the step (publish included) ended
    mean_reward: float  # mean reward over the batch's responses
    groups: int  # groups in this step's batch
    tokens: int  # response tokens in this step's batch
    tokens_per_s: float  # tokens / (trainer_busy_s + trainer_wait_s + publish_s)
    trainer_busy_s: float  # forward/backward/optimizer time of this step
    trainer_wait_s: float  # time waiting for the buffer to fill this step's batch
    publish_s: float  # time paused publishing this step's weights
    buffer_groups: int  # groups left in the buffer after the batch was taken
    staleness_mean: float  # mean (policy version trained - version that generated) over the batch
    staleness_max: int
    groups_dropped_stale: int = 0  # groups dropped since the previous step for staleness
    # Of the batch's policy tokens (SGLang's per-token weight_versions spans): the share trained
    # that an older version than the one trained sampled, and the share masked out of the loss
    # as more than rollout.max_staleness behind it (rollout.stale_tokens mask; 0 under drop_group).
    old_version_token_fraction: float = 0.0
    stale_masked_token_fraction: float = 0.0
    policy_version: int = 0  # version published at the end of this step
    # The architecture trained (job.model.architecture, else the model directory's name: the key
    # spec.model_shape.architecture_of reads), which `plan --from-metrics` compares with the
    # environment's before it trusts these rates.
    model: str = ""
    # The accelerator the step ran on (torch.cuda.get_device_name, e.g. "NVIDIA H200", or "cpu"):
    # rates measured on one device do not transfer to another's environment.
    device: str = ""
    # The step's groups came from the replay log: a restarted trainer resumed from its last
    # checkpoint and trains the steps after it again, so an earlier record of this step may be
    # in the file already. Readers keep the later one (`current_records`).
    replayed: bool = False
    kind: str = KIND_TRAIN_STEP

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))


@dataclass(frozen=True)
class RolloutRecord:
    """What one rollout worker did since its previous record."""

    wall_time: float  # unix seconds at the end of the interval
    worker: str  # stable worker id (pod name)
    interval_s: float  # seconds this record covers
    groups: int  # groups written to the buffer in the interval
    tokens: int  # response tokens in those groups
    busy_s: float  # seconds with generation requests in flight
    idle_s: float  # seconds paused (high-water mark, waiting for weights)
    groups_dropped: int = 0  # groups discarded in the interval (stale or filtered)
    kind: str = KIND_ROLLOUT

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))


def current_records(records: list[dict]) -> list[dict]:
    """Records of one step-numbered kind (train_step, or eval) in file order, less those a later
    one supersedes, so each step counts once. A record of step s supersedes every earlier record
    of step s or later: after a restart the trainer replays from its checkpoint, and what the
    first run recorded past that checkpoint belonged to weights that were lost."""
    kept: list[dict] = []
    for record in records:
        while kept and kept[-1]["step"] >= record["step"]:
            kept.pop()  # kept is ascending by step, so the superseded ones are at its end
        kept.append(record)
    return kept


TRAIN_STEP_FIELDS = tuple(f.name for f in fields(TrainStepRecord))
ROLLOUT_FIELDS = tuple(f.name for f in fields(RolloutRecord))
