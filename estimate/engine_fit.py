"""Does one SGLang replica of a model fit its GPUs: weights at the rollout precision, then a KV
cache for one group at the job's lengths.

    fit = engine_fit(config, architecture, tensor_parallel=8, precision="bf16", gpu_memory_gb=141,
                     group_size=16, max_prompt_tokens=2048, max_response_tokens=16384)
    check_engine_fit(env, config, architecture, model)   # BalanceError naming the field

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

from estimate.loop import BalanceError


def kv_bytes_per_token(config, tensor_parallel: int = 1) -> float:
    """bf16 K and V of one token on one GPU of a TP group (KV heads split, then replicated)."""
    heads = config.num_key_value_heads / min(tensor_parallel, config.num_key_value_heads)
    return 2 * config.num_hidden_layers * heads * config.head_dim * 2


def architecture_of_config(config):
    """spec.model_shape.Architecture of a Qwen3MoeConfig (a released model's, or any config.json)."""
    from spec.model_shape import Architecture

    return Architecture(config.vocab_size, config.hidden_size, config.moe_intermediate_size, config.num_hidden_layers,
                        config.num_attention_heads, config.num_key_value_heads, config.head_dim, config.num_experts,
                        config.tie_word_embeddings, config.num_experts_per_tok)


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


def engine_fit(config, architecture, *, tensor_parallel: int, precision: str, gpu_memory_gb: float, group_size: int,
               max_prompt_tokens: int, max_response_tokens: int, mem_fraction_static: float = 0.85) -> EngineFit:
    """`architecture` (spec.model_shape.Architecture) gives the served bytes at `precision`."""
    weights = architecture.publish_bytes(precision) / tensor_parallel
    budget = mem_fraction_static * gpu_memory_gb * 1e9
    room = budget - weights
    capacity = int(room / kv_bytes_per_token(config, tensor_parallel)) if room > 0 else 0
    return EngineFit(tensor_parallel, precision, weights / 1e9, budget / 1e9, capacity,
                     max_prompt_tokens + group_size * max_response_tokens)


def check_engine_fit(env, config, architecture, model: str, mem_fraction_static: float = 0.85) -> EngineFit:
    """The environment's rollout layout for `model` (job.parallel.models.<model>, else
    job.parallel) on one GPU of its rollout pool; raises BalanceError naming the field."""
    job, rollout = env.job, env.pools.rollout
    layout = job.parallel.for_model(model)
    tp = layout.rollout_tensor_parallel_size

    def at(tensor_parallel: int) -> EngineFit:
        return engine_fit(config, architecture, tensor_parallel=tensor_parallel, precision=job.rollout.precision,
                          gpu_memory_gb=rollout.spec.gpu_memory_gb, group_size=job.algorithm.group_size,
                          max_prompt_tokens=job.batch.max_prompt_tokens,
                          max_response_tokens=job.batch.max_response_tokens, mem_fraction_static=mem_fraction_static)

    fit = at(tp)
    if not fit.fits:
        field = (f"job.parallel.models.{model}.rollout_tensor_parallel_size" if model in job.parallel.models
                 and job.parallel.models[model].rollout_tensor_parallel_size is not None
                 else "job.parallel.rollout_tensor_parallel_size")
        larger = [t for t in (1, 2, 4, 8, 16) if t > tp and at(t).fits]
        raise BalanceError(
            f"{field} {tp}: {model} does not fit one replica on {rollout.instance_type} "
            f"({rollout.spec.gpu_memory_gb:.0f} GB GPUs, mem_fraction_static {mem_fraction_static}): {fit.describe()} "
            f"({job.batch.max_prompt_tokens:,} + {job.algorithm.group_size} x {job.batch.max_response_tokens:,}); "
            f"use {larger[0] if larger else 'more GPUs'}"
            + (", or rollout.precision fp8" if job.rollout.precision == "bf16" else ""))
    return fit
