"""Expert-parallel dispatch through DeepEP v2's `ElasticBuffer` (NVLink within a node, RDMA over
EFA across nodes), shaped like torchtitan's DeepEP integration.

DeepEP sends each token once per destination rank (not once per expert) and returns, per
received token, its top-k expert ids local to this rank (-1 for experts held elsewhere) and
weights. Here the received tokens are expanded and sorted by local expert for the grouped GEMM,
weighted after the experts, summed back per received token (payload.ep.dispatcher's
expand_received / unpermute_and_weigh: gathers and fp32-accumulated sums both ways, the same
code the local backend runs, tested on CPU), and DeepEP's combine sums the per-rank partial
results on the token's home rank. Backward: dispatch's is a combine of the gradients (tokens and
weights), combine's a dispatch reusing the forward's handle.

Imported only when chosen; `deepep_unavailable_reason()` says why it cannot be.
"""

from __future__ import annotations

import functools
import logging
import os
from dataclasses import dataclass

import torch
import torch.distributed as dist

from payload.common.torchrun import local_world_size
from payload.ep import deepep_efa
from spec.layout import deepep_needs_gin
from payload.ep.dispatcher import Dispatcher, expand_received, unpermute_and_weigh

log = logging.getLogger(__name__)


@functools.lru_cache(maxsize=1)
def deepep_unavailable_reason() -> str | None:
    """Why DeepEP v2 cannot run in this process, or None. First DeepEP's native set-up is tried
    in a child on this process's GPU (payload.ep.probe: a crash there is a signal, which no
    `except` here could catch); then deep_ep is imported here, which runs its own checks
    (sgl-deep-ep's prerequisites: ImportError; check_nccl_so: AssertionError when a second
    libnccl* file is mapped or the loaded NCCL is not the one DeepEP was built against; its JIT
    init: RuntimeError), so every exception counts. Call it before the first NCCL communicator
    exists (payload.ep.preflight): NCCL's own load of its net plugin (libnccl-net-*.so) is a
    second libnccl* mapping, and DeepEP's check would refuse it. Cached: this runs once."""
    problems = []
    if not torch.cuda.is_available():
        problems.append("needs a CUDA GPU (torch.cuda.is_available() is False)")
    else:
        from payload.ep.probe import probe_command, reason_from_child

        device = int(os.environ.get("LOCAL_RANK", "0"))
        if reason := reason_from_child(probe_command(device), f"DeepEP's buffer set-up on cuda:{device} (payload.ep.probe)"):
            return f"the deepep backend cannot run: {reason}"
    try:
        import deep_ep
    except Exception as exc:  # noqa: BLE001 - DeepEP signals every unmet prerequisite differently
        detail = " ".join(str(exc).split()) or type(exc).__name__
        problems.append(f"cannot import DeepEP (`import deep_ep` failed with {type(exc).__name__}: {detail})")
    else:
        if not hasattr(deep_ep, "ElasticBuffer"):
            problems.append("needs DeepEP v2 (deep_ep has no ElasticBuffer; v1 is installed)")
    return "the deepep backend " + " and ".join(problems) if problems else None


def bind_communicator(group: dist.ProcessGroup) -> int:
    """The address of `group`'s NCCL communicator, created now if torch has not yet. DeepEP reuses
    it (EP_REUSE_NCCL_COMM, on by default: deep_ep/utils/comm.py takes backend._comm_ptr()) and
    hands it to NCCL's device API; torch creates communicators lazily unless the default group is
    bound to its device (payload.train.parallel.init_world passes device_id), and a 0 there is a
    segfault in DeepEP's ncclTeamWorld(NULL), not an error. One collective creates it."""
    backend = group._get_backend(torch.device("cuda"))
    if not backend._comm_ptr():
        dist.all_reduce(torch.zeros(1, device="cuda"), group=group)
        torch.cuda.synchronize()
    pointer = backend._comm_ptr()
    if not pointer:
        raise RuntimeError("torch has no NCCL communicator for the expert-parallel group after a collective on it")
    return pointer


_buffers: dict[tuple, object] = {}


def _buffer(group: dist.ProcessGroup, max_tokens: int, hidden: int, top_k: int):
    """One ElasticBuffer per (group, sizes) for the process: creating one registers memory with
    every peer, far too slow to do per layer. A failed creation is remembered and raised again
    for the next MoE block instead of retried."""
    import deep_ep

    key = (id(group), max_tokens, hidden, top_k)
    if key not in _buffers:
        ranks = dist.get_world_size(group)
        gin = deepep_needs_gin(ranks, local_world_size())
        if not gin:
            os.environ.setdefault("EP_DISABLE_GIN", "1")  # read by DeepEP's C++ as it builds the buffer
        try:
            bind_communicator(group)
            log.info("DeepEP buffer for %d ranks, %s", ranks, "across nodes (GIN over EFA)" if gin else "inside a node (GIN off)")
            _buffers[key] = deep_ep.ElasticBuffer(
                group, num_max_tokens_per_rank=max_tokens, hidden=hidden, num_topk=top_k,
                # On EFA, checked against aws-ofi-nccl's GIN limits (payload.ep.deepep_efa).
                num_allocated_qps=deepep_efa.gin_contexts(True, ranks),
            )
        except Exception as exc:
            _buffers[key] = exc
    if isinstance(_buffers[key], Exception):
        raise _buffers[key]
    return _buffers[key]


class _Dispatch(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x_TD, topk_weight_TK, topk_idx_TK, buffer, num_experts, num_sms):
        recv_x, recv_idx, recv_weight, handle, _ = buffer.dispatch(
            x_TD, topk_idx=topk_idx_TK, topk_weights=topk_weight_TK.float(), num_experts=num_experts, num_sms=num_sms
        )
        ctx.buffer, ctx.handle, ctx.weight_dtype = buffer, handle, topk_weight_TK.dtype
        ctx.mark_non_differentiable(recv_idx)
        return recv_x, recv_weight, recv_idx, handle

    @staticmethod
    def backward(ctx, grad_recv_x, grad_recv_weight, _grad_idx, _grad_handle):
        grad_x, grad_weight, _ = ctx.buffer.combine(
            grad_recv_x.contiguous(),
            ctx.handle,
            topk_weights=None if grad_recv_weight is None else grad_recv_weight.float().contiguous(),
        )
        grad_weight = None if grad_weight is None else grad_weight.to(ctx.weight_dtype)
        return grad_x, grad_weight, None, None, None, None


class _Combine(torch.autograd.Function):
    @staticmethod
    def forward(ctx, y_RD, buffer, handle):
        combined, _, _ = buffer.combine(y_RD.contiguous(), handle)
        ctx.buffer, ctx.handle = buffer, handle
        return combined

    @staticmethod
    def backward(ctx, grad_TD):
        # num_sms given: DeepEP estimates SMs before it reads the expert count from a handle
        # (elastic.py dispatch), and with 0 it fails on the handle's None.
        grad_recv, _, _, _, _ = ctx.buffer.dispatch(grad_TD.contiguous(), handle=ctx.handle, num_sms=ctx.handle.num_sms)
        return grad_recv, None, None


@dataclass
class DeepEPHandle:
    deepep: object  # DeepEP's EPHandle
    order_N: torch.Tensor  # flat (received token, slot) of each expert row
    inv_order_N: torch.Tensor  # expert row of each slot, -1 where the expert is on another rank
    recv_weight_RK: torch.Tensor  # top-k weights of the received tokens (fp32, differentiable)


class DeepEPDispatcher(Dispatcher):
    def __init__(self, num_experts: int, group: dist.ProcessGroup, hidden_size: int, top_k: int, max_tokens_per_rank: int) -> None:
        reason = deepep_unavailable_reason()
        if reason is not None:
            from payload.ep import EPConfigError

            raise EPConfigError(reason + "; choose ep backend 'all_to_all' instead")
        super().__init__(num_experts, dist.get_rank(group), dist.get_world_size(group))
        self.group = group
        self.buffer = _buffer(group, max_tokens_per_rank, hidden_size, top_k)
        # DeepEP's own SM estimate, with the EFA link rate it cannot read for itself across nodes.
        self.num_sms = deepep_efa.num_sms(self.buffer, num_experts, top_k, gpus_per_node=local_world_size())

    def dispatch(self, x_TD, topk_idx_TK, topk_weight_TK):
        recv_x_RD, recv_weight_RK, recv_idx_RK, handle = _Dispatch.apply(
            x_TD, topk_weight_TK, topk_idx_TK, self.buffer, self.num_experts, self.num_sms
        )
        x_ND, tokens_per_expert_L, order_N, inv_order_N = expand_received(recv_x_RD, recv_idx_RK, self.num_local_experts)
        return x_ND, tokens_per_expert_L, DeepEPHandle(handle, order_N, inv_order_N, recv_weight_RK)

    def combine(self, y_ND, handle: DeepEPHandle):
        partial_RD = unpermute_and_weigh(y_ND, handle.order_N, handle.inv_order_N, handle.recv_weight_RK)
        return _Combine.apply(partial_RD, self.buffer, handle.deepep)
