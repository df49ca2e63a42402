"""Config parsing, and checkpoints that are not what they claim: one clear error each."""

from __future__ import annotations

import json

import pytest
import torch
from safetensors.torch import load_file, save_file

from payload.model import ModelConfigError, Qwen3MoeConfig, Qwen3MoeForCausalLM, load_pretrained, save_pretrained, tiny_config

# Qwen3-30B-A3B's config.json as released (the fields that matter).
QWEN3_30B_A3B = {
    "architectures": ["Qwen3MoeForCausalLM"],
    "model_type": "qwen3_moe",
    "attention_bias": False,
    "decoder_sparse_step": 1,
    "head_dim": 128,
    "hidden_act": "silu",
    "hidden_size": 2048,
    "intermediate_size": 6144,
    "max_position_embeddings": 40960,
    "mlp_only_layers": [],
    "moe_intermediate_size": 768,
    "norm_topk_prob": True,
    "num_attention_heads": 32,
    "num_experts": 128,
    "num_experts_per_tok": 8,
    "num_hidden_layers": 48,
    "num_key_value_heads": 4,
    "rms_norm_eps": 1e-06,
    "rope_scaling": None,
    "rope_theta": 1000000.0,
    "router_aux_loss_coef": 0.001,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "use_sliding_window": False,
    "vocab_size": 151936,
}


def test_released_config_parses():
    c = Qwen3MoeConfig.from_hf_dict(QWEN3_30B_A3B)
    assert (c.num_experts, c.num_experts_per_tok, c.head_dim, c.rope_theta) == (128, 8, 128, 1e6)
    assert c.moe_layer_ids == list(range(48))


def test_transformers5_spelling_parses():
    data = {k: v for k, v in QWEN3_30B_A3B.items() if k not in ("num_experts", "rope_theta")}
    data.update(num_local_experts=64, rope_parameters={"rope_type": "default", "rope_theta": 5e5})
    c = Qwen3MoeConfig.from_hf_dict(data)
    assert (c.num_experts, c.rope_theta) == (64, 5e5)


@pytest.mark.parametrize(
    "change,message",
    [
        ({"model_type": "llama"}, "model_type='llama': expected 'qwen3_moe'"),
        ({"hidden_act": "gelu"}, "hidden_act='gelu': only 'silu' is supported"),
        ({"rope_scaling": {"rope_type": "yarn", "factor": 4.0}}, "rope type 'yarn': only the default"),
        ({"num_experts_per_tok": 200}, "num_experts_per_tok=200: must be at most num_experts=128"),
        ({"num_key_value_heads": 5}, "num_key_value_heads=5: must divide num_attention_heads=32"),
        ({"vocab_size": None}, "vocab_size=None: must be a positive integer"),
    ],
)
def test_bad_config_names_the_field(change, message):
    with pytest.raises(ModelConfigError, match=message.replace("(", r"\(").replace("[", r"\[")):
        Qwen3MoeConfig.from_hf_dict({**QWEN3_30B_A3B, **change}, "ckpt/config.json")


def test_missing_config_field_is_named():
    data = {k: v for k, v in QWEN3_30B_A3B.items() if k != "num_experts_per_tok"}
    with pytest.raises(ModelConfigError, match="ckpt/config.json: required field num_experts_per_tok is missing"):
        Qwen3MoeConfig.from_hf_dict(data, "ckpt/config.json")


@pytest.fixture
def saved(tmp_path):
    save_pretrained(Qwen3MoeForCausalLM(tiny_config()), tmp_path)
    return tmp_path


def _edit_tensors(path, edit):
    file = path / "model.safetensors"
    tensors = load_file(str(file))
    edit(tensors)
    save_file(tensors, str(file), metadata={"format": "pt"})


def test_missing_tensor_is_named(saved):
    _edit_tensors(saved, lambda t: t.pop("model.layers.1.mlp.experts.3.up_proj.weight"))
    with pytest.raises(ModelConfigError, match=r"missing tensor model\.layers\.1\.mlp\.experts\.3\.up_proj\.weight \(1 missing"):
        load_pretrained(saved, dtype=torch.float32)


def test_shape_mismatch_is_named(saved):
    config = json.loads((saved / "config.json").read_text())
    config["moe_intermediate_size"] = 48
    (saved / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelConfigError, match=r"tensor model\.layers\.0\.mlp\.experts\.0\.gate_proj\.weight has shape \(32, 64\), the config needs \(48, 64\)"):
        load_pretrained(saved, dtype=torch.float32)


def test_tensor_of_another_architecture_is_named(saved):
    _edit_tensors(saved, lambda t: t.__setitem__("model.layers.0.mlp.shared_expert.gate_proj.weight", torch.zeros(4, 4)))
    with pytest.raises(ModelConfigError, match=r"unexpected tensor model\.layers\.0\.mlp\.shared_expert\.gate_proj\.weight"):
        load_pretrained(saved, dtype=torch.float32)


def test_not_a_checkpoint_directory(tmp_path):
    with pytest.raises(ModelConfigError, match="config.json does not exist"):
        load_pretrained(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps(tiny_config().to_hf_dict()))
    with pytest.raises(ModelConfigError, match="no model.safetensors or model.safetensors.index.json"):
        load_pretrained(tmp_path)


def test_load_in_bfloat16_keeps_values(saved):
    model = load_pretrained(saved, dtype=torch.bfloat16)
    assert {p.dtype for p in model.parameters()} == {torch.bfloat16}
    ref = load_file(str(saved / "model.safetensors"))["model.layers.0.mlp.experts.5.down_proj.weight"]
    assert torch.equal(model.model.layers[0].mlp.experts.down_proj[5], ref.to(torch.bfloat16))
