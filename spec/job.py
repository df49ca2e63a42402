"""The job description: what the RL run does (model, algorithm, batch sizes, images).

It lives in the environment file's `job:` section (or a file that section points to),
is validated here, rendered by the cdk8s app into a ConfigMap, and read back by every
payload process with `load_job_config`. Pure pydantic: importing it pulls in no torch.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from spec.config_errors import schema_errors, yaml_problem

# Where the ConfigMap is mounted inside every pod, and the variable that overrides it.
JOB_CONFIG_ENV = "RL_JOB_CONFIG"
JOB_CONFIG_PATH = "/etc/rl/job.yaml"
# A spot interruption notice comes two minutes before the node goes; that is all the time a
# pod on the rollout or cpu pools gets (its terminationGracePeriodSeconds, k8s/pods.py) to hand
# unfinished tasks back to the queue, and what `serve` gives SGLang to drain.
SPOT_GRACE_SECONDS = 120
# The trainer's publish bucket where rollout.publish_bucket_mb is auto and the pools are not
# known (a job read on its own): the largest of estimate.layout's choices.
PUBLISH_BUCKET_MB = 4096


class JobConfigError(Exception):
    """A user mistake in a job description: one line, no traceback."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ModelSection(_Section):
    # A Qwen3-MoE Hugging Face checkpoint directory on the shared FSx for Lustre volume.
    path: str = "/fsx/models/Qwen3-30B-A3B"
    # The model's shape, which sizes its layout, storage, timeouts and publish
    # (spec.model_shape.shape_of): a released model's name (spec/architectures/, e.g. the one a
    # checkpoint was fine-tuned from), or a config.json / checkpoint folder readable where the
    # job is rendered. Default: the path's last component when it names a release, else the
    # path's own config.json.
    architecture: str | None = None
    # The parameters' and activations' dtype in the trainer.
    dtype: Literal["bfloat16", "float32"] = "bfloat16"
    # Recompute each decoder layer's activations in backward instead of keeping them (less memory
    # for one more forward pass).
    activation_checkpointing: bool = True
    # torch.compile each decoder layer (CUDA only; ignored on CPU). One H200, 4 layers, one
    # 16 x 2048 micro-batch: 411 -> 329 ms a step (bench/train_step.py). Off by default until
    # it has run with the deepep backend on a cluster (DeepEP's buffers are opaque to dynamo).
    compile_layers: bool = False
    # The experts' forward and input-gradient GEMMs in e4m3 with rowwise scales (fp8; the weight
    # gradient stays bf16) or in the compute dtype (bf16). Opt-in, needs an sm90+ GPU: on one H200
    # an fp8 MoE layer step is slower than bf16 (0.54x Qwen3-30B-A3B, 0.57x DeepSeek-V3 shape) at
    # ~6% relative error (bench/README.md, fp8_experts.py). Left out of the rendered job at its
    # default, so that adding the switch changed no ConfigMap (nor the pods' job-config hash).
    experts_precision: Literal["bf16", "fp8"] = Field(default="bf16", exclude_if=lambda v: v == "bf16")
    # Keep the LM head's logits from forward to backward instead of recomputing them (a quarter of
    # the LM head's FLOPs; tokens x vocab x 2 B per micro-batch: 10 GB at 32 k tokens over a
    # 152 k vocabulary). One H200, 4 layers, one 16 x 2048 micro-batch: 317 -> 285 ms a step,
    # +8 GiB (bench/train_step.py). auto: kept where the planner's memory model says the layout
    # still fits with them (estimate.footprint.keeps_logits; the trainer decides at start and
    # logs why, `payload plan` prints the same). Left out of the rendered job at its default.
    lm_head_keep_logits: Literal[True, False, "auto"] = Field(default="auto", exclude_if=lambda v: v == "auto")


Auto = Literal["auto"]


def _positive_or_auto(value: object, expected: str) -> object:
    """A field that is a positive integer or auto (None, as YAML's empty value, is auto)."""
    if value is None or value == "auto":
        return "auto"
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{value!r}: expected {expected}, or auto")
    return value


# The layout sizes a job may set, or leave auto (None, as older files wrote it, is auto too).
SIZES = ("pipeline_parallel_size", "expert_parallel_size", "data_parallel_shard_size", "rollout_tensor_parallel_size",
         "rollout_expert_parallel_size")


class ParallelSection(_Section):
    """The trainer's layout (payload.train.parallel, payload.train.pipeline) and the rollout
    servers' (spec.layout). Every size left `auto` (the default) is chosen from the model's own
    config.json and the pools: the cheapest trainer layout whose modeled memory fits a GPU
    (estimate.footprint), the rollout TP that decodes most tokens a node (estimate.throughput),
    at `make manifests`, `payload plan` and an unrendered trainer start alike (estimate.layout). A
    number sets that size; a layout that then does not fit is refused in one line.

    `pipeline_parallel_size` (PP) splits the layers into stages of whole nodes; inside a stage,
    `expert_parallel_size` (EP) ranks split every MoE layer's experts and exchange tokens
    all-to-all twice per layer and pass; `data_parallel_shard_size` (S) ranks shard parameters,
    gradients and optimizer state (FSDP2); the stage's ranks / S replicas of that all-reduce
    gradients once per step (HSDP). EP inside a node keeps the all-to-alls on NVLink (450 GB/s
    each way); EP across nodes sends every MoE layer's tokens over EFA: only when asked for, and
    only with deepep.
    """

    # Pipeline stages of whole train nodes, each a contiguous range of layers (auto: chosen for the model).
    pipeline_parallel_size: int | Auto = "auto"
    # Ranks that split every MoE layer's experts inside a stage (auto: chosen for the model).
    expert_parallel_size: int | Auto = "auto"
    # A node's GPUs or fewer, or whole nodes: FSDP across nodes for models whose 16 B/parameter
    # of state does not fit one node (Qwen3-235B-A22B).
    data_parallel_shard_size: int | Auto = "auto"
    # Allow an expert-parallel group to span nodes (needs ep_backend deepep; its all-to-alls then cross EFA).
    expert_parallel_across_nodes: bool = False
    # Reduce-scatter gradients after every micro-batch instead of once per step: for models
    # whose unsharded gradient does not fit next to the rest.
    sync_gradients_every_micro_batch: bool | Auto = "auto"
    # How experts exchange tokens: DeepEP, torch all-to-all, or local (auto: DeepEP where it can run, else
    # all-to-all).
    ep_backend: Literal["auto", "deepep", "all_to_all", "local"] = "auto"
    # Tensor parallelism of one SGLang rollout replica (auto: the TP that decodes most tokens a node).
    rollout_tensor_parallel_size: int | Auto = "auto"
    # Expert parallelism inside a rollout replica (auto: chosen with the tensor parallel size).
    rollout_expert_parallel_size: int | Auto = "auto"

    @field_validator(*SIZES, mode="before")
    @classmethod
    def _size(cls, value: object) -> object:
        return _positive_or_auto(value, "a positive integer")

    @model_validator(mode="after")
    def _consistent(self) -> "ParallelSection":
        if self.expert_parallel_across_nodes and self.ep_backend != "deepep":
            raise ValueError("expert_parallel_across_nodes needs ep_backend deepep (all_to_all over EFA stalls every MoE layer)")
        # How the sizes fit each other and the pools: spec.layout's rules, once the layout is resolved.
        return self


class OverlongPenalty(_Section):
    """DAPO's soft overlong punishment (arXiv 2503.14476, §3.4), added to each sample's reward
    before the group normalisation (payload.train.shaping). With L_max = batch.max_response_tokens
    and L_cache = buffer_tokens, a response of |y| tokens gets
    0 for |y| <= L_max - L_cache, -factor * (|y| - (L_max - L_cache)) / L_cache inside the buffer,
    and -factor at L_max and beyond (a truncated response)."""

    # L_cache: the last this many tokens before batch.max_response_tokens are the penalised buffer.
    buffer_tokens: int = Field(ge=1)
    # The penalty at L_max (the paper's 1; verl's overlong_buffer.penalty_factor).
    factor: float = Field(default=1.0, gt=0)


class AlgorithmSection(_Section):
    # Responses sampled per prompt; GRPO's advantages compare them within the group.
    group_size: int = Field(default=8, ge=2)
    # AdamW's learning rate.
    learning_rate: float = Field(default=1e-6, gt=0)
    # AdamW's decoupled weight decay.
    weight_decay: float = Field(default=0.0, ge=0)
    # Gradients are clipped to this global L2 norm.
    max_grad_norm: float = Field(default=1.0, gt=0)
    # PPO clip below 1: a token's ratio counts down to 1 - clip_low.
    clip_low: float = Field(default=0.2, ge=0, lt=1)
    # PPO clip above 1 (DAPO's clip-higher): a token's ratio counts up to 1 + clip_high.
    clip_high: float = Field(default=0.28, ge=0)
    # Dual-clip bound for negative advantages: the policy term is capped at dual_clip times |A| (None: off).
    dual_clip: float | None = Field(default=None, gt=1)
    # Weight of the k3 KL penalty to the initial policy (0: no reference model is loaded).
    kl_coef: float = Field(default=0.0, ge=0)
    # What the group-centred reward is divided by: the group's std (GRPO), the batch's, or nothing (Dr. GRPO).
    advantage_scale: Literal["group", "batch", "none"] = "group"
    # How token losses become the step's loss (verl's loss_agg_mode names).
    aggregation: Literal["token-mean", "seq-mean-token-mean", "seq-mean-token-sum", "seq-mean-token-sum-norm"] = "token-mean"
    # Truncated importance sampling cap for rollout/trainer logprob mismatch; None disables.
    tis_cap: float | None = Field(default=2.0, gt=0)
    # Off-policy correction of the policy term by the trainer/rollout ratio k = π_old / π_rollout
    # (payload/train/loss.py): "tis" weighs each token by min(k, tis_cap) (today's behaviour);
    # "sequence_mask" also drops whole sequences whose geometric-mean k is outside
    # [off_policy_low, off_policy_high] (OpenRLHF seq-mask-tis, verl geometric rejection);
    # "icepop" masks tokens whose k is outside [off_policy_low, off_policy_high] and weighs the
    # rest by k (IcePop, Ring-1T; tis_cap unused). Bounds: 0 < low < 1 < high; the defaults are
    # IcePop's α = 0.5, β = 5.
    off_policy_correction: Literal["tis", "sequence_mask", "icepop"] = "tis"
    # The lower bound of the off-policy ratio k kept by sequence_mask and icepop.
    off_policy_low: float = Field(default=0.5, gt=0, lt=1)
    # The upper bound of the off-policy ratio k kept by sequence_mask and icepop.
    off_policy_high: float = Field(default=5.0, gt=1)
    # DAPO dynamic sampling: drop groups whose rewards are all equal (zero advantage).
    filter_equal_reward_groups: bool = True
    # DAPO's soft overlong punishment on the reward (see OverlongPenalty); None (the default)
    # leaves rewards as the verifiers gave them. Left out of the rendered job at its default, so
    # adding the switch changed no ConfigMap (nor the pods' job-config hash).
    overlong_penalty: OverlongPenalty | None = Field(default=None, exclude_if=lambda v: v is None)
    # MoE load-balancing loss weight in the trainer; 0 leaves routing to the policy loss
    # (with routing replay the trained routes are the rollout engine's anyway).
    router_aux_loss_coef: float = Field(default=0.0, ge=0)


class BatchSection(_Section):
    # Prompts (groups) per training step; the step trains on prompts_per_step x group_size samples.
    prompts_per_step: int = Field(default=256, ge=1)
    # Packing (the default): each rank's samples go back to back into micro-batches of about
    # this many tokens (no padding, attention inside each sample); fewer, fuller micro-batches
    # than padding gives. Off: right-padded micro-batches of micro_batch_size samples.
    packing: bool = True
    # A packed micro-batch's token budget per rank (batch.packing).
    micro_batch_tokens: int = Field(default=16384, ge=2)
    # Samples per padded micro-batch (packing off); must divide prompts_per_step x group_size.
    micro_batch_size: int = Field(default=4, ge=1)
    # Longer prompts are dropped by the feeder and counted, never truncated.
    max_prompt_tokens: int = Field(default=2048, ge=1)
    # The most tokens a response may have; generation stops there (a truncated response).
    max_response_tokens: int = Field(default=8192, ge=1)

    @property
    def largest_micro_batch_tokens(self) -> int:
        """The most tokens one rank's micro-batch can hold (what DeepEP's buffer must take per
        dispatch). Packed (payload.train.batch.packed_for_rank): first-fit counts the bins of
        `micro_batch_tokens` the samples need (a longer sample gets one of its own), then
        largest differencing re-splits them into that many parts at most one sample apart; so
        a part holds at most the average, <= max(budget, longest), plus the longest sample.
        Padded: micro_batch_size samples of the longest length."""
        longest = self.max_prompt_tokens + self.max_response_tokens
        if self.packing:
            return max(self.micro_batch_tokens, longest) + longest
        return self.micro_batch_size * longest


def too_stale(policy_version: int, current_version: int, max_staleness: int) -> bool:
    """The staleness rule (rollout.max_staleness): a token sampled by policy `policy_version` is
    too stale once the trainer is more than `max_staleness` versions past it. Per group, per
    token: `drops_group` here, and the trainer's mask (payload.train.batch.mask_stale_tokens)."""
    return current_version - policy_version > max_staleness


# rollout.stale_tokens: what becomes of the tokens of a group that are older than max_staleness.
StaleTokens = Literal["drop_group", "mask"]
STALE_TOKENS: tuple[str, ...] = ("drop_group", "mask")


def drops_group(oldest_version: int, newest_version: int, current_version: int, max_staleness: int,
                stale_tokens: str = "drop_group") -> bool:
    """Whether a group whose tokens were sampled by versions oldest_version..newest_version is
    dropped when the trainer is at `current_version` (the queues apply it, payload/queue; the
    loop's simulator models it, estimate/simulator.py). drop_group: once its OLDEST token is too
    stale (a generation that spans a publish is as stale as its first span). mask: only once
    every token is, its NEWEST one too; the trainer then masks the stale tokens out of the loss
    (each span by `too_stale`, payload.train.batch.mask_stale_tokens)."""
    if stale_tokens not in STALE_TOKENS:
        raise ValueError(f"rollout.stale_tokens {stale_tokens!r} is not one of {', '.join(STALE_TOKENS)}")
    return too_stale(oldest_version if stale_tokens == "drop_group" else newest_version, current_version,
                     max_staleness)


class RolloutSection(_Section):
    # Sampling temperature of the rollouts.
    temperature: float = Field(default=1.0, ge=0)
    # Nucleus sampling's top-p of the rollouts.
    top_p: float = Field(default=1.0, gt=0, le=1)
    # Experiences more than this many policy versions behind the trainer are dropped.
    max_staleness: int = Field(default=1, ge=0)
    # Tokens older than max_staleness, in a group whose generations span weight publishes (each
    # token keeps the version that sampled it, SGLang's meta_info.weight_versions): drop_group
    # drops the whole group once its oldest token is too stale; mask keeps the group while its
    # newest token is fresh enough and leaves the stale tokens out of the loss
    # (spec.job.drops_group, payload.train.batch.mask_stale_tokens).
    # Not rendered at its default: the manifests of jobs that do not set it stay as they were.
    stale_tokens: StaleTokens = Field(default="drop_group", exclude_if=lambda v: v == "drop_group")
    # Buffer high-water mark in groups; rollout workers pause above it (backpressure).
    buffer_high_water_groups: int = Field(default=1024, ge=1)
    # Rollout workers score their own groups; false leaves scoring to the verifier pods.
    inline_verifier: bool = True
    # Rollout worker pods (`python -m payload rollout`) on the cpu pool.
    workers: int = Field(default=8, ge=1)
    # Verifier pods (`python -m payload verify`) on the cpu pool.
    verifiers: int = Field(default=2, ge=1)
    # Sandbox pods for the `code` verifier and tool (`python -m payload sandbox`): one program
    # each at a time, so as many as verifier processes and tool calls run at once.
    sandboxes: int = Field(default=4, ge=1)
    # Tasks in flight per rollout worker: enough groups to keep the server's batch full.
    worker_concurrency: int = Field(default=8, ge=1)
    # A task whose worker went silent this long (killed spot node) is reclaimed by another
    # worker: longer than the slowest group takes, short enough not to starve the trainer.
    visibility_timeout_s: float = Field(default=600.0, gt=0)
    # Deliveries before a task goes to the dead-letter stream (a prompt that always fails).
    max_deliveries: int = Field(default=3, ge=1)
    # Ask the servers for every token's experts, for routing replay in the trainer (the
    # trained routes are the ones that sampled the tokens). auto: on wherever the buffer's
    # Redis holds the routes of every group in flight past its byte mark (estimate.buffer.
    # routing_replay_choice; the trainer's cost is measured in bench/README.md: a step within
    # ±3 % of the router's on an H100, about a megabyte more memory a micro-batch).
    return_routed_experts: bool | Auto = "auto"
    # The weights the rollout servers serve: bf16 (the trainer's), or fp8 (SGLang's 128 x 128
    # block FP8 of every attention and expert linear, payload/sync/wire.py): half the bytes of
    # every publish and of the served weights (more KV cache), at the cost of a larger
    # train-rollout logprob gap (the trainer's rollout_kl / rollout_logprob_diff metrics, TIS).
    precision: Literal["bf16", "fp8"] = "bf16"
    # The checkpoint the servers start from (the trainer's exports replace it as they come):
    # default model.path. fp8 needs a block-FP8 checkpoint of the same weights here (config.json
    # quantization_config, e.g. Qwen's own Qwen3-30B-A3B-FP8).
    model_path: str | None = None
    # Multi-turn tasks (data.environment): policy turns per conversation before it is cut.
    max_turns: int = Field(default=8, ge=1)
    # SGLang's /pause_generation mode while the trainer publishes (payload/sync/publisher.py):
    # retract frees running requests' KV and re-prefills them on the new weights (no output token
    # reads old-weight KV); in_place keeps it, and they go on decoding with the new weights after
    # the publish (no re-prefill: the planner's in_place rates), their tokens split between
    # versions (meta_info.weight_versions, kept per token: stale_tokens). in_place sends no
    # flush_cache (0.5.23 refuses one while a request runs), so its servers run with
    # --disable-radix-cache (payload/rollout/sglang_args.py): no old-weight prefix outlives its request.
    pause_mode: Literal["retract", "in_place"] = "retract"
    # MiB of weights the trainer sends the servers a bucket at a time (payload/sync: each
    # trainer GPU holds four buckets while the next step runs, three gathered and the
    # all-gather's receive tensor, estimate.footprint). Smaller buckets cost a few ms each
    # (estimate.costs BUCKET_OVERHEAD_S). auto: the largest bucket, from PUBLISH_BUCKET_MB
    # down by halves to an eighth of it, under which a trainer layout fits its GPUs
    # (estimate.layout.choose_trainer); miles publishes Qwen3-235B-A22B in 1 GiB buckets on
    # 80 GB H100s.
    publish_bucket_mb: int | Auto = "auto"

    @field_validator("publish_bucket_mb", mode="before")
    @classmethod
    def _bucket(cls, value: object) -> object:
        return _positive_or_auto(value, "a positive number of MiB")

    @property
    def publish_bucket_bytes(self) -> int:
        """publish_bucket_mb as the trainer runs it. auto is decided where the pools are known
        (estimate.layout.resolve, and the trainer's own choice of its sizes); a job read on its
        own runs the largest, PUBLISH_BUCKET_MB."""
        return (PUBLISH_BUCKET_MB if self.publish_bucket_mb == "auto" else self.publish_bucket_mb) << 20

    @property
    def routes_replayed(self) -> bool:
        """return_routed_experts as the servers, workers and trainer run it. auto is decided
        where the pools are known (estimate.layout.resolve, which every synthesized job config
        passes through); a job read without its environment cannot know Redis holds the
        routes, so there auto stays off."""
        return self.return_routed_experts is True

    @model_validator(mode="after")
    def _fp8_start(self) -> "RolloutSection":
        if self.precision == "fp8" and self.model_path is None:
            raise ValueError("rollout.precision fp8 needs rollout.model_path: a block-FP8 checkpoint of the "
                             "model the servers start from (config.json quantization_config)")
        return self


class CheckpointSection(_Section):
    # Where DCP checkpoints and HF exports are written (on FSx; exported to the bucket).
    directory: str = "/fsx/checkpoints"
    # A DCP checkpoint every this many steps.
    interval_steps: int = Field(default=50, ge=1)
    # Checkpoints kept; older ones are deleted (in S3 too, by the export).
    keep_last: int = Field(default=3, ge=1)
    # A Hugging Face export (under <directory>/hf), which restarted rollout servers load, every this
    # many steps.
    export_interval_steps: int = Field(default=50, ge=1)
    # Whole-job restarts (every trainer pod, resuming from the last checkpoint) before the
    # trainer JobSet is declared failed.
    max_restarts: int = Field(default=3, ge=0)


# The file types the feeder reads (payload.data.source); a path without a suffix is a
# save_to_disk directory.
PARQUET_SUFFIXES = (".parquet", ".pq")
JSON_LINES_SUFFIXES = (".jsonl", ".json", ".ndjson")


class DataSource(_Section):
    """A dataset on the shared filesystem: a Parquet file, a JSON Lines file (`.jsonl`/`.json`),
    or a directory written by Hugging Face `datasets`' `save_to_disk` (`split` picks one split
    of a saved DatasetDict)."""

    # A Parquet or JSON Lines file, or a save_to_disk directory (on FSx on the cluster).
    path: str
    # The split of a save_to_disk DatasetDict (None: the dataset has no splits).
    split: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, value: object) -> object:
        return {"path": value} if isinstance(value, str) else value

    @field_validator("path")
    @classmethod
    def _known_type(cls, path: str) -> str:
        # Known before any file is read (make manifests): a type the feeder cannot open.
        suffix = Path(path).suffix.lower()
        if suffix and suffix not in PARQUET_SUFFIXES + JSON_LINES_SUFFIXES:
            raise ValueError(f"{path}: unsupported file type {suffix!r}: expected "
                             f"{', '.join(PARQUET_SUFFIXES + JSON_LINES_SUFFIXES)} or a save_to_disk directory")
        return path


class DataColumns(_Section):
    # Exactly one of `prompt` (a text column) and `messages` (a chat column: a list of
    # {role, content}) holds the prompt; neither given: `prompt`.
    prompt: str | None = None
    # A chat column instead (a list of {role, content} messages), rendered by the chat template.
    messages: str | None = None
    # The reference the verifier checks a response against.
    label: str = "answer"
    # Optional per-row verifier name (else `data.verifier`).
    verifier: str | None = None
    # Optional per-row data source name: eval metrics and rewards.sources are per data source (default: the
    # file's name).
    data_source: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _default_prompt(cls, value: object) -> object:
        if isinstance(value, dict) and value.get("prompt") is None and value.get("messages") is None:
            return {**value, "prompt": "prompt"}
        return value

    @model_validator(mode="after")
    def _one_prompt_column(self) -> "DataColumns":
        if (self.prompt is None) == (self.messages is None):
            raise ValueError("set exactly one of columns.prompt (text) and columns.messages (chat messages)")
        return self


# The names a job may give: payload/rewards' verifiers and payload/envs' tool environments
# register under exactly these (tests/payload/rewards and tests/payload/rollout hold them equal).
VERIFIERS = ("code", "exact_match", "math")
TOOL_ENVIRONMENTS = ("calculator", "code")


def _check_environment(name: str) -> str:
    if name not in TOOL_ENVIRONMENTS:
        raise ValueError(f"environment {name!r}: not one of {', '.join(TOOL_ENVIRONMENTS)}")
    return name


class DataSection(_Section):
    """What the feeder (`python -m payload feed`) turns into tasks, and the held-out eval set."""

    # The training set (a path, or {path, split}).
    train: DataSource
    # The held-out eval set (None: no eval).
    eval: DataSource | None = None
    # Which columns hold the prompt, the label and the optional per-row fields.
    columns: DataColumns = Field(default_factory=DataColumns)
    # The verifier that scores every row without a per-row one (columns.verifier).
    verifier: str = "math"

    @field_validator("verifier")
    @classmethod
    def _known_verifier(cls, name: str) -> str:
        if name not in VERIFIERS:
            raise ValueError(f"verifier {name!r}: not one of {', '.join(VERIFIERS)}")
        return name
    # Multi-turn rollouts with tools (payload.envs): the environment of every task, and one per
    # data source (the rows' columns.data_source, else the file's name) that replaces it.
    # None / "": one turn, no tools.
    environment: str | None = None
    # Tool environments per data source, replacing environment for that source's rows.
    environments: dict[str, str] = Field(default_factory=dict)

    @field_validator("environment")
    @classmethod
    def _known_environment(cls, name: str | None) -> str | None:
        return _check_environment(name) if name else name

    @field_validator("environments")
    @classmethod
    def _known_environments(cls, names: dict[str, str]) -> dict[str, str]:
        for source, name in names.items():
            try:
                _check_environment(name)
            except ValueError as exc:
                raise ValueError(f"data source {source!r}: {exc}") from None
        return names

    def environment_for(self, data_source: str) -> str:
        """The environment of a row of `data_source` ("" for one turn)."""
        return self.environments.get(data_source, self.environment or "")
    # A system message put before every prompt (None: none).
    system_prompt: str | None = None
    # Render prompts with the model's own chat template (`apply_chat_template(...,
    # add_generation_prompt=True)`); false sends the text as it is.
    chat_template: bool = True
    # Passed to the template, e.g. {enable_thinking: false} for Qwen3.
    chat_template_kwargs: dict[str, bool | int | float | str] = Field(default_factory=dict)
    # Shuffle the training set every pass (by seed).
    shuffle: bool = True
    # The shuffle's seed.
    seed: int = 0
    # Passes over the training set; or a total step count (the data repeats as needed).
    epochs: int | None = Field(default=None, ge=1)
    # Train this many steps, repeating the data as needed (instead of epochs).
    total_steps: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _consistent(self) -> "DataSection":
        if self.epochs is not None and self.total_steps is not None:
            raise ValueError("set data.epochs or data.total_steps, not both")
        if self.columns.messages is not None and not self.chat_template:
            raise ValueError("columns.messages needs chat_template: true (messages are rendered by the template)")
        if (self.environment or self.environments) and not self.chat_template:
            raise ValueError("data.environment(s) need chat_template: true (the tools' replies are framed by the template)")
        return self

    @property
    def passes(self) -> int | None:
        """Passes over the training set; None: as many as total_steps needs."""
        return None if self.total_steps is not None else (self.epochs or 1)


class EvalSection(_Section):
    # Every this many steps the eval set is rolled out on the current policy; 0: never.
    interval_steps: int = Field(default=0, ge=0)
    # Also evaluate the initial policy before the first step.
    before_training: bool = False
    # 1 with temperature 0: greedy pass@1; n > 1 samples also gives pass@n.
    samples_per_prompt: int = Field(default=1, ge=1)
    # The eval's sampling temperature (0: greedy).
    temperature: float = Field(default=0.0, ge=0)
    # Evaluate the first this many rows of the eval set (None: all).
    max_prompts: int | None = Field(default=None, ge=1)


# What a generative judge is asked (rewards.model.judge_prompt): the response and the row's
# label go in; its last "Score: N" comes out, divided by judge_max_score.
DEFAULT_JUDGE_PROMPT = (
    "Grade the response against the reference answer.\n\nReference answer: {label}\n\nResponse: {response}\n\n"
    "End your reply with one line 'Score: N', N an integer from 0 (wrong) to 10 (fully correct)."
)


class RewardModelSection(_Section):
    """A served reward model (payload/rewards/model.py), of one of two kinds:

    - `scalar`: a Bradley-Terry one-label `*ForSequenceClassification` checkpoint that SGLang
      serves on its `/classify` route. It scores the policy's own token ids (prompt + response,
      no re-tokenization), so it must share the policy's tokenizer and chat template (e.g.
      Skywork-Reward-V2-Qwen3-8B for a Qwen3 policy);
    - `judge`: a generative model asked on SGLang's `/generate` route, with `judge_prompt`
      (the response's text and the row's label filled in, sent as it is: write it in the
      judge's own chat format), greedy; its last "Score: N" divided by `judge_max_score`.
    """

    # scalar: a sequence-classification reward model on /classify; judge: a generative model asked on
    # /generate.
    kind: Literal["scalar", "judge"] = "scalar"
    # The checkpoint on the shared filesystem (read-only on the reward servers).
    path: str
    # What a judge is asked; {response} and {label} are filled in.
    judge_prompt: str = DEFAULT_JUDGE_PROMPT
    # A judge's score is divided by this to give a reward in [0, 1].
    judge_max_score: float = Field(default=10.0, gt=0)
    # The most tokens a judge's reply may have.
    judge_max_tokens: int = Field(default=512, ge=1)
    # An existing reward server (or router) shared by several jobs: this job renders no reward
    # servers of its own and its workers call this URL. None: the job's own reward tier
    # (k8s/charts/reward_servers.py), one SGLang replica per `tensor_parallel_size` GPUs.
    url: str | None = None
    # GPUs per reward server replica (SGLang's tensor parallelism).
    tensor_parallel_size: int = Field(default=1, ge=1)
    # SGLang replicas of the job's own tier (what `payload plan --reward-prefill-tokens-per-s`
    # sizes from the rollout rate); their GPUs come out of the rollout pool.
    replicas: int = Field(default=1, ge=1)
    # One /classify call (a whole group) may take this long before the group is handed back.
    timeout_s: float = Field(default=120.0, gt=0)

    def nodes(self, gpus_per_node: int) -> int:
        """Whole rollout nodes the job's own tier takes (replicas packed `gpus / tp` to a node)."""
        return -(-self.replicas // (gpus_per_node // self.tensor_parallel_size))

    @field_validator("judge_prompt")
    @classmethod
    def _fills_the_response(cls, prompt: str) -> str:
        try:
            prompt.format(response="", label="")
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(f"may hold only the fields {{response}} and {{label}} ({exc!r})") from None
        if "{response}" not in prompt:
            raise ValueError("must contain {response} (where the judged response goes)")
        return prompt

    @field_validator("url")
    @classmethod
    def _http_url(cls, url: str | None) -> str | None:
        if url is not None and not url.startswith(("http://", "https://")):
            raise ValueError(f"{url!r}: expected http://host:port or https://host:port")
        return url


class RewardWeights(_Section):
    """A sample's reward: verifier × its score + model × the reward model's score."""

    # Weight of the verifier's score in the reward.
    verifier: float = Field(default=1.0, ge=0)
    # Weight of the reward model's score in the reward (> 0 needs rewards.model).
    model: float = Field(default=0.0, ge=0)

    @model_validator(mode="after")
    def _some_reward(self) -> "RewardWeights":
        if self.verifier == 0 and self.model == 0:
            raise ValueError("verifier and model weights are both 0: every reward would be 0")
        return self


class RewardsSection(_Section):
    """How samples are scored: the task's verifier, a served reward model, or a weighted sum,
    per data source (the rows' columns.data_source, else the file's name)."""

    # A served reward model (None: verifiers only).
    model: RewardModelSection | None = None
    # The reward weights of data sources not listed in sources.
    default: RewardWeights = Field(default_factory=RewardWeights)
    # Reward weights per data source (the rows' columns.data_source, else the file's name).
    sources: dict[str, RewardWeights] = Field(default_factory=dict)

    def weights_for(self, data_source: str) -> RewardWeights:
        return self.sources.get(data_source, self.default)

    @property
    def uses_model(self) -> bool:
        return any(w.model > 0 for w in (self.default, *self.sources.values()))

    @property
    def serves_model(self) -> bool:
        """Whether this job renders its own reward servers (a model, and no shared url)."""
        return self.model is not None and self.model.url is None

    @model_validator(mode="after")
    def _model_when_weighted(self) -> "RewardsSection":
        if self.uses_model and self.model is None:
            weighted = "default" if self.default.model > 0 else next(f"sources.{s}" for s, w in self.sources.items() if w.model > 0)
            raise ValueError(f"{weighted}.model weight > 0 needs rewards.model (a reward model's path, or url)")
        return self
class TrackingSection(_Section):
    """MLflow experiment tracking (payload/train/tracking.py): the trainer's rank 0 logs the job,
    every step's metrics, the eval results, the HF exports and a few sample generations per step
    to one run per checkpoint directory; TensorBoard event files beside it on request."""

    # An http(s):// MLflow tracking server; None: $MLFLOW_TRACKING_URI, else the in-cluster server
    # when `server` is on (the trainer chart sets the variable), else no tracking.
    uri: str | None = None
    # Deploy the cluster's own tracking server (k8s/charts/tracking.py): PostgreSQL on the memory
    # pool, artifacts in the environment's S3 bucket.
    server: bool = True
    # The MLflow experiment the run is logged under.
    experiment: str = "moe-grpo"
    # The run's display name; default: the checkpoint directory's last component.
    run_name: str | None = None
    # Seconds one request to the tracking server may take. Tracking runs on the trainer's critical
    # path (rank 0, between steps): a server that does not answer in this long is given up on for
    # the rest of the run (one warning).
    timeout_s: float = Field(default=10.0, gt=0, le=120)
    # Sample generations logged each step (prompt, response, reward, verdict; the best and the worst
    # response of the first groups): on the trainer's console, as the MLflow artifact
    # samples/step-N.json and in TensorBoard's text tab; 0: none. Left out of the rendered job at
    # its default, so adding it changed no ConfigMap (nor the pods' job-config hash).
    samples_per_step: int = Field(default=4, ge=0, exclude_if=lambda v: v == 4)
    # Also write TensorBoard event files (tensorboardX) under <checkpoint.directory>/tensorboard:
    # every step's metrics, the eval results and the samples; on the cluster they are exported to
    # the bucket with the checkpoints. Left out of the rendered job at its default.
    tensorboard: bool = Field(default=False, exclude_if=lambda v: v is False)

    @field_validator("uri")
    @classmethod
    def _http(cls, uri: str | None) -> str | None:
        if uri is not None and not uri.startswith(("http://", "https://")):
            raise ValueError(f"{uri!r}: expected an http(s):// MLflow tracking server")
        return uri


def _pinned(image: str) -> str:
    if "@sha256:" in image:
        return image
    name, _, tag = image.rpartition(":")
    if not name or "/" in tag or not tag:
        raise ValueError(f"{image!r} has no tag; pin a tag or digest (never latest)")
    if tag == "latest":
        raise ValueError(f"{image!r} uses 'latest'; pin a tag or digest")
    return image


class ImagesSection(_Section):
    # The payload image (trainer, workers, verifiers, embedded engine). `{ecr}` is replaced
    # with the ECR repository URI from cdk-outputs.json, `{commit}` with the checkout's commit
    # (`make image`, `make manifests`; ECR's tags are immutable: one tag per build).
    payload: str = "{ecr}:0.1.0"
    # SGLang's own CUDA 13 image of the pinned release (torch 2.14.1, sgl-deep-ep 0.1.2.post1);
    # the Dockerfile builds the payload image on it (a test holds them equal).
    sglang: str = "lmsysorg/sglang:v0.5.23-cu130"
    # The Redis image of the experience buffer and task queue (Redis 7 or newer).
    redis: str = "redis:8.2.2-alpine"
    # The model gateway image of the sglang-router 0.3.2 release (the parser the tests use).
    router: str = "lmsysorg/sgl-model-gateway:v0.3.2"
    # Prometheus exporter sidecar of the Redis experience buffer.
    redis_exporter: str = "oliver006/redis_exporter:v1.74.0"
    # The tracking server: MLflow's own image with its extras, db (psycopg2) and auth extras
    # (docker/Dockerfile.full), the release tests/mlflow_server/requirements.txt pins.
    mlflow: str = "ghcr.io/mlflow/mlflow:v3.17.2-full"
    # Its backend store (Debian, like the MLflow image; PostgreSQL 17).
    postgres: str = "postgres:17.6-bookworm"

    _check = field_validator("payload", "sglang", "redis", "router", "redis_exporter", "mlflow", "postgres")(classmethod(lambda cls, v: _pinned(v)))


class JobConfig(_Section):
    # The policy checkpoint and how the trainer holds it.
    model: ModelSection = Field(default_factory=ModelSection)
    # The trainer's and the rollout servers' layout (auto: chosen from the model and the pools).
    parallel: ParallelSection = Field(default_factory=ParallelSection)
    # GRPO's hyper-parameters and the loss.
    algorithm: AlgorithmSection = Field(default_factory=AlgorithmSection)
    # Batch sizes, packing and the prompt and response length limits.
    batch: BatchSection = Field(default_factory=BatchSection)
    # Sampling, staleness, the rollout workers, verifiers and sandboxes, and the servers' weights.
    rollout: RolloutSection = Field(default_factory=RolloutSection)
    # DCP checkpoints, HF exports and restarts.
    checkpoint: CheckpointSection = Field(default_factory=CheckpointSection)
    # The pinned container images (a tag or digest, never latest).
    images: ImagesSection = Field(default_factory=ImagesSection)
    # The training and eval sets (None: no feeder; the job needs it to train).
    data: DataSection | None = None
    # Held-out evaluation during training.
    eval: EvalSection = Field(default_factory=EvalSection)
    # How samples are scored: verifiers, a reward model, or both.
    rewards: RewardsSection = Field(default_factory=RewardsSection)

    # MLflow tracking of the run (and TensorBoard event files).
    tracking: TrackingSection = Field(default_factory=TrackingSection)

    @property
    def rollout_model_path(self) -> str:
        """The checkpoint the rollout servers start from (rollout.model_path, else model.path)."""
        return self.rollout.model_path or self.model.path

    @model_validator(mode="after")
    def _consistent(self) -> "JobConfig":
        if self.rollout.precision == "fp8" and self.model.dtype != "bfloat16":
            raise ValueError("rollout.precision fp8 needs model.dtype bfloat16 (the unquantized tensors go in it)")
        if self.model.experts_precision == "fp8" and self.model.dtype != "bfloat16":
            raise ValueError("model.experts_precision fp8 needs model.dtype bfloat16 (torch._scaled_grouped_mm "
                             "takes bf16 activations)")
        if self.batch.prompts_per_step * self.algorithm.group_size % self.batch.micro_batch_size:
            raise ValueError(
                f"batch.micro_batch_size {self.batch.micro_batch_size} must divide prompts_per_step × group_size "
                f"({self.batch.prompts_per_step} × {self.algorithm.group_size})"
            )
        overlong = self.algorithm.overlong_penalty
        if overlong is not None and overlong.buffer_tokens > self.batch.max_response_tokens:
            raise ValueError(f"algorithm.overlong_penalty.buffer_tokens {overlong.buffer_tokens} must be at most "
                             f"batch.max_response_tokens {self.batch.max_response_tokens}")
        if (self.eval.interval_steps or self.eval.before_training) and (self.data is None or self.data.eval is None):
            raise ValueError("eval.interval_steps / eval.before_training need an eval set (data.eval)")
        if self.parallel.pipeline_parallel_size not in ("auto", 1):
            # Pipeline stages pass one packed row per micro-batch (payload.train.pipeline).
            if not self.batch.packing:
                raise ValueError("parallel.pipeline_parallel_size > 1 needs batch.packing: true")
            if self.algorithm.router_aux_loss_coef > 0:
                raise ValueError("parallel.pipeline_parallel_size > 1 needs algorithm.router_aux_loss_coef 0 "
                                 "(the load-balancing statistics would span every stage's layers)")
        return self


def parse_job_config(data: object, source: str) -> JobConfig:
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise JobConfigError(f"{source}: job: expected a mapping")
    try:
        return JobConfig.model_validate(data)
    except ValidationError as exc:
        raise JobConfigError(f"{source}: {schema_errors(exc, JobConfig, _describe, prefix=('job',))}") from None


def _describe(error: dict[str, Any]) -> str:
    """One pydantic error, named by its field (unknown keys: spec.config_errors)."""
    where = "job." + ".".join(str(p) for p in error["loc"]) if error["loc"] else "job"
    message = "required field is missing" if error["type"] == "missing" else error["msg"].removeprefix("Value error, ")
    return f"{where}: {message}"


def load_job_config(path: str | os.PathLike[str] | None = None) -> JobConfig:
    """Read the job description a pod was given (the rendered ConfigMap)."""
    path = Path(path or os.environ.get(JOB_CONFIG_ENV, JOB_CONFIG_PATH))
    if not path.is_file():
        raise JobConfigError(f"job config {path} does not exist (set {JOB_CONFIG_ENV})")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise JobConfigError(f"{path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})") from None
    except yaml.YAMLError as exc:
        raise JobConfigError(yaml_problem(str(path), exc)) from None
    return parse_job_config(data, str(path))
