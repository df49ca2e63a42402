"""Qwen3-MoE weights in the block-FP8 format SGLang 0.5.23 loads, for FP8 rollouts.

The format, as the release reads it (sglang/srt/layers/quantization/fp8.py, Fp8Config and
Fp8LinearMethod.create_weights; fp8_utils.block_quant_dequant):

- config.json carries `quantization_config` = {"quant_method": "fp8", "activation_scheme":
  "dynamic", "weight_block_size": [128, 128]} (block-quantized checkpoints must be "dynamic":
  activations are quantized per token group at run time).
- every quantized linear's `<module>.weight` is float8_e4m3fn [out, in], and beside it
  `<module>.weight_scale_inv` float32 [ceil(out/128), ceil(in/128)], one per 128 x 128 block;
  the release dequantizes as weight.float() * scale_inv repeated over each block.
- quantized: the LinearBase and FusedMoE modules: attention q/k/v/o_proj and the experts'
  (and any dense MLP's) gate/up/down_proj. Not quantized: the router (`mlp.gate`: qwen3_moe.py
  builds its ReplicatedLinear with quant_config=None), embeddings, lm_head, norms.

So a rollout server started from an FP8 checkpoint accepts the same names over
update_weights_from_distributed; the publisher sends them when job.rollout.precision is fp8
(payload/sync/wire.py, where a bucket is packed).

Bytes at 235B parameters: bf16 470 GB per publish; FP8 235 GB of weights + 4 B per 16,384
parameters of scales (57 MB), so every byte moved per publish halves. The quantization is
one read of bf16 and one write of FP8 per parameter on the trainer's GPUs (rate:
bench/fp8_quantize.py, measured on an H200 in bench/README.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import torch

BLOCK = 128
FP8_DTYPE = torch.float8_e4m3fn
FP8_MAX = torch.finfo(FP8_DTYPE).max  # 448
QUANTIZED_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
SCALE_SUFFIX = "weight_scale_inv"


def quantization_config() -> dict:
    """The config.json entry SGLang reads to build block-FP8 linears and MoE experts."""
    return {"quant_method": "fp8", "activation_scheme": "dynamic", "weight_block_size": [BLOCK, BLOCK]}


def is_quantized(name: str) -> bool:
    """Whether SGLang loads this HF tensor name as an FP8 weight (with a weight_scale_inv)."""
    parts = name.split(".")
    return len(parts) >= 2 and parts[-1] == "weight" and parts[-2] in QUANTIZED_MODULES


def quantize_block(w_OI: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(fp8 [O, I], scale_inv fp32 [ceil(O/128), ceil(I/128)]) with w ≈ fp8 * scale_inv per block.

    Each block's largest magnitude maps to 448 (e4m3's largest finite value), so nothing
    saturates; an all-zero block gets scale 1. Works on any leading dims ([E, O, I] experts too).
    On CUDA one Triton pass (payload/sync/fp8_triton.py, bit-equal to the torch version)."""
    if w_OI.is_cuda:
        from payload.sync import fp8_triton

        return fp8_triton.quantize_block(w_OI, BLOCK, FP8_DTYPE, FP8_MAX)
    return _quantize_block_torch(w_OI)


def _quantize_block_torch(w_OI: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """quantize_block in torch ops: the CPU path and the Triton kernel's reference."""
    *lead, o, i = w_OI.shape
    bo, bi = -(-o // BLOCK), -(-i // BLOCK)
    padded = torch.nn.functional.pad(w_OI.float(), (0, bi * BLOCK - i, 0, bo * BLOCK - o))
    blocks = padded.reshape(*lead, bo, BLOCK, bi, BLOCK)
    amax = blocks.abs().amax(dim=(-3, -1), keepdim=True)
    # A true division by a same-shaped tensor: torch on CUDA turns `tensor / python_float` into
    # a multiply by the reciprocal, one ulp off IEEE amax / 448 for some blocks.
    scale_inv = torch.where(amax > 0, amax / torch.full_like(amax, FP8_MAX), torch.ones_like(amax))
    q = (blocks / scale_inv).clamp(-FP8_MAX, FP8_MAX).to(FP8_DTYPE)
    q = q.reshape(*lead, bo * BLOCK, bi * BLOCK)[..., :o, :i].contiguous()
    return q, scale_inv.reshape(*lead, bo, bi)


def quantize_named(named_tensors: Iterable[tuple[str, torch.Tensor]]) -> Iterator[tuple[str, torch.Tensor]]:
    """HF-named tensors in, the FP8 checkpoint's tensors out: each quantized weight becomes the
    FP8 weight and its `weight_scale_inv`; everything else passes through unchanged."""
    for name, tensor in named_tensors:
        if is_quantized(name):
            if tensor.dim() != 2:
                raise ValueError(f"{name}: shape {tuple(tensor.shape)}, a linear weight must be 2-D [out, in]")
            q, scale_inv = quantize_block(tensor)
            yield name, q
            yield name[: -len("weight")] + SCALE_SUFFIX, scale_inv
        else:
            yield name, tensor
