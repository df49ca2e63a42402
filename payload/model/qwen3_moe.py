"""Qwen3-MoE causal LM: RMSNorm, grouped-query attention with q/k norm and RoPE through
`scaled_dot_product_attention`, sparse MoE blocks (moe.py), tied or untied LM head.

Module and parameter names are the HF ones (model.layers.N.self_attn.q_proj.weight ...), so
`state_dict()` keys equal the checkpoint's except the experts, which checkpoint.py splits.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

from spec.model_shape import Qwen3MoeConfig
from payload.model.logprobs import linear_logprobs
from payload.model.moe import SparseMoeBlock, load_balancing_loss
from payload.model.packed import PackedSequences


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x32 = x.to(torch.float32)
        x32 = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x32.to(x.dtype)


class RotaryEmbedding(nn.Module):
    """Frequencies are recomputed per call (head_dim/2 numbers) rather than kept as a buffer, so
    they stay fp32 whatever dtype the model is cast to and exist on a meta-built model."""

    def __init__(self, head_dim: int, theta: float) -> None:
        super().__init__()
        self.head_dim, self.theta = head_dim, theta

    def forward(self, position_ids_BT: torch.Tensor, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
        exponent = torch.arange(0, self.head_dim, 2, dtype=torch.float32, device=position_ids_BT.device) / self.head_dim
        inv_freq = 1.0 / (self.theta**exponent)
        freqs_BTH = position_ids_BT[..., None].to(torch.float32) * inv_freq
        emb = torch.cat((freqs_BTH, freqs_BTH), dim=-1)
        return emb.cos().to(dtype), emb.sin().to(dtype)


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary(x_BHTd: torch.Tensor, cos_BTd: torch.Tensor, sin_BTd: torch.Tensor) -> torch.Tensor:
    cos, sin = cos_BTd.unsqueeze(1), sin_BTd.unsqueeze(1)
    return x_BHTd * cos + _rotate_half(x_BHTd) * sin


class KVCache:
    """Keys and values of every layer for a batch decoded in lock-step.

    All sequences share one write position (`length`); sequences of different lengths are
    left-padded and the padding masked out through `attention_mask`, which the caller extends
    by one column per decoded token (shape [B, length + new tokens]). Preallocated, so decoding
    never reallocates.
    """

    def __init__(
        self,
        config: Qwen3MoeConfig,
        batch_size: int,
        max_length: int,
        dtype: torch.dtype = torch.float32,
        device: torch.device | str = "cpu",
    ) -> None:
        shape = (batch_size, config.num_key_value_heads, max_length, config.head_dim)
        self.keys = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(config.num_hidden_layers)]
        self.values = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(config.num_hidden_layers)]
        self.batch_size = batch_size
        self.max_length = max_length
        self.length = 0

    def update(self, layer_id: int, k_BHTd: torch.Tensor, v_BHTd: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        start, end = self.length, self.length + k_BHTd.shape[2]
        self.keys[layer_id][:, :, start:end] = k_BHTd
        self.values[layer_id][:, :, start:end] = v_BHTd
        return self.keys[layer_id][:, :, :end], self.values[layer_id][:, :, :end]

    def check_room(self, batch_size: int, new_tokens: int) -> None:
        if batch_size != self.batch_size:
            raise ValueError(f"KVCache holds {self.batch_size} sequences, got a batch of {batch_size}")
        if self.length + new_tokens > self.max_length:
            raise ValueError(
                f"KVCache max_length {self.max_length} exceeded: {self.length} cached + {new_tokens} new tokens"
            )


class Attention(nn.Module):
    def __init__(self, config: Qwen3MoeConfig, layer_id: int) -> None:
        super().__init__()
        d, h, hkv, hd = config.hidden_size, config.num_attention_heads, config.num_key_value_heads, config.head_dim
        self.layer_id = layer_id
        self.num_heads, self.num_kv_heads, self.head_dim = h, hkv, hd
        self.q_proj = nn.Linear(d, h * hd, bias=False)
        self.k_proj = nn.Linear(d, hkv * hd, bias=False)
        self.v_proj = nn.Linear(d, hkv * hd, bias=False)
        self.o_proj = nn.Linear(h * hd, d, bias=False)
        self.q_norm = RMSNorm(hd, config.rms_norm_eps)
        self.k_norm = RMSNorm(hd, config.rms_norm_eps)

    def forward(
        self,
        x_BTD: torch.Tensor,
        rope: tuple[torch.Tensor, torch.Tensor],
        mask_BQS: torch.Tensor | PackedSequences | None,
        kv_cache: KVCache | None,
    ) -> torch.Tensor:
        b, t, _ = x_BTD.shape
        q = self.q_norm(self.q_proj(x_BTD).view(b, t, self.num_heads, self.head_dim)).transpose(1, 2)
        k = self.k_norm(self.k_proj(x_BTD).view(b, t, self.num_kv_heads, self.head_dim)).transpose(1, 2)
        v = self.v_proj(x_BTD).view(b, t, self.num_kv_heads, self.head_dim).transpose(1, 2)
        q, k = apply_rotary(q, *rope), apply_rotary(k, *rope)
        if kv_cache is not None:
            k, v = kv_cache.update(self.layer_id, k, v)
        if mask_BQS is None:
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        elif isinstance(mask_BQS, PackedSequences):
            out = mask_BQS.attend(q, k, v)
        else:
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask_BQS.unsqueeze(1), enable_gqa=True)
        return self.o_proj(out.transpose(1, 2).reshape(b, t, self.num_heads * self.head_dim))


class DenseMLP(nn.Module):
    def __init__(self, hidden_size: int, intermediate_size: int) -> None:
        super().__init__()
        self.gate_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.up_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.down_proj = nn.Linear(intermediate_size, hidden_size, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, config: Qwen3MoeConfig, layer_id: int) -> None:
        super().__init__()
        self.self_attn = Attention(config, layer_id)
        self.is_moe = config.is_moe_layer(layer_id)
        if self.is_moe:
            self.mlp = SparseMoeBlock(
                config.hidden_size,
                config.moe_intermediate_size,
                config.num_experts,
                config.num_experts_per_tok,
                config.norm_topk_prob,
                config.experts_impl,
                config.experts_precision,
            )
        else:
            self.mlp = DenseMLP(config.hidden_size, config.intermediate_size)
        self.input_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.post_attention_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)

    def forward(self, x_BTD, rope, mask_BQS, kv_cache, replay_idx_BTK, token_mask_BT):
        x_BTD = x_BTD + self.self_attn(self.input_layernorm(x_BTD), rope, mask_BQS, kv_cache)
        h_BTD = self.post_attention_layernorm(x_BTD)
        if not self.is_moe:
            return x_BTD + self.mlp(h_BTD), None, None
        out_BTD, idx_BTK, stats = self.mlp(h_BTD, replay_idx_BTK, token_mask_BT)
        return x_BTD + out_BTD, idx_BTK, stats


@dataclass
class ModelOutput:
    logits: torch.Tensor | None  # [B, T, V] (the last `logits_to_keep` positions); None when `next_tokens` is given
    aux_loss: torch.Tensor  # load-balancing loss over all MoE layers (unscaled; × router_aux_loss_coef)
    routed_experts: torch.Tensor | None  # [B, T, L_moe, K] int64: the experts each MoE layer used
    logprobs: torch.Tensor | None = None  # [B, T'] fp32, when `next_tokens` [B, T'] is given


class Qwen3MoeModel(nn.Module):
    def __init__(self, config: Qwen3MoeConfig) -> None:
        super().__init__()
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(DecoderLayer(config, i) for i in range(config.num_hidden_layers))
        self.norm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.rotary_emb = RotaryEmbedding(config.head_dim, config.rope_theta)


class Qwen3MoeForCausalLM(nn.Module):
    """`model(input_ids_BT).logits` is [B, T, vocab]; see `forward` for the rest."""

    def __init__(self, config: Qwen3MoeConfig) -> None:
        super().__init__()
        self.config = config
        self.model = Qwen3MoeModel(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.tie_weights()
        self.init_weights()

    def tie_weights(self) -> None:
        """Share the embedding with the LM head when the config says so. Moving a model off the
        meta device (to_empty) makes new parameters and unties them: call again after."""
        if self.config.tie_word_embeddings:
            self.lm_head.weight = self.model.embed_tokens.weight

    @torch.no_grad()
    def init_weights(self, std: float = 0.02) -> None:
        """Fresh weights as HF initialises them (normal(0, 0.02), norms at 1)."""
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                module.weight.normal_(0.0, std)
            elif isinstance(module, RMSNorm):
                module.weight.fill_(1.0)
            elif isinstance(module, SparseMoeBlock):
                module.gate.weight.normal_(0.0, std)
                module.experts.gate_up_proj.normal_(0.0, std)
                module.experts.down_proj.normal_(0.0, std)

    @property
    def moe_blocks(self) -> list[SparseMoeBlock]:
        return [layer.mlp for layer in self.model.layers if layer.is_moe]

    def forward(
        self,
        input_ids_BT: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        position_ids: torch.Tensor | None = None,
        routed_experts: torch.Tensor | None = None,
        kv_cache: KVCache | None = None,
        logits_to_keep: int = 0,
        next_tokens: torch.Tensor | None = None,
        temperature: float = 1.0,
        cu_seqlens: torch.Tensor | None = None,
    ) -> ModelOutput:
        """
        attention_mask: [B, S] with 1 for real tokens, 0 for padding, S = cached + new tokens
            (left padding for generation, any padding for training). Without it every token is real.
        position_ids: [B, T]; by default counted over the real tokens (cumsum of the mask), so a
            left-padded sequence gets the same positions as it would unpadded.
        routed_experts: [B, T, L_moe, K] expert ids per MoE layer to use instead of the router's
            top-k (routing replay: SGLang's `return_routed_experts` rows of the MoE layers).
        kv_cache: a KVCache; the new tokens' keys and values are appended to it.
        logits_to_keep: compute logits for the last N positions only (0: all).
        next_tokens: [B, T'] with T' <= T: return `logprobs`, log p(next_tokens[:, t] | tokens <= t)
            under softmax(logits / temperature), fused with the LM head (payload.model.logprobs)
            so that no [B, T, V] tensor exists; `logits` is then None.
        cu_seqlens: [n + 1] int, packed sequences (B = 1): sequence i is tokens
            [cu_seqlens[i], cu_seqlens[i+1]); positions restart at each (unless `position_ids`
            is given) and no token attends across a boundary (payload.model.packed; pass them on the CPU).
        """
        b, t = input_ids_BT.shape
        past = 0
        if kv_cache is not None:
            kv_cache.check_room(b, t)
            past = kv_cache.length
        if attention_mask is not None and attention_mask.shape != (b, past + t):
            raise ValueError(
                f"attention_mask shape {tuple(attention_mask.shape)}: expected [batch, cached + new tokens] = {(b, past + t)}"
            )
        num_moe = len(self.moe_blocks)
        if routed_experts is not None and tuple(routed_experts.shape[:3]) != (b, t, num_moe):
            raise ValueError(
                f"routed_experts shape {tuple(routed_experts.shape)}: expected [batch, tokens, moe layers, top_k] = "
                f"{(b, t, num_moe, self.config.num_experts_per_tok)}"
            )

        if cu_seqlens is not None:
            if b != 1 or attention_mask is not None or kv_cache is not None:
                raise ValueError("cu_seqlens (packed sequences) needs one row, no attention_mask and no kv_cache")
            mask_BQS = PackedSequences.of(cu_seqlens, t, input_ids_BT.device)
            if position_ids is None:
                position_ids = mask_BQS.positions(t)[None]
        else:
            mask_BQS = self._attention_mask(attention_mask, b, t, past, input_ids_BT.device)
        if position_ids is None:
            if attention_mask is not None:
                position_ids = (attention_mask.long().cumsum(-1) - 1).clamp(min=0)[:, past:]
            else:
                position_ids = torch.arange(past, past + t, device=input_ids_BT.device).expand(b, t)
        token_mask_BT = None if attention_mask is None else attention_mask[:, past:]

        x_BTD = self.model.embed_tokens(input_ids_BT)
        rope = self.model.rotary_emb(position_ids, x_BTD.dtype)
        chosen, stats = [], []
        for layer in self.model.layers:
            replay = None
            if routed_experts is not None and layer.is_moe:
                replay = routed_experts[:, :, len(chosen)]
            args = (x_BTD, rope, mask_BQS, kv_cache, replay, token_mask_BT)
            if self.config.activation_checkpointing and self.training and torch.is_grad_enabled():
                x_BTD, idx_BTK, layer_stats = checkpoint(layer, *args, use_reentrant=False)
            else:
                x_BTD, idx_BTK, layer_stats = layer(*args)
            if idx_BTK is not None:
                chosen.append(idx_BTK)
                stats.append(layer_stats)
        if kv_cache is not None:
            kv_cache.length += t

        h_BTD = self.model.norm(x_BTD)
        logits = logprobs = None
        if next_tokens is not None:
            n = next_tokens.shape[1]
            h_ND = h_BTD[:, :n].reshape(b * n, -1)
            logprobs = linear_logprobs(h_ND, self.lm_head.weight, next_tokens.reshape(-1), temperature,
                                       keep_logits=self.config.lm_head_keep_logits).view(b, n)
        else:
            if logits_to_keep:
                h_BTD = h_BTD[:, -logits_to_keep:]
            logits = self.lm_head(h_BTD)
        if stats:
            aux = load_balancing_loss(stats, self.config.num_experts)
            routed = torch.stack(chosen, dim=2)
        else:
            aux, routed = h_BTD.new_zeros((), dtype=torch.float32), None
        return ModelOutput(logits=logits, aux_loss=aux, routed_experts=routed, logprobs=logprobs)

    @staticmethod
    def _attention_mask(attention_mask, b, t, past, device) -> torch.Tensor | None:
        """Boolean [B, T, S]: causal, minus padded keys. None means plain causal (SDPA's fast path)."""
        if attention_mask is None and past == 0:
            return None
        q_pos = torch.arange(past, past + t, device=device)
        k_pos = torch.arange(past + t, device=device)
        allowed = (k_pos[None, :] <= q_pos[:, None]).expand(b, t, past + t)
        if attention_mask is not None:
            allowed = allowed & attention_mask.bool()[:, None, :]
            # A padding query sees no key at all, and SDPA turns an all-masked row into NaN;
            # letting it see itself keeps it finite (its output is never used).
            allowed = allowed | (k_pos[None, :] == q_pos[:, None])
        return allowed


def compute_logprobs(
    model: Qwen3MoeForCausalLM,
    input_ids_BT: torch.Tensor,
    attention_mask: torch.Tensor | None = None,
    routed_experts: torch.Tensor | None = None,
    temperature: float = 1.0,
    cu_seqlens: torch.Tensor | None = None,
    position_ids: torch.Tensor | None = None,
) -> tuple[torch.Tensor, ModelOutput]:
    """log p(token t | tokens < t) for t = 1..T-1: [B, T-1] fp32, plus the model output (whose
    `logits` is None: the logprobs come fused with the LM head). Packed (`cu_seqlens`): the
    logprob at a sequence's last position predicts the next sequence's first token, which
    nothing reads."""
    out = model(
        input_ids_BT,
        attention_mask=attention_mask,
        position_ids=position_ids,
        routed_experts=routed_experts,
        next_tokens=input_ids_BT[:, 1:].long(),
        temperature=temperature,
        cu_seqlens=cu_seqlens,
    )
    return out.logprobs, out
