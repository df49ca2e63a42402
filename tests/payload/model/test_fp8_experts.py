"""FP8 experts (payload/model/fp8_experts.py, fp8_rowwise.py, fp8_rowwise_triton.py).

CPU: the rowwise quantizer's contract; the Triton quantizer bit-equal to the torch reference
under Triton's interpreter (in a child process: TRITON_INTERPRET must be set before triton.jit
wraps the kernel); the FP8 grouped linear against products written here from the quantized
operands; the layer and the config switch. GPU (sm90+): the compiled quantizer bit-equal to the
reference, and torch._scaled_grouped_mm against the emulated product, forward and backward.
The step-level numerics against fp32 are tests/payload/train/test_train_fp8_experts.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from payload.model.fp8_rowwise import FP8_MAX, dequantize_rowwise, quantize_rowwise_torch

ROOT = Path(__file__).resolve().parents[3]


def _rel(a, b):
    return ((a.float() - b.float()).norm() / b.float().norm().clamp(min=1e-30)).item()


def _quantizer_cases(device, dtype):
    """(name, input) pairs: contiguous rows of the widths the experts quantize, a width over one
    tile, rows read transposed (the dgrad's weights), a zero row, a row past e4m3's range."""
    g = torch.Generator(device="cpu").manual_seed(0)

    def r(*shape):
        return (torch.randn(*shape, generator=g) * 0.05).to(device, dtype)

    zero_row = r(5, 64)
    zero_row[2] = 0
    big = r(4, 48)
    big[1] *= 1e6
    return [
        ("rows_768", r(37, 768)),
        ("rows_2048", r(9, 2048)),
        ("rows_96", r(300, 96)),
        ("rows_9000", r(3, 9000)),
        ("transposed_3d", r(3, 80, 48).transpose(-2, -1)),
        ("contiguous_3d", r(2, 40, 64)),
        ("zero_row", zero_row),
        ("large_values", big),
    ]


def _quantizer_mismatches(device, dtype) -> dict[str, dict[str, int]]:
    """Per case: scales that differ from the reference, e4m3 codes that differ, and of those the
    ones Triton's interpreter's own fp8 cast does not explain. That cast (not the compiled
    kernel's cvt.rn) loses the carry of a mantissa rounded up into the exponent (31.75 -> 16,
    not 32) and rounds some subnormals (below 2^-6) one step (2^-9) off."""
    from payload.model import fp8_rowwise_triton
    from payload.model.fp8_rowwise import FP8_DTYPE

    out = {}
    for name, x in _quantizer_cases(device, dtype):
        q, s = fp8_rowwise_triton.quantize_rowwise(x, FP8_DTYPE, FP8_MAX)
        q_ref, s_ref = quantize_rowwise_torch(x)
        assert q.shape == q_ref.shape and s.shape == s_ref.shape and q.is_contiguous(), name
        differ = q.view(torch.uint8) != q_ref.view(torch.uint8)
        ref, got = q_ref.float()[differ], q.float()[differ]
        power_of_two = torch.frexp(ref.abs())[0] == 0.5
        carry_lost = power_of_two & (got == ref / 2)
        subnormal_step = (ref.abs() < 2.0**-6) & ((got - ref).abs() <= 2.0**-9)
        out[name] = {"scales": int((s != s_ref).sum()), "codes": int(differ.sum()),
                     "codes_unexplained": int((~(carry_lost | subnormal_step)).sum())}
    return out


def _child():
    print(json.dumps(_quantizer_mismatches("cpu", torch.float32)))


@pytest.fixture(scope="module")
def interpreted():
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, __file__], env=env, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_triton_quantizer_matches_torch_reference_in_interpreter(interpreted):
    """Bit-equal scales, and codes equal but for the interpreter's own cast (_quantizer_mismatches)."""
    assert len(interpreted) == 8
    for case, counts in interpreted.items():
        assert counts["scales"] == 0 and counts["codes_unexplained"] == 0, (case, counts)


def test_rowwise_quantization_uses_the_whole_range_and_rounds_to_3_mantissa_bits():
    x = torch.randn(64, 256) * torch.logspace(-3, 3, 64)[:, None]
    x[5] = 0
    q, scale = quantize_rowwise_torch(x)
    assert q.dtype == torch.float8_e4m3fn and scale.dtype == torch.float32 and scale.shape == (64,)
    nonzero = torch.arange(64) != 5
    assert torch.all(q.float().abs().amax(dim=1)[nonzero] == FP8_MAX)  # each row's amax maps to 448
    assert scale[5] == 1 and torch.all(q[5].float() == 0)  # a zero row: no division by zero
    # Round to nearest with 3 mantissa bits: at most 2^-4 relative to each value (normal range),
    # and at most half the smallest subnormal step below it.
    back = dequantize_rowwise(q, scale)
    err = (back - x).abs()
    bound = torch.maximum(x.abs() * 2.0**-4, scale[:, None] * 2.0**-10)
    assert torch.all(err <= bound * (1 + 1e-6))


def _grouped_case(device, dtype, counts=(5, 0, 17, 3, 0, 9, 1, 12), d_in=64, d_out=48):
    g = torch.Generator(device="cpu").manual_seed(1)
    n = sum(counts)
    x = torch.randn(n, d_in, generator=g).to(device, dtype).requires_grad_()
    w = (torch.randn(len(counts), d_out, d_in, generator=g) * 0.1).to(device, dtype).requires_grad_()
    offsets = torch.cumsum(torch.tensor(counts), 0).to(device=device, dtype=torch.int32)
    grad = torch.randn(n, d_out, generator=g).to(device, dtype)
    return x, w, offsets, grad, list(counts)


def _per_expert_reference(x, w, grad, counts):
    """The FP8 recipe written out expert by expert from quantize_rowwise_torch: y = Q(x) Q_I(W)ᵀ,
    dx = Q(dy) Q_O(W), dW = dyᵀ x unquantized."""
    xq = dequantize_rowwise(*quantize_rowwise_torch(x.detach()))
    gq = dequantize_rowwise(*quantize_rowwise_torch(grad))
    ys, dxs, dws = [], [], []
    for e, (x_e, xq_e, g_e, gq_e) in enumerate(zip(x.detach().split(counts), xq.split(counts), grad.split(counts),
                                                  gq.split(counts))):
        w_rows = dequantize_rowwise(*quantize_rowwise_torch(w.detach()[e]))  # scales per output channel
        w_cols = dequantize_rowwise(*quantize_rowwise_torch(w.detach()[e].t())).t()  # per input channel
        ys.append(xq_e @ w_rows.t())
        dxs.append(gq_e @ w_cols)
        dws.append(g_e.float().t() @ x_e.float())
    return torch.cat(ys), torch.cat(dxs), torch.stack(dws)


def test_fp8_grouped_linear_is_the_recipe_expert_by_expert_on_cpu():
    from payload.model.fp8_experts import fp8_grouped_linear

    x, w, offsets, grad, counts = _grouped_case("cpu", torch.float32)
    y = fp8_grouped_linear(x, w, offsets)
    dx, dw = torch.autograd.grad(y, [x, w], grad)
    y_ref, dx_ref, dw_ref = _per_expert_reference(x, w, grad, counts)
    for name, a, b in (("y", y, y_ref), ("dx", dx, dx_ref), ("dw", dw, dw_ref)):
        assert _rel(a, b) < 1e-6, name
    # and FP8 it is: about e4m3's rounding away from the exact product
    exact = torch.cat([x_e @ w.detach()[e].t() for e, x_e in enumerate(x.detach().split(counts))])
    assert 1e-3 < _rel(y, exact) < 0.1


def _block(precision, impl="grouped_mm", device="cpu", dtype=torch.float32):
    from payload.model import SparseMoeBlock

    torch.manual_seed(0)
    block = SparseMoeBlock(64, 32, 8, 2, True, experts_impl=impl, experts_precision=precision).to(device, dtype)
    with torch.no_grad():
        for p in block.parameters():
            p.normal_(0.0, 0.1)
    return block


def test_fp8_layer_close_to_fp32_layer_and_never_fused():
    x = torch.randn(1, 40, 64, requires_grad=True)
    grad = torch.randn(1, 40, 64)
    results = {}
    for precision in ("bf16", "fp8"):
        block = _block(precision, impl="auto")
        wrt = [x, block.experts.gate_up_proj, block.experts.down_proj, block.gate.weight]
        out = block(x)[0]
        results[precision] = (out, torch.autograd.grad(out, wrt, grad))
        assert not block.experts.use_fused(x[0])
    (out_ref, grads_ref), (out_fp8, grads_fp8) = results["bf16"], results["fp8"]
    # e4m3 keeps 3 mantissa bits: a few percent on random operands, through two GEMMs
    assert 1e-3 < _rel(out_fp8, out_ref) < 0.1
    for a, b in zip(grads_fp8, grads_ref):
        assert 1e-3 < _rel(a, b) < 0.15


def test_config_switch_is_validated_and_not_saved(tmp_path):
    from payload.model import Qwen3MoeForCausalLM, save_pretrained, tiny_config
    from spec.model_shape import ModelConfigError

    config = tiny_config(experts_precision="fp8")
    model = Qwen3MoeForCausalLM(config)
    assert all(block.experts.precision == "fp8" for block in model.moe_blocks)
    save_pretrained(model, tmp_path)
    assert "experts_precision" not in json.loads((tmp_path / "config.json").read_text())
    with pytest.raises(ModelConfigError, match=r"^experts_precision='fp16': must be one of 'bf16', 'fp8'$"):
        tiny_config(experts_precision="fp16")
    with pytest.raises(ModelConfigError, match="experts_impl must be 'auto' or 'grouped_mm', not 'fused'"):
        tiny_config(experts_precision="fp8", experts_impl="fused")
    with pytest.raises(ModelConfigError, match="moe_intermediate_size=40 must be a multiple of 16"):
        tiny_config(experts_precision="fp8", moe_intermediate_size=40)


def _sm90() -> bool:
    return torch.cuda.is_available() and torch.cuda.get_device_capability() >= (9, 0)


@pytest.mark.gpu
def test_triton_quantizer_bit_equal_to_torch_reference_on_gpu():
    mismatches = _quantizer_mismatches("cuda", torch.bfloat16)
    assert all(c["scales"] == 0 and c["codes"] == 0 for c in mismatches.values()), mismatches


@pytest.mark.gpu
@pytest.mark.skipif(not _sm90(), reason="torch._scaled_grouped_mm needs sm90+")
@pytest.mark.parametrize("shape", [(64, 48), (2048, 1536), (768, 2048)])
def test_scaled_grouped_mm_matches_emulation_on_gpu(shape):
    from payload.model.fp8_experts import _Fp8GroupedLinear, supported

    d_in, d_out = shape
    counts = (130, 0, 517, 3, 0, 64, 1, 200)  # empty experts and counts that are not multiples of 16
    x, w, offsets, grad, _ = _grouped_case("cuda", torch.bfloat16, counts, d_in, d_out)
    assert supported(x, w)
    outs = {}
    for emulate in (False, True):
        y = _Fp8GroupedLinear.apply(x, w, offsets, emulate)
        outs[emulate] = (y, *torch.autograd.grad(y, [x, w], grad))
    for name, a, b in zip(("y", "dx", "dw"), outs[False], outs[True]):
        # the same quantized operands: fp32 accumulation order and the bf16 output rounding only
        assert _rel(a, b) < 5e-3, (name, _rel(a, b))


@pytest.mark.gpu
@pytest.mark.skipif(not _sm90(), reason="torch._scaled_grouped_mm needs sm90+")
def test_fp8_layer_runs_on_gpu_close_to_bf16():
    x = torch.randn(1, 512, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    grad = torch.randn_like(x)
    results = {}
    for precision in ("bf16", "fp8"):
        block = _block(precision, device="cuda", dtype=torch.bfloat16)
        wrt = [x, block.experts.gate_up_proj, block.experts.down_proj, block.gate.weight]
        out = block(x)[0]
        results[precision] = (out, *torch.autograd.grad(out, wrt, grad))
    for a, b in zip(results["fp8"], results["bf16"]):
        assert _rel(a, b) < 0.15


if __name__ == "__main__":
    _child()
