"""Expert-parallel dispatch over torch.distributed `all_to_all_single` with split sizes.

Works with every backend that implements all-to-all (gloo on CPU, NCCL on GPU). Per MoE layer:
one small all-to-all of per-expert counts, then one all-to-all of token rows each way (the
autograd version, whose backward is the reverse all-to-all). The counts are needed on the host
as split sizes, which is one device-to-host sync per dispatch; DeepEP avoids it on GPU.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.distributed as dist
from torch.distributed._functional_collectives import all_to_all_single, all_to_all_single_autograd

from payload.ep.dispatcher import (
    Dispatcher,
    count_per_expert,
    inverse_permutation,
    permute,
    permute_rows,
    unpermute_and_weigh,
)


@dataclass
class AllToAllHandle:
    order_N: torch.Tensor  # local permutation of (token, slot) rows, sorted by global expert
    inv_order_N: torch.Tensor
    topk_weight_TK: torch.Tensor
    send_splits: list[int]  # rows this rank sent to each rank
    recv_splits: list[int]  # rows this rank received from each rank
    recv_order_M: torch.Tensor  # received rows (by source rank, then expert) -> grouped by local expert
    inv_recv_order_M: torch.Tensor


def _wait(t: torch.Tensor) -> torch.Tensor:
    return torch.ops._c10d_functional.wait_tensor(t)


class AllToAllDispatcher(Dispatcher):
    def __init__(self, num_experts: int, group: dist.ProcessGroup) -> None:
        super().__init__(num_experts, dist.get_rank(group), dist.get_world_size(group))
        self.group = group

    def dispatch(self, x_TD, topk_idx_TK, topk_weight_TK):
        w, l = self.ep_size, self.num_local_experts
        # Sorting by global expert id also groups rows by destination rank (rank r holds
        # experts [r*l, (r+1)*l)).
        x_sorted, order_N, inv_order_N = permute(x_TD, topk_idx_TK)
        send_counts_WL = count_per_expert(topk_idx_TK, self.num_experts).view(w, l)
        recv_counts_WL = _wait(all_to_all_single(send_counts_WL.reshape(-1), None, None, self.group)).view(w, l)
        counts_host = torch.stack([send_counts_WL.sum(1), recv_counts_WL.sum(1)]).tolist()
        send_splits, recv_splits = counts_host
        x_recv = _wait(all_to_all_single_autograd(x_sorted, recv_splits, send_splits, self.group))
        # Received rows arrive as (source rank, local expert) blocks; experts want them as
        # (local expert, source rank). A stable sort of each row's local expert id does it.
        local_expert_M = torch.arange(l, device=x_TD.device).repeat(w).repeat_interleave(recv_counts_WL.reshape(-1))
        recv_order_M = torch.argsort(local_expert_M, stable=True)
        inv_recv_order_M = inverse_permutation(recv_order_M)
        handle = AllToAllHandle(
            order_N, inv_order_N, topk_weight_TK, send_splits, recv_splits, recv_order_M, inv_recv_order_M
        )
        return permute_rows(x_recv, recv_order_M, inv_recv_order_M), recv_counts_WL.sum(0), handle

    def combine(self, y_MD, handle: AllToAllHandle):
        y_recv = permute_rows(y_MD, handle.inv_recv_order_M, handle.recv_order_M)
        y_sorted = _wait(all_to_all_single_autograd(y_recv, handle.send_splits, handle.recv_splits, self.group))
        return unpermute_and_weigh(y_sorted, handle.order_N, handle.inv_order_N, handle.topk_weight_TK)
