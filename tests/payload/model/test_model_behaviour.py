"""Routing replay, grouped GEMM vs the per-expert loop, incremental decoding, log-probs,
activation checkpointing."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from payload.model import KVCache, Qwen3MoeForCausalLM, SparseMoeBlock, compute_logprobs, tiny_config


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    return Qwen3MoeForCausalLM(tiny_config(num_hidden_layers=3, mlp_only_layers=[1])).eval()


def _ids(b=2, t=9, vocab=256, seed=0):
    return torch.randint(0, vocab, (b, t), generator=torch.Generator().manual_seed(seed))


# ---- routing replay ----


def test_replaying_the_routers_choice_reproduces_the_forward(model):
    ids = _ids()
    first = model(ids)
    assert first.routed_experts.shape == (2, 9, 2, 2)  # two MoE layers, top-2
    replayed = model(ids, routed_experts=first.routed_experts)
    assert torch.equal(replayed.logits, first.logits)
    assert torch.equal(replayed.routed_experts, first.routed_experts)


def test_replay_uses_the_given_experts_with_router_weights():
    torch.manual_seed(3)
    block = SparseMoeBlock(hidden_size=16, moe_intermediate_size=8, num_experts=4, top_k=2, norm_topk_prob=True)
    for p in block.parameters():
        torch.nn.init.normal_(p, std=0.5)
    x = torch.randn(1, 6, 16)
    # Experts the router would not pick on its own: its two least likely ones.
    probs = torch.softmax(x[0] @ block.gate.weight.T, dim=-1)
    forced = probs.argsort(dim=-1)[:, :2]
    out, idx, _ = block(x, replay_idx_BTK=forced[None])
    assert torch.equal(idx[0], forced)
    w = probs.gather(1, forced)
    w = w / w.sum(-1, keepdim=True)
    expected = torch.zeros(6, 16)
    for t in range(6):
        for k in range(2):
            e = forced[t, k]
            gate, up = (block.experts.gate_up_proj[e] @ x[0, t]).split(8)
            expected[t] += w[t, k] * (block.experts.down_proj[e] @ (F.silu(gate) * up))
    assert (out[0] - expected).abs().max() < 1e-5
    out.sum().backward()
    assert block.gate.weight.grad.abs().sum() > 0  # the router still learns under replay


def test_replay_with_wrong_shape_names_the_expected_one(model):
    with pytest.raises(ValueError, match=r"routed_experts shape \(2, 9, 3, 2\): expected .* \(2, 9, 2, 2\)"):
        model(_ids(), routed_experts=torch.zeros(2, 9, 3, 2, dtype=torch.long))


# ---- grouped GEMM and the loop compute the same thing ----


def test_grouped_mm_equals_loop_forward_and_backward():
    torch.manual_seed(5)
    grads, outs = {}, {}
    config = tiny_config(num_experts=8, num_experts_per_tok=2)
    reference = Qwen3MoeForCausalLM(config)
    ids = _ids(b=2, t=7)
    # Skewed replay: experts 0 and 1 only, so six experts get no rows.
    routed = torch.tensor([0, 1]).expand(2, 7, 2, 2)
    for impl in ("grouped_mm", "loop"):
        model = Qwen3MoeForCausalLM(config.replace(experts_impl=impl))
        model.load_state_dict(reference.state_dict())
        for replay in (None, routed):
            model.zero_grad()
            out = model(ids, routed_experts=replay)
            (out.logits.square().mean() + out.aux_loss).backward()
            key = (impl, replay is None)
            outs[key] = out.logits.detach()
            grads[key] = {n: p.grad.clone() for n, p in model.named_parameters()}
    for natural in (True, False):
        assert (outs["grouped_mm", natural] - outs["loop", natural]).abs().max() < 1e-5
        for name, g in grads["grouped_mm", natural].items():
            assert (g - grads["loop", natural][name]).abs().max() < 1e-5, name


# ---- incremental decoding ----


def test_kv_cache_decoding_with_left_padding_matches_full_forward(model):
    vocab = model.config.vocab_size
    full = _ids(b=2, t=9, vocab=vocab, seed=4)
    # Row 1 is three tokens shorter: left-padded with junk that must not matter.
    mask = torch.ones(2, 9, dtype=torch.long)
    mask[1, :3] = 0
    with torch.no_grad():
        expected = model(full, attention_mask=mask).logits
        unpadded = model(full[1:, 3:]).logits
        cache = KVCache(model.config, batch_size=2, max_length=12)
        prompt = 5
        logits = [model(full[:, :prompt], attention_mask=mask[:, :prompt], kv_cache=cache).logits]
        for t in range(prompt, 9):
            step = model(full[:, t : t + 1], attention_mask=mask[:, : t + 1], kv_cache=cache, logits_to_keep=1)
            logits.append(step.logits)
    got = torch.cat(logits, dim=1)
    assert cache.length == 9
    real = mask.bool()
    assert (got - expected)[real].abs().max() < 1e-5
    # Left padding gives the same result as no padding at all.
    assert (expected[1, 3:] - unpadded[0]).abs().max() < 1e-5


def test_kv_cache_overflow_is_a_clear_error(model):
    cache = KVCache(model.config, batch_size=1, max_length=4)
    with pytest.raises(ValueError, match="KVCache max_length 4 exceeded: 0 cached \\+ 5 new tokens"):
        model(_ids(b=1, t=5), kv_cache=cache)


# ---- log-probs and activation checkpointing ----


def test_compute_logprobs_is_log_softmax_of_the_next_token(model):
    ids = _ids(b=2, t=6)
    with torch.no_grad():
        logprobs, out = compute_logprobs(model, ids, temperature=0.7)
        logits = model(ids).logits
        expected = torch.log_softmax(logits[:, :-1] / 0.7, dim=-1).gather(-1, ids[:, 1:, None])[..., 0]
    assert out.logits is None  # fused with the LM head: no [B, T, V] tensor
    assert logprobs.shape == (2, 5)
    assert (logprobs - expected).abs().max() < 1e-5


def test_activation_checkpointing_gives_the_same_gradients():
    torch.manual_seed(6)
    config = tiny_config()
    plain = Qwen3MoeForCausalLM(config).train()
    ckpt = Qwen3MoeForCausalLM(config.replace(activation_checkpointing=True)).train()
    ckpt.load_state_dict(plain.state_dict())
    ids = _ids()
    for m in (plain, ckpt):
        out = m(ids)
        (out.logits.square().mean() + 0.01 * out.aux_loss).backward()
    for (name, a), (_, b) in zip(plain.named_parameters(), ckpt.named_parameters()):
        assert torch.allclose(a.grad, b.grad, atol=1e-6), name
