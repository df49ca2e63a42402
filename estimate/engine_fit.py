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
