"""SGLang's server arguments for one rollout replica: the one place the chart and `serve` take
them from, so every flag is one the pinned release (payload.versions.SGLANG) parses; the
contract tests run both through that release's own ServerArgs parser.

MoE all-to-all backend per replica layout (rules read from sglang 0.5.23's
srt/arg_groups/overrides.py and srt/model_executor/model_runner_components/moe_ep_setup.py):
- expert parallelism inside one node: SGLang's default (`none`): experts are split over the
  NVLink domain and their tokens gathered/reduced with NCCL over NVLink; DeepEP would add
  buffers and a second communication path for no bandwidth gain;
- expert parallelism across nodes: `deepep_v2` (DeepEP v2's ElasticBuffer from sgl-deep-ep,
  the same DeepEP the trainer uses) with its topology set explicitly to `hybrid` (NVLink inside
  a node, the NIC across nodes), never left to a default. SGLang forces ep_size = tp_size for
  every EP-spanning backend, so such a layout must already say ep == tp.
"""

from __future__ import annotations

from spec.job import JobConfig

# DeepEP v2 topology for a replica spanning nodes ("direct" is single-node NVLink only).
DEEPEP_V2_MULTI_NODE_MODE = "hybrid"


class LayoutError(ValueError):
    """A rollout layout SGLang would reject or silently change."""


def moe_a2a_backend(tensor_parallel: int, expert_parallel: int, nodes: int) -> str:
    """The MoE all-to-all backend for a replica of `nodes` nodes; raises on a layout SGLang breaks."""
    if tensor_parallel % expert_parallel:
        raise LayoutError(
            f"job.parallel.rollout_expert_parallel_size {expert_parallel} must divide rollout_tensor_parallel_size "
            f"{tensor_parallel} (SGLang splits the MoE's tensor-parallel group into expert-parallel ranks)"
        )
    if expert_parallel > 1 and nodes > 1:
        if expert_parallel != tensor_parallel:
            raise LayoutError(
                f"job.parallel.rollout_expert_parallel_size {expert_parallel} must equal rollout_tensor_parallel_size "
                f"{tensor_parallel} when a replica spans {nodes} nodes (SGLang's deepep_v2 backend forces "
                "ep_size = tp_size)"
            )
        return "deepep_v2"
    return "none"


def server_args(job: JobConfig, *, model_path: str, host: str, port: int, nodes: int = 1) -> list[str]:
    """`sglang.launch_server` arguments for one replica (without --weight-version: `serve` adds
    the version it starts from; without the multi-node rendezvous flags: the caller knows them)."""
    p = job.layout  # the job's model's layout (job.parallel.models)
    tp, ep = p.rollout_tensor_parallel_size, p.rollout_expert_parallel_size
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
    if job.rollout.return_routed_experts:
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
