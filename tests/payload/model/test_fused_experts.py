"""The fused-permutation experts (payload/model/fused_experts.py, grouped_gemm_triton.py) against
the layer they replace: the same SparseMoeBlock with torch's grouped GEMM on permuted rows.

On CPU the Triton kernels run under Triton's own interpreter (TRITON_INTERPRET=1, fp32: the
interpreter's bf16 is not faithful), in a child process because the variable must be set before
triton.jit wraps the kernels; on an H200 the compiled kernels run in bf16.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[3]


def _rel(a, b):
    return ((a.float() - b.float()).norm() / b.float().norm().clamp(min=1e-30)).item()


def _block(device, dtype, impl, hidden=64, inter=32, experts=8, top_k=2):
    from payload.model import SparseMoeBlock

    torch.manual_seed(0)
    block = SparseMoeBlock(hidden, inter, experts, top_k, True, experts_impl=impl).to(device, dtype)
    with torch.no_grad():
        for p in block.parameters():
            p.normal_(0.0, 0.1)
    block.fold_routing_weights = True
    return block


def _layer_errors(device, dtype, tokens, replay_idx=None, hidden=64, inter=32, experts=8, top_k=2):
    """Relative error of the fused layer's output and gradients (input, router, both expert
    weights) against the unfused layer on the same weights and inputs."""
    fused = _block(device, dtype, "fused", hidden, inter, experts, top_k)
    plain = _block(device, dtype, "grouped_mm", hidden, inter, experts, top_k)
    plain.fold_routing_weights = True
    torch.manual_seed(1)
    x = torch.randn(1, tokens, hidden, device=device, dtype=dtype, requires_grad=True)
    grad = torch.randn_like(x)
    errors = {}
    outs = {}
    for name, block in (("fused", fused), ("plain", plain)):
        out, idx, _ = block(x, replay_idx)
        wrt = [x, block.gate.weight, block.experts.gate_up_proj, block.experts.down_proj]
        outs[name] = (out, idx, torch.autograd.grad(out, wrt, grad))
    errors["out"] = _rel(outs["fused"][0], outs["plain"][0])
    for i, name in enumerate(("grad_x", "grad_router", "grad_gate_up", "grad_down")):
        errors[name] = _rel(outs["fused"][2][i], outs["plain"][2][i])
    errors["same_routing"] = bool(torch.equal(outs["fused"][1], outs["plain"][1]))
    return errors


def _kernel_errors(device, dtype):
    """grouped_mm with gathered A, scattered C, and neither, against per-expert loops, with
    uneven groups and an empty one."""
    from payload.model import grouped_gemm_triton as gg

    torch.manual_seed(3)
    counts = torch.tensor([37, 0, 5, 80, 1, 21], dtype=torch.int32, device=device)
    group_end = torch.cumsum(counts, 0, dtype=torch.int32)
    bounds = list(zip([0] + group_end[:-1].tolist(), group_end.tolist()))
    n, k, cols, src = int(counts.sum()), 64, 128, 50
    a = torch.randn(src, k, device=device, dtype=dtype)
    rows = torch.randint(0, src, (n,), device=device)
    slots = torch.randperm(n, device=device)
    w_EOI = torch.randn(len(bounds), cols, k, device=device, dtype=dtype)
    errors = {}

    gathered = gg.grouped_mm(a, w_EOI.transpose(1, 2), group_end, a_rows_N=rows)
    want = torch.cat([a[rows[s:e]].float() @ w_EOI[i].float().T for i, (s, e) in enumerate(bounds)])
    errors["gather_a"] = _rel(gathered, want)

    rows_a = torch.randn(n, k, device=device, dtype=dtype)
    scattered = gg.grouped_mm(rows_a, w_EOI.transpose(1, 2), group_end, c_rows_N=slots)
    want = torch.empty(n, cols, device=device)
    want[slots] = torch.cat([rows_a[s:e].float() @ w_EOI[i].float().T for i, (s, e) in enumerate(bounds)])
    errors["scatter_c"] = _rel(scattered, want)

    rows_b = torch.randn(n, cols, device=device, dtype=dtype)  # untransposed weights: rows @ w[e]
    plain = gg.grouped_mm(rows_b, w_EOI, group_end)
    want = torch.cat([rows_b[s:e].float() @ w_EOI[i].float() for i, (s, e) in enumerate(bounds)])
    errors["plain"] = _rel(plain, want)

    # The same three with the weights read through a TMA descriptor: K-contiguous (a transposed
    # view, x @ W^T) and N-contiguous (rows @ w[e]), n_cols past a block's end read as zeros.
    wide = torch.randn(len(bounds), 72, k, device=device, dtype=dtype)  # 72 columns: a partial block
    for name, result in (
        ("gather_a", lambda **tma: gg.grouped_mm(a, w_EOI.transpose(1, 2), group_end, a_rows_N=rows, **tma)),
        ("scatter_c", lambda **tma: gg.grouped_mm(rows_a, w_EOI.transpose(1, 2), group_end, c_rows_N=slots, **tma)),
        ("plain", lambda **tma: gg.grouped_mm(rows_b, w_EOI, group_end, **tma)),
        ("partial_block", lambda **tma: gg.grouped_mm(rows_a, wide.transpose(1, 2), group_end, **tma)),
    ):
        errors[f"{name}_weights_via_tma"] = _rel(result(weights_via_tma=True), result())
    with pytest.raises(ValueError, match="weights_via_tma needs a contiguous weight tensor"):
        gg.grouped_mm(rows_a, w_EOI[:, ::2].transpose(1, 2), group_end, weights_via_tma=True)

    # Each token's K rows summed, read through an index (the local combine) or contiguous.
    from payload.ep.sum_rows_triton import sum_rows

    y = torch.randn(3 * 40, 96, device=device, dtype=dtype)
    perm = torch.randperm(3 * 40, device=device)
    errors["sum_rows_gather"] = _rel(sum_rows(y, perm, 3), y[perm].float().view(40, 3, 96).sum(1))
    errors["sum_rows_contiguous"] = _rel(sum_rows(y, None, 3), y.float().view(40, 3, 96).sum(1))
    # Empty slots (-1: DeepEP's slots for experts on other ranks) add nothing.
    holes = perm.clone()
    holes[::4] = -1
    padded = torch.cat([y, torch.zeros(1, 96, device=device, dtype=dtype)])
    want = padded[torch.where(holes >= 0, holes, 3 * 40)].float().view(40, 3, 96).sum(1)
    errors["sum_rows_empty_slots"] = _rel(sum_rows(y, holes, 3), want)
    return errors


def _fsdp_errors() -> dict:
    """The fused layer under FSDP2 (one gloo rank, experts sharded on their own as the trainer
    does): the experts' parameters must be gathered by FSDP's hooks before the kernels read them."""
    import torch.distributed as dist
    from torch.distributed.fsdp import fully_shard

    from payload.common.ports import free_port

    port = free_port()
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
    try:
        sharded = _block("cpu", torch.float32, "fused")
        plain = _block("cpu", torch.float32, "grouped_mm")
        fully_shard(sharded.experts)
        fully_shard(sharded)
        x = torch.randn(1, 40, 64)
        out_sharded, out_plain = sharded(x)[0], plain(x)[0]
        out_sharded.square().sum().backward()
        out_plain.square().sum().backward()
        grad = sharded.experts.gate_up_proj.grad.full_tensor()
        return {"out": _rel(out_sharded, out_plain), "grad_gate_up": _rel(grad, plain.experts.gate_up_proj.grad)}
    finally:
        dist.destroy_process_group()


def _interpreter_run() -> dict:
    """In the child: every case, fp32, kernels interpreted on CPU; returns the errors."""
    from payload.model import fused_experts

    calls = []
    apply = fused_experts._FusedLocalExperts.apply
    fused_experts._FusedLocalExperts.apply = lambda *args: calls.append(1) or apply(*args)
    results = {"kernels": _kernel_errors("cpu", torch.float32)}
    results["layer"] = _layer_errors("cpu", torch.float32, tokens=40)
    # Routing that leaves experts 5..7 without a token and expert 0 with most of them.
    replay = torch.randint(0, 5, (1, 40, 2))
    replay[..., 0] = 0
    replay[..., 1] = torch.randint(1, 5, (1, 40))
    results["layer_empty_experts"] = _layer_errors("cpu", torch.float32, tokens=40, replay_idx=replay)
    block = _block("cpu", torch.float32, "fused")
    x = torch.zeros(1, 0, 64, requires_grad=True)
    out = block(x)[0]
    out.sum().backward()
    results["no_tokens"] = list(out.shape) == [1, 0, 64] and list(x.grad.shape) == [1, 0, 64]
    results["fsdp"] = _fsdp_errors()
    results["fused_calls"] = len(calls)
    block = _block("cpu", torch.float32, "auto")
    x = torch.zeros(4, 64)
    results["supported"] = fused_experts.supported(x, block.experts.gate_up_proj, block.experts.down_proj)
    results["supported_odd_width"] = fused_experts.supported(x, torch.zeros(8, 2 * 24, 64), torch.zeros(8, 64, 24))
    return results


@pytest.fixture(scope="module")
def interpreted():
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, __file__], env=env, capture_output=True, text=True, timeout=600, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_kernels_match_per_expert_loops_in_interpreter(interpreted):
    errors = interpreted["kernels"]
    for case, value in errors.items():
        assert value < 1e-6, (case, value)


@pytest.mark.parametrize("case", ["layer", "layer_empty_experts", "fsdp"])
def test_fused_layer_matches_unfused_layer_in_interpreter(interpreted, case):
    errors = interpreted[case]
    assert errors.pop("same_routing", True)
    assert interpreted["fused_calls"] == 4  # once per case in the fused block only, and the empty batch
    for name, value in errors.items():
        assert value < 1e-5, (case, name, value)


def test_fused_layer_takes_an_empty_batch_in_interpreter(interpreted):
    assert interpreted["no_tokens"]


def test_fused_path_needs_block_multiple_widths_in_interpreter(interpreted):
    assert interpreted["supported"] and not interpreted["supported_odd_width"]


def test_fused_path_is_not_taken_on_cpu_without_the_interpreter():
    from payload.model import fused_experts

    block = _block("cpu", torch.float32, "auto")
    x = torch.zeros(4, 64)
    assert not fused_experts.supported(x, block.experts.gate_up_proj, block.experts.down_proj)
    assert not block.experts.use_fused(x)


def test_fused_impl_is_a_valid_config_value():
    from spec.model_shape import ModelConfigError, Qwen3MoeConfig

    assert Qwen3MoeConfig().replace(experts_impl="fused").experts_impl == "fused"
    with pytest.raises(ModelConfigError, match="'auto', 'fused', 'grouped_mm', 'loop'"):
        Qwen3MoeConfig().replace(experts_impl="cutlass")


@pytest.mark.gpu
def test_kernels_match_per_expert_loops_on_gpu():
    errors = _kernel_errors("cuda", torch.bfloat16)
    for case, value in errors.items():
        assert value < 1e-2, (case, value)


@pytest.mark.gpu
@pytest.mark.parametrize("tokens,hidden,inter,experts,top_k", [(1000, 256, 128, 16, 4), (4096, 2048, 768, 128, 8)])
def test_fused_layer_matches_unfused_layer_on_gpu(tokens, hidden, inter, experts, top_k):
    errors = _layer_errors("cuda", torch.bfloat16, tokens, None, hidden, inter, experts, top_k)
    assert errors.pop("same_routing")
    for name, value in errors.items():
        assert value < 1e-2, (name, value)  # bf16: GEMM summation order only


def test_quack_weight_gradients_are_taken_only_on_16_bit_cuda_and_gather_one_operand():
    from payload.model import wgrad_quack

    x = torch.zeros(4, 8)
    assert not wgrad_quack.available(x) and not wgrad_quack.available(x.bfloat16())
    assert wgrad_quack.backend(x) == "torch grouped_mm (CUTLASS)"
    group_end = torch.tensor([4], dtype=torch.int32)
    rows = torch.arange(4)
    for gathered in ({}, {"g_rows_N": rows, "x_rows_N": rows}):
        with pytest.raises(ValueError, match="exactly one operand"):
            wgrad_quack.wgrad(x, x, group_end, **gathered)


@pytest.mark.gpu
@pytest.mark.parametrize("gathered", ["x", "g"])
def test_quack_weight_gradients_equal_torch_grouped_gemm_on_gathered_copies(gathered):
    # QuACK's varlen-K GEMM with the gather in its loads against torch's CUTLASS grouped GEMM on
    # copies, both orientations of the fused layer's backward, with an empty expert: bit-equal
    # (both accumulate each expert's rows in fp32 in order).
    import torch.nn.functional as F

    from payload.model import wgrad_quack

    x = torch.randn(700, 512, device="cuda", dtype=torch.bfloat16)
    if not wgrad_quack.available(x):
        pytest.skip("needs quack-kernels (the GPU image's) on a Hopper GPU")
    counts = torch.tensor([300, 0, 1, 250, 77, 0, 512, 60], device="cuda")
    group_end = torch.cumsum(counts, 0, dtype=torch.int32)
    rows = torch.randint(0, 700, (int(counts.sum()),), device="cuda")
    expert_ordered = torch.randn(int(counts.sum()), 384, device="cuda", dtype=torch.bfloat16)
    if gathered == "x":  # gate/up: dW_e = grad_h_e^T x[token]_e
        got = wgrad_quack.wgrad(expert_ordered, x, group_end, x_rows_N=rows)
        want = F.grouped_mm(expert_ordered.t(), x.index_select(0, rows), offs=group_end)
    else:  # down: dW_e = grad[token]_e^T a_e
        got = wgrad_quack.wgrad(x, expert_ordered, group_end, g_rows_N=rows)
        want = F.grouped_mm(x.index_select(0, rows).t(), expert_ordered, offs=group_end)
    assert got.shape == want.shape and got.is_contiguous()
    assert torch.equal(got[1], torch.zeros_like(got[1])) and torch.equal(got[5], torch.zeros_like(got[5]))
    assert torch.equal(got, want), _rel(got, want)


@pytest.mark.gpu
def test_auto_takes_the_fused_path_up_to_its_rows_per_expert():
    block = _block("cuda", torch.bfloat16, "auto", hidden=256, inter=128, experts=16, top_k=4)
    x = torch.zeros(8, 256, device="cuda", dtype=torch.bfloat16)
    limit = block.experts.FUSED_MAX_ROWS_PER_EXPERT * 16
    assert block.experts.use_fused(x, limit) and not block.experts.use_fused(x, limit + 1)
    block.experts.impl = "grouped_mm"
    assert not block.experts.use_fused(x, 16)


@pytest.mark.gpu
def test_fused_layer_runs_under_torch_compile():
    block = _block("cuda", torch.bfloat16, "auto", hidden=256, inter=128, experts=16, top_k=4)
    x = torch.randn(1, 512, 256, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    eager = block(x)[0]
    compiled = torch.compile(block)(x)[0]
    assert block.experts.use_fused(x[0])
    assert _rel(compiled, eager) < 1e-2
    compiled.sum().backward()
    assert x.grad is not None and block.experts.gate_up_proj.grad is not None


if __name__ == "__main__":
    print(json.dumps(_interpreter_run()))
