"""The local MoE experts with the token permutation folded into their GEMMs (CUDA + Triton).

Same function as SparseMoeBlock's folded path (permute -> grouped gate/up GEMM -> weighted SwiGLU
-> grouped down GEMM -> unpermute and K-sum), without materialising either permutation:

    forward   h_N  = x_TD[token_N] @ Wgu[e]^T          the gather is the first GEMM's A load
              a_N  = silu(gate) * up * weight_N         payload/model/swiglu_triton.py
              y[slot_N] = a_N @ Wd[e]^T                 the scatter is the second GEMM's store
              out_TD = sum over K of y.view(T, K, D)    contiguous: one read of y (sum_rows)
    backward  grad_a_N = grad_out[token_N] @ Wd[e]      gathered A again
              dWd[e] = grad_out[token_N]^T a_N          see _wgrad (QuACK: gathered in its loads)
              grad_h_N, grad_weight_N = SwiGLU backward
              grad_x[slot_N] = grad_h_N @ Wgu[e]; grad_x_TD = sum over K
              dWgu[e] = grad_h_N^T x_TD[token_N]        see _wgrad

slot_N is the flat (token, k) position of expert-order row n (order_N of the local dispatcher)
and token_N = slot_N // K. Of the unfused layer's four N x D gathers two remain, both feeding
the weight gradients (see _wgrad); the two K-sums read contiguous rows (sum_rows). Numerics:
the GEMMs accumulate in fp32 as CUTLASS's do, the K-sums in fp32 with one rounding (as torch's
sum), SwiGLU is the same kernel; the results differ from the unfused layer only in summation
order (tests/payload/model/test_fused_experts.py).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from payload.ep.sum_rows_triton import sum_rows
from payload.model import grouped_gemm_triton as gg
from payload.model import swiglu_triton, wgrad_quack

def supported(x_TD: torch.Tensor, gate_up_EOI: torch.Tensor, down_EOI: torch.Tensor) -> bool:
    """Whether the fused path runs here: 16-bit floats on CUDA (or anything under Triton's CPU
    interpreter) and every GEMM's reduction width a multiple of the kernels' K block."""
    if not (x_TD.is_cuda or gg._INTERPRET):
        return False
    if x_TD.is_cuda and x_TD.dtype not in (torch.bfloat16, torch.float16):
        return False
    block = gg._INTERPRET_CONFIG["BK"] if gg._INTERPRET else gg.BLOCK_K_MULTIPLE
    d, f = down_EOI.shape[1], down_EOI.shape[2]
    return d % block == 0 and f % block == 0 and gate_up_EOI.shape[1] == 2 * f


def weights_via_tma(x: torch.Tensor) -> bool:
    """Whether the grouped GEMMs read the expert weights through TMA descriptors: on Hopper and
    newer (and under the interpreter, whose tests cover the path). One H200, DeepSeek-V3-like
    shape (bench/grouped_gemm.py, 2026-12-05): the forward GEMMs 5.10 -> 4.53 ms (gate/up) and
    2.74 -> 2.46 ms (down), the two input-gradient GEMMs unchanged (2.27 / 2.28, 4.62 / 4.62)."""
    if gg._INTERPRET:
        return True
    return x.is_cuda and torch.cuda.get_device_capability(x.device)[0] >= 9


def _wgrad(g_MO, x_MI, group_end_E, g_rows_N=None, x_rows_N=None):
    """dW_e = G_e^T X_e: QuACK's varlen-K GEMM, gathering in its loads, where it runs
    (payload/model/wgrad_quack.py, with its figures); else torch's CUTLASS grouped GEMM on gathered
    copies. What was tried and dropped for these two GEMMs: bench/README.md (#31)."""
    if wgrad_quack.available(g_MO):
        return wgrad_quack.wgrad(g_MO, x_MI, group_end_E, g_rows_N=g_rows_N, x_rows_N=x_rows_N)
    g_NO = g_MO if g_rows_N is None else g_MO.index_select(0, g_rows_N)
    x_NI = x_MI if x_rows_N is None else x_MI.index_select(0, x_rows_N)
    return F.grouped_mm(g_NO.t(), x_NI, offs=group_end_E)


class _FusedLocalExperts(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x_TD, weight_TK, gate_up_EOI, down_EOI, slot_N, group_end_E):
        t, k = weight_TK.shape
        x_TD = x_TD.contiguous()
        token_N = torch.div(slot_N, k, rounding_mode="floor")
        weight_N = weight_TK.reshape(-1).index_select(0, slot_N).contiguous()
        tma = ctx.tma = weights_via_tma(x_TD) and gate_up_EOI.is_contiguous() and down_EOI.is_contiguous()
        h_NF2 = gg.grouped_mm(x_TD, gate_up_EOI.transpose(1, 2), group_end_E, a_rows_N=token_N, weights_via_tma=tma)
        a_NF = swiglu_triton.forward(h_NF2, weight_N)
        y_TKD = gg.grouped_mm(a_NF, down_EOI.transpose(1, 2), group_end_E, c_rows_N=slot_N, weights_via_tma=tma)
        ctx.save_for_backward(x_TD, weight_N, gate_up_EOI, down_EOI, slot_N, token_N, group_end_E, h_NF2, a_NF)
        ctx.k = k
        return sum_rows(y_TKD, None, k)

    @staticmethod
    def backward(ctx, grad_TD):
        x_TD, weight_N, gate_up_EOI, down_EOI, slot_N, token_N, group_end_E, h_NF2, a_NF = ctx.saved_tensors
        need_x, need_weight, need_gate_up, need_down = ctx.needs_input_grad[:4]
        grad_TD = grad_TD.contiguous()
        t, k = grad_TD.shape[0], ctx.k
        grad_a_NF = gg.grouped_mm(grad_TD, down_EOI, group_end_E, a_rows_N=token_N, weights_via_tma=ctx.tma)
        grad_down = _wgrad(grad_TD, a_NF, group_end_E, g_rows_N=token_N) if need_down else None
        grad_h_NF2, grad_weight_N = swiglu_triton.backward(h_NF2, weight_N, grad_a_NF)
        grad_x = None
        if need_x:
            grad_x_TKD = gg.grouped_mm(grad_h_NF2, gate_up_EOI, group_end_E, c_rows_N=slot_N, weights_via_tma=ctx.tma)
            grad_x = sum_rows(grad_x_TKD, None, k)
        grad_gate_up = _wgrad(grad_h_NF2, x_TD, group_end_E, x_rows_N=token_N) if need_gate_up else None
        grad_weight = None
        if need_weight:
            grad_weight = torch.empty(t * k, device=grad_TD.device, dtype=grad_weight_N.dtype)
            grad_weight[slot_N] = grad_weight_N
            grad_weight = grad_weight.view(t, k).to(weight_N.dtype)
        return grad_x, grad_weight, grad_gate_up, grad_down, None, None


# Dynamo cannot trace Triton's autotuner (it tracks the config list as mutable state and gives up
# on the whole layer); under torch.compile the call is a graph break and the rest still compiles.
@torch.compiler.disable
def fused_local_experts(
    x_TD: torch.Tensor,
    idx_TK: torch.Tensor,
    weight_TK: torch.Tensor,
    gate_up_EOI: torch.Tensor,
    down_EOI: torch.Tensor,
) -> torch.Tensor:
    """sum_k weight[t,k] * expert_{idx[t,k]}(x[t]) for every token; all experts on this device.

    Rows within an expert keep token order (a stable sort), as the local dispatcher's do."""
    num_experts = gate_up_EOI.shape[0]
    slot_N = torch.argsort(idx_TK.reshape(-1), stable=True)
    counts_E = torch.zeros(num_experts, dtype=torch.int32, device=idx_TK.device).scatter_add_(
        0, idx_TK.reshape(-1), torch.ones(idx_TK.numel(), dtype=torch.int32, device=idx_TK.device)
    )
    group_end_E = torch.cumsum(counts_E, 0, dtype=torch.int32)
    return _FusedLocalExperts.apply(x_TD, weight_TK, gate_up_EOI, down_EOI, slot_N, group_end_E)
