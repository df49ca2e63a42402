"""The chunked LM-head logprob (payload.model.logprobs) against the plain fp32 formula:
values and gradients, across chunk boundaries, with a temperature, in bf16."""

from __future__ import annotations

import pytest
import torch

from payload.model.logprobs import linear_logprobs


def _reference(h, w, targets, temperature):
    logits = (h @ w.t()).float() / temperature
    return torch.log_softmax(logits, dim=-1).gather(1, targets[:, None]).squeeze(1)


def _case(n=37, d=16, v=53, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    h = torch.randn(n, d, generator=g).to(dtype).requires_grad_()
    w = (torch.randn(v, d, generator=g) * 0.3).to(dtype).requires_grad_()
    targets = torch.randint(0, v, (n,), generator=g)
    upstream = torch.randn(n, generator=g)
    return h, w, targets, upstream


@pytest.mark.parametrize("keep_logits", [False, True])
@pytest.mark.parametrize("chunk_rows", [1, 8, 37, 4096])
@pytest.mark.parametrize("temperature", [1.0, 0.7])
def test_values_and_gradients_equal_the_unfused_log_softmax(chunk_rows, temperature, keep_logits):
    h, w, targets, upstream = _case()
    fused = linear_logprobs(h, w, targets, temperature, chunk_rows=chunk_rows, keep_logits=keep_logits)
    (fused * upstream).sum().backward()
    grads = h.grad.clone(), w.grad.clone()
    h.grad = w.grad = None
    expected = _reference(h, w, targets, temperature)
    (expected * upstream).sum().backward()
    assert fused.dtype == torch.float32
    torch.testing.assert_close(fused, expected, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(grads[0], h.grad, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(grads[1], w.grad, atol=1e-5, rtol=1e-5)


def test_bf16_inputs_give_fp32_logprobs_close_to_the_fp32_formula():
    h, w, targets, upstream = _case(dtype=torch.bfloat16)
    fused = linear_logprobs(h, w, targets, chunk_rows=10)
    (fused * upstream).sum().backward()
    assert fused.dtype == torch.float32 and h.grad.dtype == torch.bfloat16 and w.grad.dtype == torch.bfloat16
    expected = _reference(h.detach().float(), w.detach().float(), targets, 1.0)
    torch.testing.assert_close(fused, expected, atol=2e-2, rtol=2e-2)


def test_only_the_needed_gradient_is_computed():
    h, w, targets, upstream = _case()
    w.requires_grad_(False)
    (linear_logprobs(h, w, targets, chunk_rows=8) * upstream).sum().backward()
    assert h.grad is not None and w.grad is None


def _peak_cpu_bytes(fn) -> int:
    """The most CPU memory torch held at once while `fn` ran (the profiler's allocation events)."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    live = peak = 0
    for _, nbytes in sorted((e.start_ns(), e.nbytes()) for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"):
        live += nbytes
        peak = max(peak, live)
    return peak


def test_logits_are_kept_only_when_a_backward_can_follow():
    """keep_logits holds every chunk's logits for backward; scoring without grad (the old
    policy's and the reference's logprobs) must hold one chunk, as the recomputing path does."""
    h, w, targets, _ = _case(n=512, d=32, v=1000)
    run = lambda keep: lambda: linear_logprobs(h, w, targets, chunk_rows=64, keep_logits=keep)  # noqa: E731
    with torch.no_grad():
        scoring_kept, scoring = _peak_cpu_bytes(run(True)), _peak_cpu_bytes(run(False))
    training_kept, training = _peak_cpu_bytes(run(True)), _peak_cpu_bytes(run(False))
    assert scoring_kept == scoring == training
    assert training_kept - training >= (512 - 64) * 1000 * 4  # every chunk but one, fp32 on CPU


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"targets": torch.zeros(5, dtype=torch.long)}, "targets \\[N\\]"),
        ({"temperature": 0.0}, "temperature must be > 0"),
    ],
)
def test_bad_arguments_are_named(kwargs, message):
    h, w, targets, _ = _case()
    args = {"targets": targets, "temperature": 1.0} | kwargs
    with pytest.raises(ValueError, match=message):
        linear_logprobs(h, w, args["targets"], args["temperature"])


@pytest.mark.gpu  # the compiled chunk kernels and the fp32-output weight-gradient GEMM run on CUDA only
@pytest.mark.parametrize("keep_logits", [False, True])
def test_cuda_compiled_chunks_equal_the_fp32_formula(keep_logits):
    h, w, targets, upstream = (t.cuda() for t in _case(n=300, d=64, v=1000, dtype=torch.bfloat16))
    h, w = h.detach().requires_grad_(), w.detach().requires_grad_()
    fused = linear_logprobs(h, w, targets, temperature=0.7, chunk_rows=128, keep_logits=keep_logits)
    (fused * upstream).sum().backward()
    h32, w32 = h.detach().float().requires_grad_(), w.detach().float().requires_grad_()
    expected = _reference(h32, w32, targets, 0.7)
    (expected * upstream).sum().backward()
    torch.testing.assert_close(fused, expected, atol=2e-2, rtol=2e-2)
    # bf16 gradient GEMMs: a few elements differ by a bf16 ulp of the largest; compare norms.
    for ours, reference in ((h.grad, h32.grad), (w.grad, w32.grad)):
        assert (ours.float() - reference).norm() / reference.norm() < 1e-2
