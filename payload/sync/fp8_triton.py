"""The Triton kernel behind payload.sync.fp8.quantize_block on CUDA (imported lazily).

One program per 128 x 128 block: load it once (bf16), take its amax, write the e4m3 block and
its float32 scale. The torch version (fp8._quantize_block_torch, the CPU path and the
reference) makes ~10 passes over fp32 temporaries: 134 GB/s on an H200 against this one read
and one write (rates in bench/README.md). Same arithmetic, IEEE-rounded divisions (div_rn; a
plain `/` in Triton is approximate), so the two are bit-equal (tests/payload/sync/
test_sync_fp8_triton.py, on a GPU).
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def _block_quant(w_ptr, q_ptr, s_ptr, O, I, stride_n, stride_o, stride_i, FP8_MAX: tl.constexpr, BLOCK: tl.constexpr):
    bo, bi, n = tl.program_id(0), tl.program_id(1), tl.program_id(2).to(tl.int64)
    rows = bo * BLOCK + tl.arange(0, BLOCK)
    cols = bi * BLOCK + tl.arange(0, BLOCK)
    mask = (rows[:, None] < O) & (cols[None, :] < I)
    w = tl.load(w_ptr + n * stride_n + rows[:, None] * stride_o + cols[None, :] * stride_i, mask=mask, other=0.0)
    w = w.to(tl.float32)
    amax = tl.max(tl.max(tl.abs(w), axis=1), axis=0)
    scale = tl.where(amax > 0, tl.math.div_rn(amax, FP8_MAX), 1.0)
    q = tl.math.div_rn(w, tl.zeros_like(w) + scale)
    q = tl.minimum(tl.maximum(q, -FP8_MAX), FP8_MAX)
    tl.store(q_ptr + n * O * I + rows[:, None] * I + cols[None, :], q.to(q_ptr.dtype.element_ty), mask=mask)
    blocks_o, blocks_i = tl.cdiv(O, BLOCK), tl.cdiv(I, BLOCK)
    tl.store(s_ptr + n * blocks_o * blocks_i + bo * blocks_i + bi, scale)


def quantize_block(w_NOI: torch.Tensor, block: int, fp8_dtype: torch.dtype, fp8_max: float
                   ) -> tuple[torch.Tensor, torch.Tensor]:
    """w [..., O, I] (any strides) -> (fp8 [..., O, I] contiguous, scale_inv fp32 [..., bo, bi])."""
    *lead, o, i = w_NOI.shape
    w = w_NOI.reshape(-1, o, i) if lead else w_NOI.unsqueeze(0)
    n = w.shape[0]
    bo, bi = triton.cdiv(o, block), triton.cdiv(i, block)
    q = torch.empty((n, o, i), dtype=fp8_dtype, device=w.device)
    scale_inv = torch.empty((n, bo, bi), dtype=torch.float32, device=w.device)
    if n and o and i:
        _block_quant[(bo, bi, n)](w, q, scale_inv, o, i, *w.stride(), FP8_MAX=fp8_max, BLOCK=block)
    return q.reshape(*lead, o, i), scale_inv.reshape(*lead, bo, bi)
