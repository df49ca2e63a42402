"""Does one SGLang replica of a model fit its GPUs: weights at the rollout precision, then a KV
cache for one group at the job's lengths.

    fit = engine_fit(config, tensor_parallel=8, precision="bf16", gpu_memory_gb=141,
                     group_size=16, max_prompt_tokens=2048, max_response_tokens=16384)

A replica of TP t GPUs (EP inside it: experts split over EP ranks, everything else over TP, so
a GPU holds 1/t of the weights either way) keeps `mem_fraction_static` of each GPU for weights
and KV cache (SGLang's --mem-fraction-static; the rest is activations and CUDA graphs). The KV
cache must hold at least one group at the job's caps: its prompt once (the radix cache shares it
across the group's samples) and G responses of max_response_tokens, because a rollout worker
sends a group's G requests together and a replica that cannot hold them retracts and re-prefills
them over and over. Qwen3-235B-A22B at TP 4 in bf16 is the case this refuses: 118 GB of
weights a GPU leave 2 GB, KV for ~48 k tokens against the 264 k a group of 16 × 16 k needs.
"""

from __future__ import annotations

from dataclasses import dataclass

# SGLang 0.5.23, srt/arg_groups/memory_hook.py handle_gpu_memory_settings: with no
# --cuda-graph-max-bs-decode, decode CUDA graphs are captured up to a batch set by the GPU's
# memory (MiB, torch's total) and the TP size: (memory below, TP < 4, TP >= 4). H100 80 GB and
# H200 141 GB both fall in the "< 160 GiB" row: 256 at TP 1-2, 512 at TP 4-8. A decode batch
# above the limit runs eagerly (no graph replay).
_SGLANG_DECODE_GRAPH_MAX_BS = ((20 * 1024, 8, 8), (35 * 1024, 48, 160), (60 * 1024, 32, 160),
                               (90 * 1024, 256, 512), (160 * 1024, 256, 512))
_SGLANG_DECODE_GRAPH_MAX_BS_LARGER = 512  # B200, MI300

# The same function's --mem-fraction-static default: the GPU's memory less a reserve, in MiB,
# of 512 + 1.5 x max(chunked prefill, 2048) + TP x PP / 8 x 1024 + 2 x the decode graph's max
# batch (reserve_for_graph_mb), at least 10 GiB on GPUs over 60 GiB; chunked prefill defaults
# to 8192 on both H100 and H200. (Prefill graphs add 8 MiB a captured size and DeepEP its
# buffers; neither is counted here.)
_SGLANG_CHUNKED_PREFILL = 8192


def sglang_decode_graph_max_bs(gpu_memory_gb: float, tensor_parallel: int) -> int:
    """SGLang 0.5.23's default decode CUDA-graph batch limit on this GPU at this TP."""
    mib = gpu_memory_gb * 1e9 / 2**20
    for below, small_tp, large_tp in _SGLANG_DECODE_GRAPH_MAX_BS:
        if mib < below:
            return small_tp if tensor_parallel < 4 else large_tp
    return _SGLANG_DECODE_GRAPH_MAX_BS_LARGER


def sglang_mem_fraction_static(gpu_memory_gb: float, tensor_parallel: int, graph_max_bs: int) -> float:
    """SGLang 0.5.23's own --mem-fraction-static for a decode graph of `graph_max_bs`."""
    mib = gpu_memory_gb * 1e9 / 2**20
    reserved = 512 + 1.5 * max(_SGLANG_CHUNKED_PREFILL, 2048) + tensor_parallel / 8 * 1024 + 2 * graph_max_bs
    if mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    return round((mib - reserved) / mib, 3)


@dataclass(frozen=True)
class ServerFlags:
    """What a replica's SGLang is told so it runs the batch the planner fitted
    (payload.rollout.sglang_args renders them): at most `max_running_requests` at once, decode
    CUDA graphs captured up to that batch (so no step of it runs eagerly), and the static memory
    share the planner sized the KV cache with."""

    max_running_requests: int
    cuda_graph_max_bs: int
    mem_fraction_static: float

    def args(self) -> list[str]:
        return ["--max-running-requests", str(self.max_running_requests),
                "--cuda-graph-max-bs-decode", str(self.cuda_graph_max_bs),
                "--mem-fraction-static", f"{self.mem_fraction_static:g}"]


def kv_bytes_per_token(config, tensor_parallel: int = 1) -> float:
    """bf16 K and V of one token on one GPU of a TP group (KV heads split, then replicated)."""
    heads = config.num_key_value_heads / min(tensor_parallel, config.num_key_value_heads)
    return 2 * config.num_hidden_layers * heads * config.head_dim * 2



@dataclass(frozen=True)
class EngineFit:
    tensor_parallel: int
    precision: str
    weights_gb_per_gpu: float
    budget_gb_per_gpu: float  # mem_fraction_static of one GPU: weights + KV cache
    kv_capacity_tokens: int
    group_tokens: int  # KV one group needs at the job's caps

    @property
    def fits(self) -> bool:
        return self.kv_capacity_tokens >= self.group_tokens

    def describe(self) -> str:
        return (f"{self.weights_gb_per_gpu:.1f} GB of {self.precision} weights a GPU leave "
                f"{max(self.budget_gb_per_gpu - self.weights_gb_per_gpu, 0):.1f} GB of the {self.budget_gb_per_gpu:.1f} GB "
                f"SGLang keeps: KV for {self.kv_capacity_tokens:,} tokens, one group needs {self.group_tokens:,}")


def engine_fit(config, *, tensor_parallel: int, precision: str, gpu_memory_gb: float, group_size: int,
               max_prompt_tokens: int, max_response_tokens: int, mem_fraction_static: float = 0.85) -> EngineFit:
    """`config` (spec.model_shape.Qwen3MoeConfig) gives the served bytes at `precision`."""
    weights = config.publish_bytes(precision) / tensor_parallel
    budget = mem_fraction_static * gpu_memory_gb * 1e9
    room = budget - weights
    capacity = int(room / kv_bytes_per_token(config, tensor_parallel)) if room > 0 else 0
    return EngineFit(tensor_parallel, precision, weights / 1e9, budget / 1e9, capacity,
                     max_prompt_tokens + group_size * max_response_tokens)
