"""FP8 expert GEMMs for training: the opt-in `experts_precision: fp8` (issue #31).

`fp8_grouped_linear` is moe.grouped_linear (y_NO = x_NI @ w_EOI[e].T for each expert's rows)
with its two products that run over the experts' weights in e4m3 with rowwise scales:

- forward  y = x @ Wᵀ: x one scale per row (over I), W one per output channel per expert (over I);
- dgrad    dx = dy @ W: dy one scale per row (over O), W one per input channel per expert (over O),
  quantized by reading the parameter transposed (fp8_rowwise.quantize_rowwise takes any strides).

Both reductions then run along the scaled dimension, so the scales factor out of every dot
product and torch._scaled_grouped_mm applies them in its epilogue (the H200's FP8 tensor cores,
twice the bf16 rate). The weight gradient dW_e = dy_eᵀ x_e stays the bf16 grouped GEMM of
moe.grouped_linear: its reduction runs over each expert's tokens, so rowwise scales would have to
be per-column scales *within each expert's group of rows*, i.e. a second quantization of x and dy
along the token dimension per group (torchao's MoE training path runs extra kernels for exactly
that), and the weight gradient is the product whose error the optimizer accumulates. One more
reason: its K is each expert's token count, which the FP8 kernel needs in multiples of 16.

Neither FP8 product needs group alignment: the forward and dgrad are the "2-D x 3-D" grouped
GEMM, whose groups are row ranges of A of any size (empty ones and sizes that are not multiples
of 16 tested on the H200); only the widths (D, F, 2F) must be multiples of 16
(Qwen3MoeConfig.validate refuses others when fp8 is chosen).

The scaled GEMM runs on CUDA sm90+ with bf16 activations (`supported`). Elsewhere the product is
emulated: the quantized operands dequantized to fp32 (q · scale) and multiplied in fp32, which
is the FP8 path's arithmetic up to accumulation order; the CPU tests measure the numerics
through it. On a GPU where the kernel cannot run the layer raises instead of emulating (an
opt-in for speed must not quietly run slower than bf16).

Measured on one H200 (bench/README.md, fp8_experts.py): the fp8 layer step is slower than bf16
on both issue-#31 shapes (the eight quantization passes and, on Qwen3-30B-A3B's shape, a slower
FP8 GEMM outweigh the faster products), so bf16 stays the default.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from payload.model.fp8_rowwise import dequantize_rowwise, quantize_rowwise

# use_fast_accum of the scaled GEMM. False: CUTLASS promotes the FP8 tensor cores' partial sums
# into fp32 periodically along K (what DeepSeek-V3 trained with); True accumulates in the tensor
# cores' reduced-precision accumulator throughout (torchao's MoE path uses it). Timed both ways
# in bench/fp8_experts.py.
FAST_ACCUM = False


def supported(x_NI: torch.Tensor, *weights: torch.Tensor) -> bool:
    """Whether torch._scaled_grouped_mm takes these operands: CUDA sm90+, bf16 activations, and
    every weight dimension (the GEMMs' K and N) a multiple of 16."""
    if not hasattr(torch, "_scaled_grouped_mm") or not x_NI.is_cuda or x_NI.dtype != torch.bfloat16:
        return False
    if torch.cuda.get_device_capability(x_NI.device) < (9, 0):
        return False
    return all(w.shape[-1] % 16 == 0 and w.shape[-2] % 16 == 0 for w in weights)


def scaled_grouped_mm(a_q, a_scale_N, b_q_EKO, b_scale_EO, offsets_E, out_dtype, emulate: bool) -> torch.Tensor:
    """out[rows of e] = (a_q · a_scale)[rows of e] @ (b_q · b_scale)[e], a [N, K] row-major,
    b [E, K, O] column-major (a transposed view of an [E, O, K] contiguous tensor).

    `emulate`: dequantize to fp32 and multiply there (CPU: torch's grouped GEMM; CUDA, which has
    no fp32 grouped GEMM: one matmul per expert)."""
    if not emulate:
        return torch._scaled_grouped_mm(a_q, b_q_EKO, a_scale_N, b_scale_EO, offs=offsets_E, out_dtype=out_dtype,
                                        use_fast_accum=FAST_ACCUM)
    a = dequantize_rowwise(a_q, a_scale_N)
    b = dequantize_rowwise(b_q_EKO.transpose(-2, -1), b_scale_EO).transpose(-2, -1)
    if a.is_cuda:
        ends = offsets_E.tolist()
        starts = [0] + ends[:-1]
        out = a.new_zeros(a.shape[0], b.shape[-1])
        for e, (start, end) in enumerate(zip(starts, ends)):
            if end > start:
                out[start:end] = a[start:end] @ b[e]
    else:
        out = F.grouped_mm(a, b, offs=offsets_E)
    return out.to(out_dtype)


class _Fp8GroupedLinear(torch.autograd.Function):
    """moe._GroupedLinear with the forward and input-gradient products in FP8 (module docstring)."""

    @staticmethod
    def forward(ctx, x_NI, w_EOI, offsets_E, emulate):
        ctx.save_for_backward(x_NI, w_EOI, offsets_E)
        ctx.emulate = emulate
        x_q, x_scale = quantize_rowwise(x_NI)
        w_q, w_scale = quantize_rowwise(w_EOI)  # per output channel: over I
        return scaled_grouped_mm(x_q, x_scale, w_q.transpose(-2, -1), w_scale, offsets_E, x_NI.dtype, emulate)

    @staticmethod
    def backward(ctx, grad_NO):
        x_NI, w_EOI, offsets_E = ctx.saved_tensors
        grad_NO = grad_NO.contiguous()
        grad_x = grad_w = None
        if ctx.needs_input_grad[0]:
            g_q, g_scale = quantize_rowwise(grad_NO)
            wt_q, wt_scale = quantize_rowwise(w_EOI.transpose(-2, -1))  # per input channel: over O
            grad_x = scaled_grouped_mm(g_q, g_scale, wt_q.transpose(-2, -1), wt_scale, offsets_E, grad_NO.dtype,
                                       ctx.emulate)
        if ctx.needs_input_grad[1]:
            grad_w = F.grouped_mm(grad_NO.t(), x_NI, offs=offsets_E)
        return grad_x, grad_w, None, None


def fp8_grouped_linear(x_NI: torch.Tensor, w_EOI: torch.Tensor, offsets_E: torch.Tensor) -> torch.Tensor:
    """grouped_linear in FP8 where the scaled GEMM runs, emulated on CPU, an error on other GPUs."""
    emulate = not supported(x_NI, w_EOI)
    if emulate and x_NI.is_cuda:
        raise RuntimeError(
            f"experts_precision='fp8' needs torch._scaled_grouped_mm: a CUDA sm90+ GPU, bf16 compute and expert "
            f"widths that are multiples of 16 (here {x_NI.dtype}, weights {tuple(w_EOI.shape)}); use 'bf16'"
        )
    return _Fp8GroupedLinear.apply(x_NI, w_EOI, offsets_E, emulate)
