"""The Triton kernels behind payload.model.swiglu.weighted_swiglu (CUDA only; imported lazily).

One program per row: F is at most a few thousand (768 on Qwen3-30B-A3B, 2048 on DeepSeek-V3),
so a row's gate and up halves fit one block; math in fp32, results in the input's dtype.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def _forward(h_ptr, w_ptr, a_ptr, F: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < F
    gate = tl.load(h_ptr + row * 2 * F + cols, mask=mask, other=0.0).to(tl.float32)
    up = tl.load(h_ptr + row * 2 * F + F + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + row).to(tl.float32)
    a = gate * tl.sigmoid(gate) * up * w
    tl.store(a_ptr + row * F + cols, a.to(a_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _backward(h_ptr, w_ptr, grad_a_ptr, grad_h_ptr, grad_w_ptr, F: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < F
    gate = tl.load(h_ptr + row * 2 * F + cols, mask=mask, other=0.0).to(tl.float32)
    up = tl.load(h_ptr + row * 2 * F + F + cols, mask=mask, other=0.0).to(tl.float32)
    grad_a = tl.load(grad_a_ptr + row * F + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + row).to(tl.float32)
    sig = tl.sigmoid(gate)
    silu = gate * sig
    grad_w = tl.sum(grad_a * silu * up, axis=0)
    grad_silu_up = grad_a * w
    grad_up = grad_silu_up * silu
    grad_gate = grad_silu_up * up * sig * (1.0 + gate * (1.0 - sig))
    tl.store(grad_h_ptr + row * 2 * F + cols, grad_gate.to(grad_h_ptr.dtype.element_ty), mask=mask)
    tl.store(grad_h_ptr + row * 2 * F + F + cols, grad_up.to(grad_h_ptr.dtype.element_ty), mask=mask)
    tl.store(grad_w_ptr + row, grad_w)


def forward(h_NF2: torch.Tensor, weight_N: torch.Tensor) -> torch.Tensor:
    """a_NF = silu(gate) * up * weight, h_NF2 and weight_N contiguous."""
    n, f2 = h_NF2.shape
    f = f2 // 2
    a_NF = torch.empty(n, f, device=h_NF2.device, dtype=h_NF2.dtype)
    if n:
        _forward[(n,)](h_NF2, weight_N, a_NF, F=f, BLOCK=triton.next_power_of_2(f), num_warps=4)
    return a_NF


def backward(h_NF2: torch.Tensor, weight_N: torch.Tensor, grad_a_NF: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(grad of h_NF2, grad of weight_N in fp32) from the activation's gradient."""
    n, f2 = h_NF2.shape
    f = f2 // 2
    grad_h = torch.empty_like(h_NF2)
    grad_w = torch.empty(n, device=h_NF2.device, dtype=torch.float32)
    if n:
        _backward[(n,)](h_NF2, weight_N, grad_a_NF, grad_h, grad_w, F=f, BLOCK=triton.next_power_of_2(f), num_warps=4)
    return grad_h, grad_w


class WeightedSwiGLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, h_NF2, weight_N):
        h_NF2 = h_NF2.contiguous()
        weight_N = weight_N.contiguous()
        ctx.save_for_backward(h_NF2, weight_N)
        return forward(h_NF2, weight_N)

    @staticmethod
    def backward(ctx, grad_a_NF):
        h_NF2, weight_N = ctx.saved_tensors
        grad_h, grad_w = backward(h_NF2, weight_N, grad_a_NF.contiguous())
        return grad_h, grad_w.to(weight_N.dtype)
