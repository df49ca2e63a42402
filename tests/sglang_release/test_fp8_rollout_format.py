"""payload.sync.fp8 against SGLang 0.5.23's own block-FP8 loader code: the release's dequantizer
(fp8_utils.block_quant_dequant, compiled from its source: the module's import chain needs CUDA)
recovers the weights, the scale shapes are the ones Fp8LinearMethod allocates, and the config
keys are the ones Fp8Config.from_config requires."""

from __future__ import annotations

import ast
import re
from typing import List

import pytest
import torch

from payload.model import Qwen3MoeForCausalLM, tiny_config
from payload.model.checkpoint import iter_hf_tensors
from payload.sync import fp8


def release_function(path, name):
    tree = ast.parse(path.read_text())
    [node] = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
    namespace = {"torch": torch, "List": List}
    exec(compile(ast.Module([node], []), str(path), "exec"), namespace)
    return namespace[name]


@pytest.fixture(scope="module")
def block_quant_dequant(sglang_source):
    return release_function(sglang_source / "srt/layers/quantization/fp8_utils.py", "block_quant_dequant")


@pytest.mark.parametrize("shape", [(256, 384), (200, 130), (3, 136, 260)])
def test_release_dequantizes_our_blocks_back_to_the_weights(block_quant_dequant, shape):
    torch.manual_seed(0)
    w = (torch.randn(shape) * torch.logspace(-3, 0, shape[-1])).to(torch.bfloat16)
    q, scale_inv = fp8.quantize_block(w)
    assert q.dtype == torch.float8_e4m3fn and q.shape == w.shape
    assert scale_inv.dtype == torch.float32
    # Fp8LinearMethod.create_weights: ((out + block_n - 1) // block_n, (in + block_k - 1) // block_k)
    assert scale_inv.shape == (*shape[:-2], -(-shape[-2] // 128), -(-shape[-1] // 128))
    back = block_quant_dequant(q, scale_inv, [128, 128], torch.float32)
    rel = ((back - w.float()).norm() / w.float().norm()).item()
    assert rel < 3e-2  # e4m3: 3 mantissa bits
    assert (back.abs().amax() <= w.float().abs().amax() * 1.0625)


def test_zero_block_is_exact(block_quant_dequant):
    w = torch.zeros(128, 256)
    w[:, 128:] = 1.0
    q, scale_inv = fp8.quantize_block(w)
    assert torch.equal(block_quant_dequant(q, scale_inv, [128, 128], torch.float32), w)


def test_config_has_the_keys_the_release_requires(sglang_source):
    source = (sglang_source / "srt/layers/quantization/fp8.py").read_text()
    required = re.findall(r'cls\.get_from_keys\(config, \["(\w+)"\]\)', source)
    assert set(required) <= set(fp8.quantization_config())
    assert fp8.quantization_config()["activation_scheme"] == "dynamic"  # asserted for block quant
    assert fp8.quantization_config()["weight_block_size"] == [128, 128]


def test_tiny_model_names_quantized_as_the_release_loads_them(sglang_source):
    torch.manual_seed(0)
    model = Qwen3MoeForCausalLM(tiny_config())
    source = dict(iter_hf_tensors(model))
    out = dict(fp8.quantize_named(source.items()))
    qwen3 = (sglang_source / "srt/models/qwen3_moe.py").read_text()
    assert re.search(r"self\.gate = ReplicatedLinear\([^)]*quant_config=gate_quant_config", qwen3, re.S)
    for name, tensor in source.items():
        if fp8.is_quantized(name):
            assert out[name].dtype == torch.float8_e4m3fn
            assert out[name.removesuffix("weight") + "weight_scale_inv"].dtype == torch.float32
        else:
            assert out[name] is tensor
    quantized = {n for n in source if fp8.is_quantized(n)}
    assert not any(n.endswith(("mlp.gate.weight", "embed_tokens.weight", "lm_head.weight")) or "norm" in n for n in quantized)
    assert any(".experts.0.down_proj.weight" in n for n in quantized) and any("self_attn.q_proj.weight" in n for n in quantized)
    assert len(out) == len(source) + len(quantized)
