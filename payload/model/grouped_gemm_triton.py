"""Grouped expert GEMMs that read and write their rows through an index (Triton; imported lazily).

An MoE layer's rows live in two orders: token order (x_TD, what the layer takes and returns;
with top-k, the K slots of token t are rows t*K .. t*K+K-1 of a [T*K, D] view) and expert order
(N = T*K rows sorted by expert, what a grouped GEMM needs). torch's grouped_mm takes contiguous
expert-order rows only, so the layer copied: x_TD -> x_ND before the first GEMM, y_ND back to
token order before the K-sum, and the adjoints of both in backward — four gathers of N x D
(512 MB each at Qwen3-30B-A3B's 16,384 tokens x top-8, ~0.25 ms each on an H200; bench/README.md).
These kernels fold the index into the GEMM's own loads and stores instead:

    grouped_mm(a, b, group_end, a_rows=token_N)   row n's A operand is a[token_N[n]]
    grouped_mm(a, b, group_end, c_rows=slot_N)    row n's result is stored at c[slot_N[n]]

(A weight-gradient kernel gathering its operands the same way reached ~380 TFLOP/s against
CUTLASS's ~600 on an H200, so the weight gradients stay with torch's grouped GEMM.)

The weights are read with plain loads or, with `weights_via_tma`, through a Hopper TMA tensor
descriptor over the whole [E, rows, cols] weight tensor (the A rows cannot: Hopper's TMA has no
row gather). At the DeepSeek-V3-like shape, where every GEMM streams the whole 22.5 GB of expert
weights, TMA took the two forward GEMMs from 7.84 to 6.99 ms on an H200 and left the two
input-gradient ones as they were (bench/grouped_gemm.py, bench/README.md, #31): the fused layer
reads its weights this way on Hopper and newer.

`group_end` holds the cumulative row counts per expert (int32, on the device: no host sync).
The grid is sized for the worst case (N/BM + E row tiles); tiles past the last expert's return
at once. Math in fp32, results in the inputs' dtype. On CUDA the block sizes are autotuned per
(K, output width); under TRITON_INTERPRET=1 (the CPU tests) one small fixed config runs.
"""

from __future__ import annotations

import os

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

_INTERPRET = os.environ.get("TRITON_INTERPRET") == "1"


@triton.jit
def _tile_of_program(group_end_ptr, pid, num_groups, num_n, E_POW2: tl.constexpr, BM: tl.constexpr):
    """(expert, first row, end row, column tile) of program `pid`. Each expert has cdiv(rows_e, BM)
    row tiles x num_n column tiles, numbered expert by expert and, within one, column tile major:
    the row tiles that share a column tile of the expert's weights run side by side, so it is
    read from HBM once (DeepSeek-V3's 58 MB gate/up weights per expert do not fit the 50 MB L2).
    expert == num_groups for a program past the last tile."""
    e_offs = tl.arange(0, E_POW2)
    in_range = e_offs < num_groups
    ends = tl.load(group_end_ptr + e_offs, mask=in_range, other=0)
    starts = tl.load(group_end_ptr + e_offs - 1, mask=in_range & (e_offs > 0), other=0)
    tiles = tl.where(in_range, (ends - starts + BM - 1) // BM, 0)
    program_ends = tl.cumsum(tiles, 0) * num_n
    expert = tl.sum((program_ends <= pid).to(tl.int32), 0)
    this = e_offs == expert
    row_tiles = tl.maximum(tl.sum(tl.where(this, tiles, 0), 0), 1)
    local = pid - tl.sum(tl.where(this, program_ends - tiles * num_n, 0), 0)
    row_start = tl.sum(tl.where(this, starts, 0), 0) + (local % row_tiles) * BM
    row_end = tl.sum(tl.where(this, ends, 0), 0)
    return expert, row_start, row_end, local // row_tiles


@triton.jit
def _grouped_mm_kernel(
    a_ptr, a_rows_ptr, b_ptr, b_desc, c_ptr, c_rows_ptr, group_end_ptr,
    num_groups, n_cols, K,
    stride_am, stride_be, stride_bk, stride_bn, stride_cm,
    GATHER_A: tl.constexpr, SCATTER_C: tl.constexpr, E_POW2: tl.constexpr,
    B_TMA: tl.constexpr, B_K_CONTIGUOUS: tl.constexpr,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
):
    num_n = tl.cdiv(n_cols, BN)
    expert, row_start, row_end, tile_n = _tile_of_program(group_end_ptr, tl.program_id(0), num_groups, num_n, E_POW2, BM)
    if expert >= num_groups:
        return
    rows = row_start + tl.arange(0, BM)
    row_mask = rows < row_end
    if GATHER_A:
        a_rows = tl.load(a_rows_ptr + rows, mask=row_mask, other=0).to(tl.int64)
    else:
        a_rows = rows.to(tl.int64)
    cols = tile_n * BN + tl.arange(0, BN)
    col_mask = cols < n_cols
    ks = tl.arange(0, BK)
    a_ptrs = a_ptr + a_rows[:, None] * stride_am + ks[None, :]
    b_ptrs = b_ptr + expert.to(tl.int64) * stride_be + ks[:, None] * stride_bk + cols[None, :] * stride_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):  # K % BK == 0 (checked by the caller)
        a = tl.load(a_ptrs, mask=row_mask[:, None], other=0.0)
        if B_TMA:  # b_desc: the [E, N, K] (K contiguous) or [E, K, N] tensor; past N reads zeros
            if B_K_CONTIGUOUS:
                b = b_desc.load([expert, tile_n * BN, k0]).reshape(BN, BK).trans()
            else:
                b = b_desc.load([expert, k0, tile_n * BN]).reshape(BK, BN)
        else:
            b = tl.load(b_ptrs, mask=col_mask[None, :], other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    if SCATTER_C:
        c_rows = tl.load(c_rows_ptr + rows, mask=row_mask, other=0).to(tl.int64)
    else:
        c_rows = rows.to(tl.int64)
    c_ptrs = c_ptr + c_rows[:, None] * stride_cm + cols[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=row_mask[:, None] & col_mask[None, :])


def _set_weight_block(nargs):
    """A config's block shape into the weights' descriptor (autotune's pre-hook)."""
    if nargs["B_TMA"]:
        bn, bk = nargs["BN"], nargs["BK"]
        nargs["b_desc"].block_shape = [1, bn, bk] if nargs["B_K_CONTIGUOUS"] else [1, bk, bn]


def configs(tiles):
    """Autotune configs from (BM, BN, BK, warps, stages) tuples."""
    return [
        triton.Config({"BM": bm, "BN": bn, "BK": bk}, num_warps=w, num_stages=s, pre_hook=_set_weight_block)
        for bm, bn, bk, w, s in tiles
    ]


# Hopper bf16 tiles: 128-row tiles fill a warpgroup's wgmma; the rest trades registers for reuse.
# (Swapping the operands' roles, weights on the wgmma's M side, was slower on an H200 at both
# shapes: bench/README.md, #31.)
MM_TILES = [(128, 256, 64, 8, 3), (128, 256, 64, 8, 4), (256, 128, 64, 8, 3), (128, 128, 64, 4, 4), (128, 128, 128, 8, 3)]
_INTERPRET_CONFIG = {"BM": 16, "BN": 16, "BK": 16}
BLOCK_K_MULTIPLE = 64  # every K the GEMMs see must be a multiple of this (and of the interpreter's 16)



def _k_divides(configs, named_args, **kwargs):
    """The kernels have no K mask: only configs whose BK divides this K."""
    return [c for c in configs if named_args["K"] % c.kwargs["BK"] == 0]


def tuned(config_list):
    """The kernel autotuned over `config_list` (bench/grouped_gemm.py tries other lists)."""
    return triton.autotune(
        config_list, key=["n_cols", "K", "GATHER_A", "SCATTER_C", "B_TMA", "B_K_CONTIGUOUS"],
        prune_configs_by={"early_config_prune": _k_divides},
    )(_grouped_mm_kernel)


MM_KERNEL = tuned(configs(MM_TILES))  # what grouped_mm launches unless given another


def _rows_arg(rows: torch.Tensor | None, like: torch.Tensor) -> torch.Tensor:
    return like if rows is None else rows


def _weights_descriptor(b_EKN: torch.Tensor) -> tuple[TensorDescriptor, bool]:
    """(a TMA descriptor over the tensor behind b_EKN, whether K is its contiguous dimension);
    the block shape is each config's (_set_weight_block)."""
    k_contiguous = b_EKN.stride(1) == 1
    under = b_EKN.transpose(1, 2) if k_contiguous else b_EKN
    if not under.is_contiguous():
        raise ValueError(f"grouped_mm: weights_via_tma needs a contiguous weight tensor or its transposed view, "
                         f"got strides {tuple(b_EKN.stride())}")
    return TensorDescriptor(under, list(under.shape), list(under.stride()), [1, 16, 16]), k_contiguous


def grouped_mm(
    a_MK: torch.Tensor,
    b_EKN: torch.Tensor,
    group_end_E: torch.Tensor,
    *,
    a_rows_N: torch.Tensor | None = None,
    c_rows_N: torch.Tensor | None = None,
    out: torch.Tensor | None = None,
    weights_via_tma: bool = False,
    kernel=None,
) -> torch.Tensor:
    """out[c_rows[n]] = a[a_rows[n]] @ b[e(n)] for the N rows of `group_end_E`'s groups.

    a_MK: contiguous rows (M = N without a_rows, else any number of source rows); b_EKN: any
    strides (pass a transposed view for x @ W^T; with weights_via_tma a contiguous tensor or its
    transposed view); out: [N, n_cols] or, with c_rows, a given tensor whose rows c_rows index
    (every row must be written by some n, or its content stays). kernel: an autotuned kernel of
    `tuned` (default this module's configs)."""
    if a_rows_N is not None:
        n = a_rows_N.numel()
    else:
        n = c_rows_N.numel() if c_rows_N is not None else a_MK.shape[0]
    e, k, n_cols = b_EKN.shape
    if a_MK.shape[1] != k or a_MK.stride(1) != 1:
        raise ValueError(f"grouped_mm: a must be [rows, {k}] with unit column stride, got {tuple(a_MK.shape)}")
    if k % (_INTERPRET_CONFIG["BK"] if _INTERPRET else BLOCK_K_MULTIPLE):
        raise ValueError(f"grouped_mm: K={k} must be a multiple of {BLOCK_K_MULTIPLE}")
    if out is None:
        out = torch.empty(n, n_cols, device=a_MK.device, dtype=a_MK.dtype)
    if n == 0:
        return out
    index_dummy = group_end_E
    b_desc, k_contiguous = _weights_descriptor(b_EKN) if weights_via_tma else (None, False)
    args = (
        a_MK, _rows_arg(a_rows_N, index_dummy), b_EKN, b_desc, out, _rows_arg(c_rows_N, index_dummy), group_end_E,
        e, n_cols, k,
        a_MK.stride(0), b_EKN.stride(0), b_EKN.stride(1), b_EKN.stride(2), out.stride(0),
    )
    flags = {"GATHER_A": a_rows_N is not None, "SCATTER_C": c_rows_N is not None, "E_POW2": triton.next_power_of_2(e),
             "B_TMA": weights_via_tma, "B_K_CONTIGUOUS": k_contiguous}
    if _INTERPRET:
        cfg = _INTERPRET_CONFIG
        _set_weight_block({**flags, **cfg, "b_desc": b_desc})
        grid = ((triton.cdiv(n, cfg["BM"]) + e) * triton.cdiv(n_cols, cfg["BN"]),)
        _grouped_mm_kernel[grid](*args, **flags, **cfg)
    else:
        grid = lambda meta: ((triton.cdiv(n, meta["BM"]) + e) * triton.cdiv(n_cols, meta["BN"]),)  # noqa: E731
        (kernel or MM_KERNEL)[grid](*args, **flags)
    return out
