"""The Triton kernel behind payload.model.fp8_rowwise.quantize_rowwise on CUDA (imported lazily).

One program per block of rows: the rows' amax, then the scaled, saturating cast to e4m3 and the
scales. Where a whole row fits in one tile (C <= 8192: every activation and gradient the experts
quantize, widths 768..7168) the tile is loaded once, so each element is read once and written
once; the torch version (fp8_rowwise.quantize_rowwise_torch) makes several passes over fp32
temporaries. Inputs read with their row stride 1 (the weights quantized along their output
dimension, read transposed) take square tiles in two passes over the columns, the second mostly
from L2, so that the loads stay coalesced along the rows. IEEE-rounded divisions (div_rn; a
plain `/` in Triton is approximate) keep the kernel bit-equal to the torch version.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

_ONE_TILE_ELEMENTS = 8192  # a row block's elements held at once (fp32: 32 registers a thread at 8 warps)


@triton.jit
def _quantize_rows(x_ptr, q_ptr, s_ptr, R, C, stride_b, stride_r, stride_c, FP8_MAX: tl.constexpr,
                   BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr, ONE_TILE: tl.constexpr):
    b = tl.program_id(1).to(tl.int64)
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    row_ok = rows < R
    x_rows = x_ptr + b * stride_b + rows[:, None].to(tl.int64) * stride_r
    q_rows = q_ptr + b * R * C + rows[:, None].to(tl.int64) * C
    if ONE_TILE:
        cols = tl.arange(0, BLOCK_C)
        mask = row_ok[:, None] & (cols[None, :] < C)
        x = tl.load(x_rows + cols[None, :] * stride_c, mask=mask, other=0.0).to(tl.float32)
        amax = tl.max(tl.abs(x), axis=1)
        scale = tl.where(amax > 0, tl.math.div_rn(amax, tl.zeros_like(amax) + FP8_MAX), 1.0)
        q = tl.math.div_rn(x, tl.zeros_like(x) + scale[:, None])
        q = tl.minimum(tl.maximum(q, -FP8_MAX), FP8_MAX)
        tl.store(q_rows + cols[None, :], q.to(q_ptr.dtype.element_ty), mask=mask)
    else:
        amax = tl.zeros([BLOCK_R], dtype=tl.float32)
        for c0 in range(0, C, BLOCK_C):
            cols = c0 + tl.arange(0, BLOCK_C)
            mask = row_ok[:, None] & (cols[None, :] < C)
            x = tl.load(x_rows + cols[None, :] * stride_c, mask=mask, other=0.0).to(tl.float32)
            amax = tl.maximum(amax, tl.max(tl.abs(x), axis=1))
        scale = tl.where(amax > 0, tl.math.div_rn(amax, tl.zeros_like(amax) + FP8_MAX), 1.0)
        for c0 in range(0, C, BLOCK_C):
            cols = c0 + tl.arange(0, BLOCK_C)
            mask = row_ok[:, None] & (cols[None, :] < C)
            x = tl.load(x_rows + cols[None, :] * stride_c, mask=mask, other=0.0).to(tl.float32)
            q = tl.math.div_rn(x, tl.zeros_like(x) + scale[:, None])
            q = tl.minimum(tl.maximum(q, -FP8_MAX), FP8_MAX)
            tl.store(q_rows + cols[None, :], q.to(q_ptr.dtype.element_ty), mask=mask)
    tl.store(s_ptr + b * R + rows, scale, mask=row_ok)


def quantize_rowwise(x_BRC: torch.Tensor, fp8_dtype: torch.dtype, fp8_max: float) -> tuple[torch.Tensor, torch.Tensor]:
    """x [..., R, C] (any strides) -> (fp8 [..., R, C] contiguous, scales fp32 [..., R])."""
    *lead, r, c = x_BRC.shape
    x = x_BRC.reshape(-1, r, c) if len(lead) != 1 else x_BRC  # a reshape of a 3-D view would copy
    if x.dim() == 2:
        x = x.unsqueeze(0)
    b = x.shape[0]
    q = torch.empty((b, r, c), dtype=fp8_dtype, device=x.device)
    scale = torch.empty((b, r), dtype=torch.float32, device=x.device)
    if b and r and c:
        block_c = triton.next_power_of_2(c)
        one_tile = x.stride(2) == 1 and block_c <= _ONE_TILE_ELEMENTS
        if one_tile:
            block_r = max(1, _ONE_TILE_ELEMENTS // block_c)
            warps = 8
        else:
            block_r, block_c, warps = 64, 64, 4
        grid = (triton.cdiv(r, block_r), b)
        _quantize_rows[grid](x, q, scale, r, c, *x.stride(), FP8_MAX=fp8_max, BLOCK_R=block_r, BLOCK_C=block_c,
                             ONE_TILE=one_tile, num_warps=warps)
    return q.reshape(*lead, r, c), scale.reshape(*lead, r)
