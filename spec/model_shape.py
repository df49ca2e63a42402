"""A Qwen3-MoE model's shape: the figures of its Hugging Face config.json that size its memory,
its data movements and its layout, and the released checkpoints' own config.json files."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Architecture:
    """The shape figures of a Qwen3-MoE model that size its data movements (HF config.json names)."""

    vocab_size: int
    hidden_size: int
    moe_intermediate_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    num_experts: int
    tie_word_embeddings: bool = False
    # Experts each token is routed to (its routing-replay record: one id per MoE layer each).
    num_experts_per_tok: int = 8

    @classmethod
    def of_hf_config(cls, config: dict) -> "Architecture":
        """From a Hugging Face config.json's fields (head_dim defaults as in transformers)."""
        d, heads = config["hidden_size"], config["num_attention_heads"]
        return cls(config["vocab_size"], d, config["moe_intermediate_size"], config["num_hidden_layers"], heads,
                   config["num_key_value_heads"], config.get("head_dim") or d // heads, config["num_experts"],
                   bool(config.get("tie_word_embeddings", False)), int(config.get("num_experts_per_tok", 8)))

    @property
    def parameters(self) -> int:
        d, heads, kv, hd = self.hidden_size, self.num_attention_heads, self.num_key_value_heads, self.head_dim
        attention = d * heads * hd * 2 + d * kv * hd * 2 + 2 * hd  # q, o, k, v, q/k norms
        experts = self.num_experts * 3 * d * self.moe_intermediate_size
        layer = attention + experts + self.num_experts * d + 2 * d  # router, two norms
        embeddings = self.vocab_size * d * (1 if self.tie_word_embeddings else 2)
        return self.num_hidden_layers * layer + embeddings + d

    def quantized_linears(self) -> list[tuple[int, int, int]]:
        """(count, out, in) of the linears SGLang serves as block FP8 (payload/sync/fp8.py):
        attention q/k/v/o and every expert's gate/up/down; not the router, norms, embeddings."""
        d, f, e, layers = self.hidden_size, self.moe_intermediate_size, self.num_experts, self.num_hidden_layers
        q, kv = self.num_attention_heads * self.head_dim, self.num_key_value_heads * self.head_dim
        return [(layers, q, d), (2 * layers, kv, d), (layers, d, q), (2 * layers * e, f, d), (layers * e, d, f)]

    def publish_bytes(self, precision: str = "bf16") -> int:
        """Bytes one publish moves to each server: bf16, or fp8 (the quantized linears' one byte
        a parameter plus a float32 scale a 128 x 128 block; the rest bf16)."""
        if precision == "bf16":
            return 2 * self.parameters
        if precision != "fp8":
            raise ValueError(f"rollout precision {precision!r}: expected bf16 or fp8")
        quantized = sum(n * o * i for n, o, i in self.quantized_linears())
        scales = sum(n * -(-o // 128) * -(-i // 128) for n, o, i in self.quantized_linears())
        return 2 * (self.parameters - quantized) + quantized + 4 * scales

    @property
    def tensors(self) -> int:
        """HF-named tensors (experts one by one): what a per-tensor publish or load walks."""
        per_layer = 8 + 1 + 3 * self.num_experts  # q k v o q_norm k_norm 2 norms, router, experts
        return self.num_hidden_layers * per_layer + 2 + (0 if self.tie_word_embeddings else 1)


# The released checkpoints' config.json files, unchanged, one per model: the only description of
# their sizes (`plan --model-config NAME` reads the same file for the memory model).
ARCHITECTURE_CONFIGS: dict[str, Path] = {
    path.stem: path for path in sorted((Path(__file__).resolve().parent / "architectures").glob("*.json"))
}
ARCHITECTURES: dict[str, Architecture] = dict(sorted(  # smallest first
    ((name, Architecture.of_hf_config(json.loads(path.read_text()))) for name, path in ARCHITECTURE_CONFIGS.items()),
    key=lambda item: item[1].parameters,
))

def architecture_of(model_path: str, name: str | None = None) -> tuple[str, Architecture]:
    """The architecture named by `name`, else by the model directory's last component."""
    key = name or model_path.rstrip("/").rsplit("/", 1)[-1]
    if key not in ARCHITECTURES:
        raise KeyError(key)
    return key, ARCHITECTURES[key]
