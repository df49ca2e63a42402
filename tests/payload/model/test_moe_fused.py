"""The MoE layer with the routing weight folded into the experts' SwiGLU (payload/model/swiglu.py)
against the unfolded formulation (experts, then the dispatcher's weighted combine)."""

from __future__ import annotations

import pytest
import torch

from payload.model import SparseMoeBlock
from payload.model.swiglu import weighted_swiglu, weighted_swiglu_reference


def _block(device, dtype, hidden=64, inter=32, experts=8, top_k=2):
    torch.manual_seed(0)
    block = SparseMoeBlock(hidden, inter, experts, top_k, True).to(device, dtype)
    with torch.no_grad():
        for p in block.parameters():
            p.normal_(0.0, 0.1)
    return block


def _unfolded(block, x_BTD):
    """Today's formulation before the fold: experts unweighted, the dispatcher weighs in combine."""
    b, t, d = x_BTD.shape
    x_TD = x_BTD.reshape(b * t, d)
    idx_TK, weight_TK, _ = block.gate(x_TD)
    x_ND, counts, handle = block.dispatcher.dispatch(x_TD, idx_TK, weight_TK)
    return block.dispatcher.combine(block.experts(x_ND, counts), handle).view(b, t, d)


def _grads(block, x, out, grad):
    return torch.autograd.grad(out, [x, block.gate.weight, block.experts.gate_up_proj, block.experts.down_proj], grad)


def _rel(a, b):
    return ((a.float() - b.float()).norm() / b.float().norm()).item()


def _compare(device, dtype, tol):
    block = _block(device, dtype)
    assert block.fold_routing_weights is None  # the default folds on CUDA
    x = torch.randn(2, 24, 64, device=device, dtype=dtype, requires_grad=True)
    grad = torch.randn_like(x)
    folded, unfolded = block(x)[0], _unfolded(block, x)
    assert _rel(folded, unfolded) < tol
    for a, b in zip(_grads(block, x, folded, grad), _grads(block, x, unfolded, grad)):
        assert _rel(a, b) < tol


@pytest.mark.parametrize("impl", ["grouped_mm", "loop"])
def test_folded_weights_match_weighted_combine_cpu(impl):
    block = _block("cpu", torch.float32)
    block.experts.impl = impl
    block.fold_routing_weights = True  # on CPU the default keeps the weighted combine
    x = torch.randn(2, 24, 64, requires_grad=True)
    grad = torch.randn_like(x)
    folded, unfolded = block(x)[0], _unfolded(block, x)
    torch.testing.assert_close(folded, unfolded, rtol=1e-5, atol=1e-6)
    assert not torch.equal(folded, unfolded)  # the fold really ran (bf16 aside, rounding order differs)
    for a, b in zip(_grads(block, x, folded, grad), _grads(block, x, unfolded, grad)):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6)


@pytest.mark.gpu
@pytest.mark.parametrize("f", [768, 2048, 100])
def test_triton_weighted_swiglu_matches_reference(f):
    torch.manual_seed(2)
    h = torch.randn(4096, 2 * f, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    w = torch.rand(4096, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    grad = torch.randn(4096, f, device="cuda", dtype=torch.bfloat16)
    got = weighted_swiglu(h, w)
    want = weighted_swiglu_reference(h, w)
    torch.testing.assert_close(got, want)  # same fp32 math; Triton's sigmoid may differ by one bf16 ulp
    g_got = torch.autograd.grad(got, [h, w], grad)
    h64, w64 = h.detach().double().requires_grad_(), w.detach().double().requires_grad_()
    g_ref = torch.autograd.grad(weighted_swiglu_reference(h64, w64), [h64, w64], grad.double())
    for a, b in zip(g_got, g_ref):
        assert _rel(a, b) < 8e-3


@pytest.mark.gpu
def test_folded_layer_matches_weighted_combine_cuda_bf16():
    _compare("cuda", torch.bfloat16, 1.5e-2)
