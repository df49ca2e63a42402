"""SwiGLU of the experts' gate/up rows, scaled by each row's routing weight, in one pass.

    a_NF = silu(gate_NF) * up_NF * weight_N[:, None]      (h_NF2 = [gate | up], HF's fused layout)

Folding the routing weight in here (before the down projection, which is linear) is what lets
the combine be a plain gather-and-sum: the separate N x D weight product and, in backward, the
N x D dot product for the router weight's gradient disappear, and this pass over N x 2F rows
(2F = 1536 < D = 2048 on Qwen3-30B-A3B) does both. On CUDA one Triton kernel reads the gate/up
rows once and writes the activation (forward) or the gate/up and weight gradients (backward),
where eager PyTorch runs split, silu, two products and, backward, a cat: bench/moe_layer.py.
Elsewhere (CPU, or no Triton) the same function runs as plain torch ops, computed in fp32 as the
kernel does, and that reference is what the CPU tests hold the model to.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def weighted_swiglu_reference(h_NF2: torch.Tensor, weight_N: torch.Tensor) -> torch.Tensor:
    gate_NF, up_NF = h_NF2.float().chunk(2, dim=-1)
    return (F.silu(gate_NF) * up_NF * weight_N.float()[:, None]).to(h_NF2.dtype)


def _triton_available(h_NF2: torch.Tensor) -> bool:
    if h_NF2.device.type != "cuda":
        return False
    try:
        import triton  # noqa: F401
    except ImportError:
        return False
    return True


def weighted_swiglu(h_NF2: torch.Tensor, weight_N: torch.Tensor) -> torch.Tensor:
    """silu(gate) * up * weight per row; differentiable in h and weight."""
    if _triton_available(h_NF2) and h_NF2.shape[0] > 0:
        from payload.model import swiglu_triton

        return swiglu_triton.WeightedSwiGLU.apply(h_NF2, weight_N)
    return weighted_swiglu_reference(h_NF2, weight_N)
