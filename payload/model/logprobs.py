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

import functools

import torch

# Rows per chunk: 4096 × 152 k vocab = 2.5 GiB of fp32 logits, big enough that each chunk's
# GEMM runs at full speed and the per-chunk weight-gradient accumulation stays a few percent.
DEFAULT_CHUNK_ROWS = 4096


def _pick_and_logsumexp(logits_cV: torch.Tensor, targets_c: torch.Tensor, temperature: float):
    """(log p of each row's target, each row's logsumexp), fp32, from a chunk of bf16 logits."""
    x_cV = logits_cV.float() / temperature
    lse_c = torch.logsumexp(x_cV, dim=-1)
    return x_cV.gather(1, targets_c[:, None]).squeeze(1) - lse_c, lse_c


def _logit_grad(logits_cV: torch.Tensor, lse_c: torch.Tensor, grad_c: torch.Tensor, targets_c: torch.Tensor, temperature: float):
    """d loss / d logits = grad · (onehot(target) − softmax) / temperature, in the logits' dtype."""
    p_cV = torch.exp(logits_cV.float() / temperature - lse_c[:, None])
    hit_cV = torch.arange(logits_cV.shape[1], device=logits_cV.device)[None, :] == targets_c[:, None]
    return ((hit_cV.float() - p_cV) * (grad_c[:, None] / temperature)).to(logits_cV.dtype)


@functools.cache
def _compiled(fn, dynamic: bool):
    return torch.compile(fn, dynamic=dynamic)


def _fused(fn, on_cuda: bool, full_chunk: bool = True):
    """On CUDA, `fn` compiled: each chunk's elementwise work becomes one pass over its bf16
    logits instead of five over fp32 ones (the cast, scale, exp, product and cast back of eager
    mode move ~20 GB per 4096-row chunk of a 152 k vocabulary). Eager elsewhere. Full chunks
    get kernels for their one shape; the last chunk of each micro-batch has a length of its
    own (packed micro-batches vary), so it gets dynamic-shape kernels, compiled once, rather
    than one recompilation per length until dynamo's recompile limit drops it to eager."""
    return _compiled(fn, not full_chunk) if on_cuda else fn


class _LinearLogprobs(torch.autograd.Function):
    @staticmethod
    def forward(ctx, h_ND, w_VD, targets_N, temperature, chunk_rows):
        logprobs_N = torch.empty(h_ND.shape[0], dtype=torch.float32, device=h_ND.device)
        lse_N = torch.empty_like(logprobs_N)
        for start in range(0, h_ND.shape[0], chunk_rows):
            rows = slice(start, start + chunk_rows)
            pick = _fused(_pick_and_logsumexp, h_ND.is_cuda, h_ND.shape[0] - start >= chunk_rows)
            logprobs_N[rows], lse_N[rows] = pick(h_ND[rows] @ w_VD.t(), targets_N[rows], temperature)
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
            # The chunk's logits again (one LM-head GEMM), straight into their gradient.
            logit_grad = _fused(_logit_grad, h_ND.is_cuda, h_ND.shape[0] - start >= chunk_rows)
            g_cV = logit_grad(h_ND[rows] @ w_VD.t(), lse_N[rows], grad_N[rows], targets_N[rows], temperature)
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
