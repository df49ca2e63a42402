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


def permute(x_TD: torch.Tensor, topk_idx_TK: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Rows of x, one per (token, slot), sorted by expert id (stable, so token order within an
    expert is kept: the result does not depend on sort ties)."""
    k = topk_idx_TK.shape[1]
    order_N = torch.argsort(topk_idx_TK.reshape(-1), stable=True)
    return x_TD.index_select(0, order_N // k), order_N


def unpermute_and_weigh(y_ND: torch.Tensor, order_N: torch.Tensor, topk_weight_TK: torch.Tensor) -> torch.Tensor:
    """Inverse of `permute`, then each token's K rows summed with its weights."""
    t, k = topk_weight_TK.shape
    # index_copy's backward is a gather (deterministic), unlike index_add's scatter.
    d = y_ND.shape[-1]
    y_TKD = y_ND.new_zeros(t * k, d).index_copy(0, order_N, y_ND).view(t, k, d)
    return torch.bmm(topk_weight_TK.to(y_ND.dtype).unsqueeze(1), y_TKD).squeeze(1)


class LocalDispatcher(Dispatcher):
    """Every expert on this process: a permutation, no communication."""

    def dispatch(self, x_TD, topk_idx_TK, topk_weight_TK):
        x_ND, order_N = permute(x_TD, topk_idx_TK)
        return x_ND, count_per_expert(topk_idx_TK, self.num_experts), LocalHandle(order_N, topk_weight_TK)

    def combine(self, y_ND, handle: LocalHandle):
        return unpermute_and_weigh(y_ND, handle.order_N, handle.topk_weight_TK)
