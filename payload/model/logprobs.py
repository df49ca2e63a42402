"""Token logprobs straight from the last hidden states, never holding [tokens, vocab] in fp32.

    logprobs_N = linear_logprobs(h_ND, lm_head_weight_VD, targets_N, temperature)

is log_softmax(h @ W.T / temperature)[n, targets[n]] in fp32, computed over row chunks: the
forward keeps only each row's logsumexp, the backward recomputes a chunk's logits (one more
LM-head GEMM, cheap next to the memory it saves) and turns them into the gradient in place.
`keep_logits=True` trades the other way: the forward keeps every chunk's logits in the compute
dtype (tokens x vocab x 2 B: 10 GB for 32 k tokens over a 152 k vocabulary) and the backward
skips the GEMM, a quarter of the LM head's work (bench/train_step.py: 29 ms of a 318 ms step);
only when a backward can follow: scoring without grad (the old policy's and the reference's
logprobs) holds one chunk whatever the switch says.
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


@functools.cache
def _mm_out_dtype_works(device: torch.device) -> bool:
    """Whether torch has the 16-bit GEMM with an fp32 result and accumulator on this device
    (`addmm(..., out_dtype=torch.float32)`: CUDA, torch >= 2.8)."""
    try:
        a = torch.ones(16, 16, dtype=torch.bfloat16, device=device)
        c = torch.ones(16, 16, device=device)
        torch.addmm(c, a, a, out_dtype=torch.float32, out=c)  # in place, as _add_weight_grad calls it
        return bool((c == 17).all())
    except (RuntimeError, TypeError, NotImplementedError):
        return False


def _add_weight_grad(grad_w_VD: torch.Tensor, g_cV: torch.Tensor, h_cD: torch.Tensor) -> None:
    """grad_w += g^T h in fp32. Where the GEMM can write fp32 itself, it adds into the
    accumulator in its epilogue: no rounding of each chunk's product to bf16, and no separate
    pass reading a bf16 [V, D] product and the fp32 accumulator (~3 GB per chunk at 152 k x 2 k)."""
    if g_cV.dtype != grad_w_VD.dtype and _mm_out_dtype_works(g_cV.device):
        torch.addmm(grad_w_VD, g_cV.t(), h_cD, out_dtype=torch.float32, out=grad_w_VD)
    else:
        grad_w_VD.add_(g_cV.t() @ h_cD)


class _LinearLogprobs(torch.autograd.Function):
    @staticmethod
    def forward(ctx, h_ND, w_VD, targets_N, temperature, chunk_rows, keep_logits):
        logprobs_N = torch.empty(h_ND.shape[0], dtype=torch.float32, device=h_ND.device)
        lse_N = torch.empty_like(logprobs_N)
        kept = []
        for start in range(0, h_ND.shape[0], chunk_rows):
            rows = slice(start, start + chunk_rows)
            pick = _fused(_pick_and_logsumexp, h_ND.is_cuda, h_ND.shape[0] - start >= chunk_rows)
            logits_cV = h_ND[rows] @ w_VD.t()
            logprobs_N[rows], lse_N[rows] = pick(logits_cV, targets_N[rows], temperature)
            if keep_logits:
                kept.append(logits_cV)
        ctx.save_for_backward(h_ND, w_VD, targets_N, lse_N, *kept)
        ctx.temperature, ctx.chunk_rows = temperature, chunk_rows
        return logprobs_N

    @staticmethod
    def backward(ctx, grad_N):
        h_ND, w_VD, targets_N, lse_N, *kept = ctx.saved_tensors
        temperature, chunk_rows = ctx.temperature, ctx.chunk_rows
        need_h, need_w = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        grad_h = torch.empty_like(h_ND) if need_h else None
        grad_w = torch.zeros(w_VD.shape, dtype=torch.float32, device=w_VD.device) if need_w else None
        grad_N = grad_N.float()
        for index, start in enumerate(range(0, h_ND.shape[0], chunk_rows)):
            rows = slice(start, start + chunk_rows)
            # The chunk's logits (kept, or again: one LM-head GEMM), straight into their gradient.
            logits_cV = kept[index] if kept else h_ND[rows] @ w_VD.t()
            logit_grad = _fused(_logit_grad, h_ND.is_cuda, h_ND.shape[0] - start >= chunk_rows)
            g_cV = logit_grad(logits_cV, lse_N[rows], grad_N[rows], targets_N[rows], temperature)
            if need_h:
                grad_h[rows] = g_cV @ w_VD
            if need_w:
                _add_weight_grad(grad_w, g_cV, h_ND[rows])
        return grad_h, None if grad_w is None else grad_w.to(w_VD.dtype), None, None, None, None


def linear_logprobs(
    h_ND: torch.Tensor,
    weight_VD: torch.Tensor,
    targets_N: torch.Tensor,
    temperature: float = 1.0,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
    keep_logits: bool = False,
) -> torch.Tensor:
    """fp32 [N]: log p(targets_N[n]) under softmax(h_ND[n] @ weight_VD.T / temperature).
    `keep_logits`: hold the logits for backward instead of recomputing them (module docstring)."""
    if h_ND.ndim != 2 or targets_N.shape != h_ND.shape[:1]:
        raise ValueError(f"expected hidden [N, D] and targets [N], got {tuple(h_ND.shape)} and {tuple(targets_N.shape)}")
    if temperature <= 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    # Inside the Function grad mode is off and needs_input_grad ignores torch.no_grad: decide here.
    keep = bool(keep_logits) and torch.is_grad_enabled() and (h_ND.requires_grad or weight_VD.requires_grad)
    return _LinearLogprobs.apply(h_ND, weight_VD, targets_N.long(), float(temperature), int(chunk_rows), keep)
