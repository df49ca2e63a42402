"""SGLang's server arguments for one rollout replica: the one place the chart and `serve` take
them from, so every flag is one the pinned release (payload.versions.SGLANG) parses; the
contract tests run both through that release's own ServerArgs parser. The replica's layout and
SGLang's rules for it (which MoE all-to-all backend a layout takes) are spec.layout's.
"""

from __future__ import annotations

from estimate.engine_fit import ServerFlags
from spec.job import JobConfig
from spec.layout import DEEPEP_V2_MULTI_NODE_MODE, LayoutError, moe_a2a_backend, server_layout_of


def server_args(job: JobConfig, *, model_path: str, host: str, port: int, nodes: int = 1,
                flags: ServerFlags | None = None) -> list[str]:
    """`sglang.launch_server` arguments for one replica (without --weight-version: `serve` adds
    the version it starts from; without the multi-node rendezvous flags: the caller knows them).
    `flags`: the planner's fit of the replica (estimate.throughput.server_flags(env)): its batch
    as --max-running-requests, decode CUDA graphs captured up to it (SGLang 0.5.23 stops at 512
    on an H100/H200 at TP >= 4, 256 below, and decodes a larger batch eagerly) and the
    --mem-fraction-static the KV cache was sized with; None: SGLang's own defaults."""
    servers = server_layout_of(job.parallel, gpus_per_node=1)  # resolved where the pools are known
    tp, ep = servers.tensor_parallel, servers.expert_parallel
    args = [
        "--model-path", model_path,
        # Exports from the trainer carry weights and config only; the tokenizer is the base model's.
        "--tokenizer-path", job.model.path,
        "--dtype", job.model.dtype,
        "--tp-size", str(tp),
        "--ep-size", str(ep),
        "--enable-metrics",
        "--host", host,
        "--port", str(port),
    ]  # fmt: skip
    backend = moe_a2a_backend(tp, ep, nodes)
    if backend == "deepep_v2":
        args += ["--moe-a2a-backend", backend, "--deepep-v2-mode", DEEPEP_V2_MULTI_NODE_MODE]
    if job.rollout.precision == "fp8":
        # Block FP8 (payload/sync/wire.py): the checkpoint's config.json quantization_config
        # makes the release build Fp8Config layers with weight_scale_inv beside each weight, the
        # names and dtypes each publish then sends; the flag makes a bf16 start checkpoint an
        # error at launch instead of per-tensor online quantization the publishes cannot update.
        args += ["--quantization", "fp8"]
    if job.rollout.pause_mode == "in_place":
        # Requests paused in place keep their old-weight KV and 0.5.23 cannot flush the radix
        # cache while any run (payload/sync/publisher.py): without the cache no old-weight
        # prefix outlives the request that computed it.
        args.append("--disable-radix-cache")
    if flags is not None:
        args += flags.args()
    if job.rollout.routes_replayed:
        # Routing replay: each response carries the experts every token was routed to.
        args.append("--enable-return-routed-experts")
    return args


def reward_server_args(job: JobConfig, *, host: str, port: int) -> list[str]:
    """`sglang.launch_server` arguments for one replica of the job's reward tier
    (job.rewards.model): a sequence-classification model answering /classify."""
    model = job.rewards.model
    if model is None:
        raise LayoutError("job.rewards.model is not set: there is no reward model to serve")
    if model.kind == "judge":
        # A generative judge answers /generate like any causal LM.
        return ["--model-path", model.path, "--tp-size", str(model.tensor_parallel_size), "--enable-metrics",
                "--host", host, "--port", str(port)]
    return [
        "--model-path", model.path,
        # Pooled serving (/classify): sglang 0.5.23 infers it only for native encoder
        # architectures; a decoder checkpoint needs this explicit opt-in
        # (arg_groups/model_hook.py). Its score head is then read at the last token
        # (models/qwen3_classification.py: PoolingType.LAST, not normalized with a label map).
        "--is-embedding",
        "--tp-size", str(model.tensor_parallel_size),
        "--enable-metrics",
        "--host", host,
        "--port", str(port),
    ]  # fmt: skip
