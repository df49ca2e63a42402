"""The model against transformers' Qwen3MoeForCausalLM, through checkpoints written both ways."""

from __future__ import annotations

import json

import pytest
import torch
import transformers

from payload.model import Qwen3MoeForCausalLM, load_pretrained, save_pretrained, tiny_config

TOL = 1e-4


def _inputs(vocab: int, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, vocab, (3, 10), generator=g)
    mask = torch.ones(3, 10, dtype=torch.long)
    mask[1, :4] = 0  # left padding
    mask[2, :1] = 0
    positions = (mask.cumsum(-1) - 1).clamp(min=0)
    return ids, mask, positions


def _hf_model(config, seed: int) -> transformers.Qwen3MoeForCausalLM:
    torch.manual_seed(seed)
    hf_config = transformers.Qwen3MoeConfig(**config.to_hf_dict())
    return transformers.Qwen3MoeForCausalLM(hf_config).eval()


CONFIGS = {
    "moe-every-layer": tiny_config(),
    # A dense layer in between, tied embeddings, no top-k renormalisation.
    "dense-layer-tied": tiny_config(num_hidden_layers=3, mlp_only_layers=[1], tie_word_embeddings=True, norm_topk_prob=False),
}


def _compare(ours: Qwen3MoeForCausalLM, hf: transformers.Qwen3MoeForCausalLM, vocab: int) -> None:
    ids, mask, positions = _inputs(vocab)
    with torch.no_grad():
        a = ours(ids, attention_mask=mask, position_ids=positions)
        b = hf(ids, attention_mask=mask, position_ids=positions, output_router_logits=True)
    real = mask.bool()
    assert (a.logits - b.logits)[real].abs().max().item() <= TOL
    assert abs(a.aux_loss.item() - b.aux_loss.item()) <= TOL
    # Our default positions count real tokens, as the explicit ones above do.
    with torch.no_grad():
        default = ours(ids, attention_mask=mask)
    assert torch.equal(default.logits[real], a.logits[real])


@pytest.mark.parametrize("name", CONFIGS)
def test_hf_checkpoint_loads_here_with_equal_logits(tmp_path, name):
    config = CONFIGS[name]
    hf = _hf_model(config, seed=1)
    hf.save_pretrained(tmp_path)
    ours = load_pretrained(tmp_path, dtype=torch.float32)
    assert ours.config.to_hf_dict() == config.to_hf_dict()
    _compare(ours, hf, config.vocab_size)


@pytest.mark.parametrize("name", CONFIGS)
def test_checkpoint_saved_here_loads_in_hf_with_equal_logits(tmp_path, name):
    config = CONFIGS[name]
    torch.manual_seed(2)
    ours = Qwen3MoeForCausalLM(config).eval()
    # Small shards, so the index file and several safetensors files are exercised.
    save_pretrained(ours, tmp_path, max_shard_bytes=100_000)
    assert len(list(tmp_path.glob("model-*-of-*.safetensors"))) > 1
    assert json.loads((tmp_path / "model.safetensors.index.json").read_text())["weight_map"]
    hf = transformers.Qwen3MoeForCausalLM.from_pretrained(tmp_path, dtype=torch.float32).eval()
    _compare(ours, hf, config.vocab_size)
    # And back: our loader reads the sharded directory to the same weights.
    again = load_pretrained(tmp_path, dtype=torch.float32)
    for (n, p), (_, q) in zip(ours.state_dict().items(), again.state_dict().items()):
        assert torch.equal(p, q), n


def test_checkpoint_names_are_the_released_per_expert_layout(tmp_path):
    save_pretrained(Qwen3MoeForCausalLM(tiny_config()), tmp_path)
    from safetensors import safe_open

    with safe_open(str(tmp_path / "model.safetensors"), "pt") as f:
        names = set(f.keys())
    assert "model.layers.1.mlp.experts.7.down_proj.weight" in names
    assert "model.layers.0.mlp.gate.weight" in names
    assert not any(n.endswith("gate_up_proj") for n in names)
    saved = json.loads((tmp_path / "config.json").read_text())
    assert saved["model_type"] == "qwen3_moe" and saved["num_experts"] == 8 and saved["architectures"] == ["Qwen3MoeForCausalLM"]
    assert "experts_impl" not in saved and "activation_checkpointing" not in saved
