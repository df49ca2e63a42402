"""Token logprobs straight from the last hidden states, never holding [tokens, vocab] in fp32.

    logprobs_N = linear_logprobs(h_ND, lm_head_weight_VD, targets_N, temperature)

is log_softmax(h @ W.T / temperature)[n, targets[n]] in fp32, computed over row chunks: the
forward keeps only each row's logsumexp, the backward recomputes a chunk's logits (one more
LM-head GEMM, cheap next to the memory it saves) and turns them into the gradient in place.
The full fp32 logits of a 16 k-token micro-batch over a 152 k vocabulary are 10 GiB, and the
unfused path holds them, their gradient and the bf16 logits at once; here the peak is one
chunk. This is what lets the trainer run fewer, larger micro-batches (bench/train_step.py).
"""

from __future__ import annotations

import torch

# Rows per chunk: 4096 × 152 k vocab = 2.5 GiB of fp32 logits, big enough that each chunk's
# GEMM runs at full speed and the per-chunk weight-gradient accumulation stays a few percent.
DEFAULT_CHUNK_ROWS = 4096


def _chunk_logits(h_cD: torch.Tensor, w_VD: torch.Tensor, temperature: float) -> torch.Tensor:
    logits_cV = (h_cD @ w_VD.t()).float()
    if temperature != 1.0:
        logits_cV.div_(temperature)
    return logits_cV


class _LinearLogprobs(torch.autograd.Function):
    @staticmethod
    def forward(ctx, h_ND, w_VD, targets_N, temperature, chunk_rows):
        logprobs_N = torch.empty(h_ND.shape[0], dtype=torch.float32, device=h_ND.device)
        lse_N = torch.empty_like(logprobs_N)
        for start in range(0, h_ND.shape[0], chunk_rows):
            rows = slice(start, start + chunk_rows)
            logits_cV = _chunk_logits(h_ND[rows], w_VD, temperature)
            lse_N[rows] = torch.logsumexp(logits_cV, dim=-1)
            logprobs_N[rows] = logits_cV.gather(1, targets_N[rows, None]).squeeze(1) - lse_N[rows]
        ctx.save_for_backward(h_ND, w_VD, targets_N, lse_N)
        ctx.temperature, ctx.chunk_rows = temperature, chunk_rows
        return logprobs_N

    @staticmethod
    def backward(ctx, grad_N):
        h_ND, w_VD, targets_N, lse_N = ctx.saved_tensors
        temperature, chunk_rows = ctx.temperature, ctx.chunk_rows
        need_h, need_w = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        grad_h = torch.empty_like(h_ND) if need_h else None
        grad_w = torch.zeros(w_VD.shape, dtype=torch.float32, device=w_VD.device) if need_w else None
        grad_N = grad_N.float()
        for start in range(0, h_ND.shape[0], chunk_rows):
            rows = slice(start, start + chunk_rows)
            # d logprob_n / d logit_nv = (onehot(target_n) - softmax_nv) / temperature
            g_cV = _chunk_logits(h_ND[rows], w_VD, temperature)
            g_cV.sub_(lse_N[rows, None]).exp_().mul_(-grad_N[rows, None])
            g_cV.scatter_add_(1, targets_N[rows, None], grad_N[rows, None])
            if temperature != 1.0:
                g_cV.div_(temperature)
            g_cV = g_cV.to(h_ND.dtype)
            if need_h:
                grad_h[rows] = g_cV @ w_VD
            if need_w:
                grad_w.add_(g_cV.t() @ h_ND[rows])
        return grad_h, None if grad_w is None else grad_w.to(w_VD.dtype), None, None, None


def linear_logprobs(
    h_ND: torch.Tensor,
    weight_VD: torch.Tensor,
    targets_N: torch.Tensor,
    temperature: float = 1.0,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
) -> torch.Tensor:
    """fp32 [N]: log p(targets_N[n]) under softmax(h_ND[n] @ weight_VD.T / temperature)."""
    if h_ND.ndim != 2 or targets_N.shape != h_ND.shape[:1]:
        raise ValueError(f"expected hidden [N, D] and targets [N], got {tuple(h_ND.shape)} and {tuple(targets_N.shape)}")
    if temperature <= 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    return _LinearLogprobs.apply(h_ND, weight_VD, targets_N.long(), float(temperature), int(chunk_rows))
