"""The one token-dispatch interface every MoE layer talks to, and its no-communication backend.

dispatch(x_TD, topk_idx_TK, topk_weight_TK) -> (x_ND, tokens_per_expert_L, handle)
    x_ND holds one row per (token, chosen expert) pair whose expert lives on this rank, grouped by
    local expert (expert 0's rows first), N = tokens_per_expert_L.sum().
combine(y_ND, handle) -> out_TD
    the expert outputs back on the ranks and positions their tokens came from, each token's K
    rows summed with its top-k weights.

Both are plain differentiable torch ops (or autograd functions), so the backward of dispatch is
a combine of gradients and vice versa. T: tokens on this rank, K: top-k, D: hidden, L: local
experts, E: all experts.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import torch


@dataclass
class LocalHandle:
    """What combine needs to undo a local permutation."""

    order_N: torch.Tensor  # position in the flat [T*K] (token, slot) list of each grouped row
    inv_order_N: torch.Tensor
    topk_weight_TK: torch.Tensor


class Dispatcher(ABC):
    """Base of every backend: which experts this rank holds, and the local permutation."""

    def __init__(self, num_experts: int, ep_rank: int = 0, ep_size: int = 1) -> None:
        self.num_experts = num_experts
        self.ep_rank = ep_rank
        self.ep_size = ep_size
        self.num_local_experts = num_experts // ep_size
        self.local_expert_offset = ep_rank * self.num_local_experts

    @abstractmethod
    def dispatch(
        self, x_TD: torch.Tensor, topk_idx_TK: torch.Tensor, topk_weight_TK: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, object]: ...

    @abstractmethod
    def combine(self, y_ND: torch.Tensor, handle: object) -> torch.Tensor: ...

    def __repr__(self) -> str:
        return f"{type(self).__name__}(experts={self.num_experts}, rank={self.ep_rank}/{self.ep_size})"


def count_per_expert(idx: torch.Tensor, num_experts: int) -> torch.Tensor:
    """Rows per expert, int64, without a device-to-host sync (unlike bincount on CUDA)."""
    flat = idx.reshape(-1)
    return torch.zeros(num_experts, dtype=torch.int64, device=idx.device).scatter_add_(
        0, flat, torch.ones_like(flat, dtype=torch.int64)
    )


def _triton_available() -> bool:
    try:
        import triton  # noqa: F401
    except ImportError:
        return False
    return True


def inverse_permutation(order_N: torch.Tensor) -> torch.Tensor:
    inv_N = torch.empty_like(order_N)
    inv_N[order_N] = torch.arange(order_N.numel(), device=order_N.device)
    return inv_N


class _PermuteRows(torch.autograd.Function):
    """x[order] for a permutation; its backward is the inverse gather, where index_select's
    would zero-fill and scatter-add."""

    @staticmethod
    def forward(ctx, x_ND, order_N, inv_order_N):
        ctx.save_for_backward(order_N, inv_order_N)
        return x_ND.index_select(0, order_N)

    @staticmethod
    def backward(ctx, grad_ND):
        order_N, inv_order_N = ctx.saved_tensors
        return _PermuteRows.apply(grad_ND.contiguous(), inv_order_N, order_N), None, None


class _ExpandRows(torch.autograd.Function):
    """Row order_N[n] // K of x: each token copied once per chosen expert, in expert order.
    Its adjoint is _SumRows; each is the other's backward (gathers and fp32-accumulated sums,
    deterministic, where index_select's backward would be an atomic scatter-add)."""

    @staticmethod
    def forward(ctx, x_TD, order_N, inv_order_N, k):
        ctx.save_for_backward(order_N, inv_order_N)
        ctx.t, ctx.k = x_TD.shape[0], k
        return x_TD.index_select(0, order_N // k)

    @staticmethod
    def backward(ctx, grad_ND):
        order_N, inv_order_N = ctx.saved_tensors
        return _SumRows.apply(grad_ND.contiguous(), order_N, inv_order_N, ctx.k, ctx.t), None, None, None


class _SumRows(torch.autograd.Function):
    """out[t] = Σ_k y[inv_order_N[t*K + k]]: each token's K expert rows, back in token order.
    With fewer rows than slots (N < T*K: DeepEP's received tokens, whose slots for experts on
    other ranks hold no row) inv_order_N is -1 at the empty slots, which add nothing."""

    @staticmethod
    def forward(ctx, y_ND, order_N, inv_order_N, k, t):
        ctx.save_for_backward(order_N, inv_order_N)
        ctx.k = k
        if y_ND.is_cuda and _triton_available():
            # One pass reading the rows where they are (no N x D gather copy): sum_rows_triton.py.
            from payload.ep.sum_rows_triton import sum_rows

            return sum_rows(y_ND, inv_order_N, k)
        n, d = y_ND.shape
        if n < inv_order_N.numel():  # empty slots read an appended zero row
            y_ND = torch.cat([y_ND, y_ND.new_zeros(1, d)])
            inv_order_N = torch.where(inv_order_N >= 0, inv_order_N, n)
        return y_ND.index_select(0, inv_order_N).view(t, k, d).sum(1)

    @staticmethod
    def backward(ctx, grad_TD):
        order_N, inv_order_N = ctx.saved_tensors
        return _ExpandRows.apply(grad_TD.contiguous(), order_N, inv_order_N, ctx.k), None, None, None, None


permute_rows = _PermuteRows.apply


def permute(x_TD: torch.Tensor, topk_idx_TK: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Rows of x, one per (token, slot), sorted by expert id (stable, so token order within an
    expert is kept: the result does not depend on sort ties). Returns the rows, the sorted
    position of each, and its inverse."""
    k = topk_idx_TK.shape[1]
    order_N = torch.argsort(topk_idx_TK.reshape(-1), stable=True)
    inv_order_N = inverse_permutation(order_N)
    return _ExpandRows.apply(x_TD, order_N, inv_order_N, k), order_N, inv_order_N


def unpermute_and_weigh(
    y_ND: torch.Tensor, order_N: torch.Tensor, inv_order_N: torch.Tensor, topk_weight_TK: torch.Tensor
) -> torch.Tensor:
    """Inverse of `permute`, then each token's K rows summed with its weights.

    The rows are weighed while still in expert order (an elementwise product torch.compile
    fuses), then each token's K rows are gathered and summed: the adjoint of dispatch's
    expansion, so forward and backward are gathers and fp32-accumulated sums."""
    t, k = topk_weight_TK.shape
    weight_N = topk_weight_TK.reshape(-1).index_select(0, order_N).to(y_ND.dtype)
    return _SumRows.apply(y_ND * weight_N[:, None], order_N, inv_order_N, k, t)


def expand_received(
    recv_x_RD: torch.Tensor, recv_idx_RK: torch.Tensor, num_local_experts: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """DeepEP's received tokens as expert rows: one row per slot of recv_idx_RK that names a
    local expert (-1: an expert on another rank), grouped by expert, token order within one.
    Returns (x_ND, tokens_per_expert_L, order_N, inv_order_N): order_N is each row's flat slot
    r*K + k, inv_order_N the row of each slot or -1. `unpermute_and_weigh` with the received
    weights is the combine; both directions are gathers and fp32-accumulated sums (no atomic
    index_add: deterministic). One device-to-host sync for N, as any boolean mask would take."""
    r, k = recv_idx_RK.shape
    expert_S = torch.where(recv_idx_RK >= 0, recv_idx_RK, num_local_experts).reshape(-1).long()  # empty slots last
    counts = count_per_expert(expert_S, num_local_experts + 1)
    tokens_per_expert_L = counts[:num_local_experts]
    n = r * k - int(counts[num_local_experts])
    order_N = torch.argsort(expert_S, stable=True)[:n]
    inv_order_N = torch.full_like(expert_S, -1)
    inv_order_N[order_N] = torch.arange(n, device=expert_S.device)
    return _ExpandRows.apply(recv_x_RD, order_N, inv_order_N, k), tokens_per_expert_L, order_N, inv_order_N


def unpermute_and_sum(y_ND: torch.Tensor, order_N: torch.Tensor, inv_order_N: torch.Tensor, k: int) -> torch.Tensor:
    """Inverse of `permute`, each token's K rows summed without weights: for rows whose routing
    weight the experts already applied (payload/model/swiglu.py)."""
    return _SumRows.apply(y_ND, order_N, inv_order_N, k, inv_order_N.numel() // k)


class LocalDispatcher(Dispatcher):
    """Every expert on this process: a permutation, no communication."""

    def dispatch(self, x_TD, topk_idx_TK, topk_weight_TK):
        x_ND, order_N, inv_order_N = permute(x_TD, topk_idx_TK)
        handle = LocalHandle(order_N, inv_order_N, topk_weight_TK)
        return x_ND, count_per_expert(topk_idx_TK, self.num_experts), handle

    def combine(self, y_ND, handle: LocalHandle):
        return unpermute_and_weigh(y_ND, handle.order_N, handle.inv_order_N, handle.topk_weight_TK)
