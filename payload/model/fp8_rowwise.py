"""Rowwise FP8 (e4m3) quantization for the experts' FP8 GEMMs (payload/model/fp8_experts.py).

Each row of a [..., R, C] tensor gets one float32 scale, its largest magnitude over 448 (e4m3's
largest finite value), so the row's values use the format's whole range and nothing saturates;
an all-zero row gets scale 1 instead of a division by zero. The scale is the *dequantization*
factor (x ≈ q · scale), which is what torch._scaled_grouped_mm multiplies into its output, and
the same convention as the rollout weights' block quantizer (payload/sync/fp8.py).

On CUDA one Triton pass (fp8_rowwise_triton.py: each row read once, written once); elsewhere
the torch version, which is also the kernel's reference (bit-equal: the same IEEE divisions and
round-to-nearest-even cast; tests/payload/model/test_fp8_experts.py).
"""

from __future__ import annotations

import torch

FP8_DTYPE = torch.float8_e4m3fn
FP8_MAX = torch.finfo(FP8_DTYPE).max  # 448


def quantize_rowwise(x_BRC: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """x [..., R, C] with any strides -> (e4m3 [..., R, C] contiguous, float32 scales [..., R]).

    Any strides because the backward quantizes the weights along their output dimension by
    reading the parameter transposed, without a transposed copy first."""
    if x_BRC.is_cuda:
        from payload.model import fp8_rowwise_triton

        return fp8_rowwise_triton.quantize_rowwise(x_BRC, FP8_DTYPE, FP8_MAX)
    return quantize_rowwise_torch(x_BRC)


def quantize_rowwise_torch(x_BRC: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """quantize_rowwise in torch ops: the CPU path and the Triton kernel's reference."""
    x = x_BRC.float()
    amax = x.abs().amax(dim=-1, keepdim=True)
    # A true division by a same-shaped tensor: torch on CUDA turns `tensor / python_float` into
    # a multiply by the reciprocal, one ulp off IEEE amax / 448 for some rows.
    scale = torch.where(amax > 0, amax / torch.full_like(amax, FP8_MAX), torch.ones_like(amax))
    q = (x / scale).clamp(-FP8_MAX, FP8_MAX).to(FP8_DTYPE)
    return q.contiguous(), scale.squeeze(-1)


def dequantize_rowwise(q_BRC: torch.Tensor, scale_BR: torch.Tensor) -> torch.Tensor:
    """float32 q · scale: what the scaled GEMM multiplies, for its emulation."""
    return q_BRC.float() * scale_BR.unsqueeze(-1)
