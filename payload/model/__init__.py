"""The MoE policy: a Qwen3-MoE causal LM whose checkpoints are Hugging Face's.

    from payload.model import Qwen3MoeForCausalLM, tiny_config, load_pretrained, save_pretrained

    model = load_pretrained("/fsx/models/Qwen3-30B-A3B", dtype=torch.bfloat16, device="cuda")
    out = model(input_ids_BT, attention_mask=mask_BS)        # -> ModelOutput
    out.logits          # [B, T, vocab]
    out.aux_loss        # load-balancing loss (scalar; the trainer scales it by config.router_aux_loss_coef)
    out.routed_experts  # [B, T, moe_layers, top_k] int64: the experts each token used
    model(input_ids_BT, routed_experts=from_sglang)          # routing replay: use these experts
    save_pretrained(model, "/fsx/checkpoints/step-100")      # config.json + safetensors, HF names

Incremental decoding (the embedded rollout engine):

    cache = KVCache(model.config, batch_size=B, max_length=S, dtype=..., device=...)
    out = model(prompt_BT, attention_mask=mask_BT, kv_cache=cache, logits_to_keep=1)   # prefill, left-padded
    out = model(next_B1, attention_mask=torch.cat([mask_BT, ones_B1], 1), kv_cache=cache, logits_to_keep=1)

`compute_logprobs(model, input_ids_BT, attention_mask, routed_experts)` gives log p of each
token after the first, fp32 [B, T-1]. `iter_hf_tensors(model)` / `load_hf_state_dict(model, d)`
convert between the model and HF-named tensors (weight publishing). Expert parallelism is an
opt-in wrapper: `payload.ep.apply_expert_parallel(model, group, payload.ep.Config(...))`, or
`load_pretrained(..., ep_group=group)` to read only this rank's experts.
"""

from payload.model.checkpoint import iter_hf_tensors, load_hf_state_dict, load_pretrained, save_pretrained
from spec.model_shape import ModelConfigError, Qwen3MoeConfig, tiny_config
from payload.model.moe import GroupedExperts, Router, SparseMoeBlock, grouped_mm_supported
from payload.model.qwen3_moe import KVCache, ModelOutput, Qwen3MoeForCausalLM, compute_logprobs

__all__ = [
    "GroupedExperts",
    "KVCache",
    "ModelConfigError",
    "ModelOutput",
    "Qwen3MoeConfig",
    "Qwen3MoeForCausalLM",
    "Router",
    "SparseMoeBlock",
    "compute_logprobs",
    "grouped_mm_supported",
    "iter_hf_tensors",
    "load_hf_state_dict",
    "load_pretrained",
    "save_pretrained",
    "tiny_config",
]
