"""The deepep backend's own arithmetic around DeepEP's dispatch and combine
(payload.ep.dispatcher.expand_received + unpermute_and_weigh): received tokens whose top-k slots
name a local expert or -1 (an expert on another rank) become expert-ordered rows, and the
experts' rows come back weighted and summed per received token — against a per-slot loop, with
gradients. DeepEP itself runs only on a cluster (test_ep_dispatch.py's deepep contract); this is
everything the backend computes on either side of it."""

from __future__ import annotations

import pytest
import torch

from payload.ep.dispatcher import expand_received, unpermute_and_weigh


def received(tokens: int, top_k: int, local_experts: int, seed: int = 0):
    """DeepEP-shaped receive buffers: each token's slots hold distinct local expert ids or -1
    (at least one local id, as DeepEP sends a token only to ranks holding one of its experts;
    `tokens` > 2 also gets a token with a single local slot and one with every slot local)."""
    g = torch.Generator().manual_seed(seed)
    idx = torch.full((tokens, top_k), -1, dtype=torch.long)
    for r in range(tokens):
        local = 1 if r == 0 else top_k if r == 1 else int(torch.randint(1, top_k + 1, (), generator=g))
        local = min(local, local_experts)
        slots = torch.randperm(top_k, generator=g)[:local]
        idx[r, slots] = torch.randperm(local_experts, generator=g)[:local]
    x = torch.randn(tokens, 16, generator=g, dtype=torch.float64)
    weight = torch.rand(tokens, top_k, generator=g, dtype=torch.float64)
    return x, idx, weight


def experts(x_ND: torch.Tensor, tokens_per_expert_L: torch.Tensor) -> torch.Tensor:
    """A stand-in whose result depends on the expert a row reached."""
    expert_N = torch.arange(len(tokens_per_expert_L), device=x_ND.device).repeat_interleave(tokens_per_expert_L)
    return torch.tanh(x_ND * (expert_N + 1).to(x_ND.dtype)[:, None])


@pytest.mark.parametrize("tokens,top_k,local_experts", [(11, 4, 3), (9, 8, 16), (1, 2, 2), (0, 4, 3)])
def test_received_rows_are_expanded_in_expert_order_and_summed_back(tokens, top_k, local_experts):
    x, idx, weight = received(tokens, top_k, local_experts)
    x.requires_grad_()
    weight.requires_grad_()
    x_ND, tokens_per_expert_L, order_N, inv_order_N = expand_received(x, idx, local_experts)

    # Rows: one per slot naming a local expert, by expert, then by (token, slot).
    slots = sorted((int(idx[r, s]), r * top_k + s) for r in range(tokens) for s in range(top_k) if idx[r, s] >= 0)
    assert order_N.tolist() == [slot for _, slot in slots]
    assert torch.equal(x_ND.detach(), x.detach()[[slot // top_k for _, slot in slots]] if slots else x_ND.detach())
    assert tokens_per_expert_L.tolist() == [sum(e == i for e, _ in slots) for i in range(local_experts)]
    assert inv_order_N.tolist() == [next((n for n, (_, s) in enumerate(slots) if s == slot), -1)
                                    for slot in range(tokens * top_k)]

    out = unpermute_and_weigh(experts(x_ND, tokens_per_expert_L), order_N, inv_order_N, weight)
    grad = torch.randn(tokens, x.shape[1], dtype=torch.float64, generator=torch.Generator().manual_seed(5))
    (out * grad).sum().backward()

    xr = x.detach().clone().requires_grad_()
    wr = weight.detach().clone().requires_grad_()
    ref = torch.zeros(tokens, x.shape[1], dtype=torch.float64)
    for r in range(tokens):
        for s in range(top_k):
            if idx[r, s] >= 0:
                ref[r] = ref[r] + wr[r, s] * torch.tanh(xr[r] * (idx[r, s] + 1))
    assert out.shape == (tokens, x.shape[1])
    torch.testing.assert_close(out, ref, rtol=1e-12, atol=1e-12)
    if tokens:
        (ref * grad).sum().backward()
        torch.testing.assert_close(x.grad, xr.grad, rtol=1e-12, atol=1e-12)
        torch.testing.assert_close(weight.grad, wr.grad, rtol=1e-12, atol=1e-12)  # 0 at the -1 slots
        assert (weight.grad[idx < 0] == 0).all()


def test_received_ids_may_be_int32():
    x, idx, weight = received(7, 4, 3)
    wide = expand_received(x, idx, 3)
    narrow = expand_received(x, idx.int(), 3)
    for a, b in zip(wide, narrow):
        assert torch.equal(a, b)


@pytest.mark.gpu
def test_received_rows_on_gpu():
    """On CUDA the per-token sum is the one-pass Triton kernel, skipping the -1 slots."""
    x, idx, weight = received(300, 8, 16, seed=1)
    x_ND, counts, order_N, inv_order_N = expand_received(x.float().cuda(), idx.cuda(), 16)
    out = unpermute_and_weigh(experts(x_ND, counts), order_N, inv_order_N, weight.float().cuda())
    x_cpu, counts_cpu, order_cpu, inv_cpu = expand_received(x.float(), idx, 16)
    want = unpermute_and_weigh(experts(x_cpu, counts_cpu), order_cpu, inv_cpu, weight.float())
    torch.testing.assert_close(out.cpu(), want, rtol=1e-5, atol=1e-6)
