"""Expert weight gradients through QuACK's varlen-K GEMM, the row gather done in its loads.

dW_e = G_e^T X_e sums over expert e's rows, so the experts are groups along the GEMM's K. One of
the two operands is addressed through token indices (x_TD[token_N] for gate/up, grad_TD[token_N]
for down); torch's CUTLASS grouped GEMM needs that gather as a copy first (N x D, 470 MB per
GEMM at the DeepSeek-V3-like shape). QuACK (Tri Dao's CuTe-DSL kernels, the GEMMs SonicMoE
trains MoE with) takes the indices as A_idx and gathers while loading A, so the gathered operand
goes on A's side and, for gate/up, the product is stored transposed into dW's [E, O, I] layout.

Measured on one H100 (DeepSeek-V3-like: 256 experts, 99-161 rows each, bf16; out/ probe,
2026-12-05; `fill_` writes 3.29 TB/s in the same run): gate/up 6.47 ms against torch's 6.94
(6.76 + the 0.18 ms gather copy), down 3.31 against 3.75; results bit-identical (both accumulate
each expert's rows in fp32 in order). The GEMMs store 22.5 GB of bf16 gradients, so both stay
store-bound: QuACK at ~2.3 TB/s, CUTLASS at ~2.1. The whole layer, compiled, same H100: 30.75 ->
28.96 ms (median of five alternating rounds, 1.065x), every gradient bit-identical.

The GPU image has QuACK already: SGLang 0.5.23 pins quack-kernels 0.6.5 (nvidia-cutlass-dsl
4.8.0). The figures above are from 0.2.4 on cutlass-dsl 4.3.5, whose gemm() takes the same
arguments (the 4.4+ DSL wheels reachable here lack their Python sources, so 0.6.5 could not be
carried to the device); the GPU test checks bit-equality with torch on whichever is installed.
Where QuACK is missing or the GPU is not Hopper, the caller falls back to torch's grouped GEMM.
Importing QuACK takes ~6 s (the CuTe DSL), so it happens on the first weight gradient, not when
the model is built.
"""

from __future__ import annotations

import functools
from importlib import metadata

import torch

TESTED_CAPABILITIES = {(9, 0)}  # Hopper: the H100/H200 it was measured and tested on


@functools.cache
def _gemm():
    try:
        from quack.gemm_interface import gemm
    except ImportError:
        return None
    return gemm


def available(x: torch.Tensor) -> bool:
    """Whether the QuACK path runs for this operand: 16-bit CUDA tensors on a tested GPU with
    quack-kernels importable."""
    return (
        x.is_cuda
        and x.dtype in (torch.bfloat16, torch.float16)
        and torch.cuda.get_device_capability(x.device) in TESTED_CAPABILITIES
        and _gemm() is not None
    )


def wgrad(g_MO, x_MI, group_end_E, g_rows_N=None, x_rows_N=None) -> torch.Tensor:
    """[E, O, I] with dW_e = G_e^T X_e, G = g[g_rows] and X = x[x_rows] in expert order (exactly
    one of the two gathered, as in the fused layer's backward; group_end_E: cumulative row ends)."""
    if (g_rows_N is None) == (x_rows_N is None):
        raise ValueError("wgrad gathers exactly one operand: pass g_rows_N or x_rows_N")
    experts, o, i = group_end_E.numel(), g_MO.shape[1], x_MI.shape[1]
    cu_seqlens = torch.cat([group_end_E.new_zeros(1), group_end_E]).to(torch.int32)
    out_EOI = torch.empty(experts, o, i, device=g_MO.device, dtype=g_MO.dtype)
    if g_rows_N is not None:  # down: dW_e = grad[token]_e^T a_e, gathered A, [E, O, I] as stored
        _gemm()(g_MO.t(), x_MI, out=out_EOI, cu_seqlens_k=cu_seqlens, A_idx=g_rows_N.to(torch.int32))
    else:  # gate/up: dW_e^T = x[token]_e^T grad_h_e, gathered A, stored through the [E, I, O] view
        _gemm()(x_MI.t(), g_MO, out=out_EOI.transpose(1, 2), cu_seqlens_k=cu_seqlens, A_idx=x_rows_N.to(torch.int32))
    return out_EOI


def backend(x: torch.Tensor) -> str:
    """Which GEMM the fused layer's weight gradients take for operands like x (benchmarks print it)."""
    if not available(x):
        return "torch grouped_mm (CUTLASS)"
    try:
        return f"QuACK (quack-kernels {metadata.version('quack-kernels')})"
    except metadata.PackageNotFoundError:  # on the path without its dist-info
        return "QuACK"
