"""How a Qwen3-MoE model splits into pipeline stages: per-token cost of each piece, and the
contiguous layer ranges that balance it. Arithmetic only (no torch): the trainer
(payload.train.pipeline) and the planner (estimate.footprint) split the same way."""

from __future__ import annotations

import math

# Embedding backward is a scatter-add of [T, D] rows; its forward a gather. Both are memory
# bound: one row read and one written per token, counted as that many FLOPs at ~280 TFLOP/s
# against ~4.8 TB/s of HBM (58 FLOPs a byte) — small next to one decoder layer, but counted.
_FLOPS_PER_BYTE = 58


def layer_costs(config, mean_sample_tokens: int = 4096) -> tuple[float, list[float], float]:
    """(embedding, each decoder layer, LM head) forward cost per token, in FLOPs."""
    d, hd = config.hidden_size, config.head_dim
    heads, kv = config.num_attention_heads, config.num_key_value_heads
    attention = 2 * d * hd * (2 * heads + 2 * kv) + 4 * heads * hd * mean_sample_tokens / 2  # projections + causal scores
    layers = []
    for i in range(config.num_hidden_layers):
        if config.is_moe_layer(i):
            mlp = 2 * config.num_experts_per_tok * 3 * d * config.moe_intermediate_size + 2 * d * config.num_experts
        else:
            mlp = 2 * 3 * d * config.intermediate_size
        layers.append(attention + mlp)
    embedding = 2 * d * 2 * _FLOPS_PER_BYTE  # one bf16 row read and written
    head = 2 * d * config.vocab_size
    return embedding, layers, head


def split_layers(config, stages: int, mean_sample_tokens: int = 4096) -> list[range]:
    """Contiguous layer ranges, one per stage, minimising the costliest stage (the first also
    carries the embedding, the last the LM head); every stage gets at least one layer."""
    layers = config.num_hidden_layers
    if stages < 1 or stages > layers:
        raise ValueError(
            f"parallel.pipeline_parallel_size {stages} must be between 1 and the model's {layers} layers")
    embedding, costs, head = layer_costs(config, mean_sample_tokens)
    prefix = [0.0]
    for c in costs:
        prefix.append(prefix[-1] + c)

    def cost(stage: int, a: int, b: int) -> float:
        return prefix[b] - prefix[a] + (embedding if stage == 0 else 0) + (head if stage == stages - 1 else 0)

    # best[s][i]: the least max-stage cost putting layers [0, i) on stages [0, s).
    best = [[math.inf] * (layers + 1) for _ in range(stages + 1)]
    cut = [[0] * (layers + 1) for _ in range(stages + 1)]
    best[0][0] = 0.0
    for s in range(1, stages + 1):
        for i in range(s, layers - (stages - s) + 1):
            for j in range(s - 1, i):
                value = max(best[s - 1][j], cost(s - 1, j, i))
                if value < best[s][i]:
                    best[s][i], cut[s][i] = value, j
    bounds, i = [], layers
    for s in range(stages, 0, -1):
        bounds.append(range(cut[s][i], i))
        i = cut[s][i]
    return bounds[::-1]
