"""Attention over packed sequences: samples back to back in one row, causal inside each
sample, nothing across a boundary, positions restarting at each sample.

On CUDA this is FlashAttention's variable-length kernel (`torch.nn.attention.varlen`): no mask
and no padding, and a sample of n tokens costs n²/2 whatever else shares the row. Elsewhere
(the CPU tests) it is SDPA with a boolean [1, T, T] mask, built once per forward: the same
function, at T² cost. flex-attention with a document BlockMask was tried first and measured
6% slower per token than padded flash SDPA on the H200 (bench/README.md); the varlen kernel is
the one padded SDPA uses.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch.nn.attention.varlen import varlen_attn

# The keyword that admits fewer KV heads than query heads: torch 2.13+ asks for
# `enable_gqa=True`; 2.11 has no such flag and hands the heads to FlashAttention as they are,
# which supports grouped-query heads itself.
_GQA = {"enable_gqa": True} if "enable_gqa" in inspect.signature(varlen_attn).parameters else {}


@dataclass(frozen=True)
class PackedSequences:
    """Where the packed samples of one row start. `cu_seqlens` [n + 1] int32 on the tokens'
    device: sample i is tokens [cu_seqlens[i], cu_seqlens[i+1]); `max_len` its longest sample
    (FlashAttention sizes its grid by it); `mask_1TT` the boolean mask off CUDA, else None."""

    cu_seqlens: torch.Tensor
    max_len: int
    mask_1TT: torch.Tensor | None

    @classmethod
    def of(cls, cu_seqlens: torch.Tensor, t: int, device: torch.device) -> "PackedSequences":
        """From sample starts (any int dtype; pass them on the CPU: on a GPU reading the
        longest length waits for the device)."""
        host = cu_seqlens.to("cpu", torch.int64)
        if host.ndim != 1 or len(host) < 2 or host[0] != 0 or host[-1] != t or bool((host.diff() <= 0).any()):
            raise ValueError(f"cu_seqlens {host.tolist()[:8]}...: expected 0 = c0 < c1 < ... < cn = {t} "
                             "(the row's tokens)")
        max_len = int(host.diff().max())
        starts = host.to(device, torch.int32, non_blocking=True)
        mask = None
        if device.type != "cuda":
            doc_T = _sample_of_token(starts, t)
            pos = torch.arange(t, device=device)
            mask = ((doc_T[:, None] == doc_T[None, :]) & (pos[None, :] <= pos[:, None]))[None]
        return cls(starts, max_len, mask)

    def positions(self, t: int) -> torch.Tensor:
        """[T] each of the row's `t` tokens' position inside its own sample."""
        return torch.arange(t, device=self.cu_seqlens.device) - self.cu_seqlens[_sample_of_token(self.cu_seqlens, t)]

    def attend(self, q_BHTD: torch.Tensor, k_BHTD: torch.Tensor, v_BHTD: torch.Tensor) -> torch.Tensor:
        """Causal attention within each sample (B = 1; grouped-query heads allowed): [1, H, T, D]."""
        if self.mask_1TT is not None:
            return F.scaled_dot_product_attention(q_BHTD, k_BHTD, v_BHTD, attn_mask=self.mask_1TT.unsqueeze(1),
                                                  enable_gqa=True)
        q, k, v = (x[0].transpose(0, 1) for x in (q_BHTD, k_BHTD, v_BHTD))  # [T, H, D]
        out_THD = varlen_attn(q, k, v, self.cu_seqlens, self.cu_seqlens, self.max_len, self.max_len,
                              window_size=(-1, 0), **_GQA)  # (-1, 0): causal
        return out_THD.transpose(0, 1)[None]


def _sample_of_token(cu_seqlens: torch.Tensor, t: int) -> torch.Tensor:
    return torch.bucketize(torch.arange(t, device=cu_seqlens.device), cu_seqlens[1:], right=True)

