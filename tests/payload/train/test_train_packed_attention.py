"""Packed attention (payload.model.packed): every sample of a packed row attends exactly as it
would alone. On CUDA through torch's FlashAttention varlen kernel, compiled and not; on the CPU
through SDPA with the boolean mask."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from payload.model import compute_logprobs
from payload.model.packed import PackedSequences
from payload.train.batch import pack
from train_cases import batch, tiny_model

LENGTHS = [5, 130, 1, 77, 300]  # one-token samples and lengths off FlashAttention's 128-row blocks


def _qkv(device, dtype, lengths=LENGTHS, heads=8, kv_heads=2, dim=64, seed=0):
    g = torch.Generator().manual_seed(seed)
    t = sum(lengths)
    q, k, v = (torch.randn(1, h, t, dim, generator=g).to(device, dtype).requires_grad_()
               for h in (heads, kv_heads, kv_heads))
    cu = torch.tensor(np.concatenate([[0], np.cumsum(lengths)]), dtype=torch.int32)
    return q, k, v, cu


def _alone(q, k, v, cu):
    """Each sample through plain causal SDPA on its own slice, concatenated."""
    outs = [F.scaled_dot_product_attention(q[:, :, a:b], k[:, :, a:b], v[:, :, a:b], is_causal=True, enable_gqa=True)
            for a, b in zip(cu[:-1].tolist(), cu[1:].tolist())]
    return torch.cat(outs, dim=2)


def _grads(out, upstream, *inputs):
    return torch.autograd.grad(out, inputs, upstream)


def test_cpu_packed_attention_equals_each_sample_alone():
    q, k, v, cu = _qkv("cpu", torch.float32)
    packed = PackedSequences.of(cu, q.shape[2], torch.device("cpu"))
    assert packed.max_len == max(LENGTHS)
    out, expected = packed.attend(q, k, v), _alone(q, k, v, cu)
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-5)
    upstream = torch.randn_like(out)
    for ours, ref in zip(_grads(out, upstream, q, k, v), _grads(expected, upstream, q, k, v)):
        torch.testing.assert_close(ours, ref, rtol=1e-4, atol=1e-5)
    assert packed.positions(q.shape[2])[cu[1:-1].long()].tolist() == [0] * (len(LENGTHS) - 1)


@pytest.mark.parametrize(
    "cu, message",
    [([0, 3, 3, 10], "c0 < c1"), ([1, 5, 10], "c0 < c1"), ([0, 4, 9], "= 10"), ([0], "c0 < c1")],
)
def test_bad_cu_seqlens_are_named(cu, message):
    with pytest.raises(ValueError, match=f"cu_seqlens .*{message}"):
        PackedSequences.of(torch.tensor(cu), 10, torch.device("cpu"))


@pytest.mark.gpu
@pytest.mark.parametrize("compiled", [False, True])
def test_cuda_varlen_attention_equals_each_sample_alone(compiled):
    """bf16 FlashAttention varlen against flash SDPA per sample, forward and all three input
    gradients (grouped-query: 8 query heads over 2 KV heads). Compiled, a second row with a
    different longest sample and sample count must run through the same compiled function."""
    device = torch.device("cuda")
    attend = lambda p, q, k, v: p.attend(q, k, v)  # noqa: E731
    if compiled:
        attend = torch.compile(attend)
    for lengths in (LENGTHS, [64, 1, 257], [40] * 7):
        q, k, v, cu = _qkv(device, torch.bfloat16, lengths)
        packed = PackedSequences.of(cu, q.shape[2], device)
        assert packed.mask_1TT is None  # the kernel, not a mask
        out, expected = attend(packed, q, k, v), _alone(q, k, v, cu.to(device))
        torch.testing.assert_close(out, expected, rtol=2e-2, atol=2e-2)
        upstream = torch.randn_like(out)
        for ours, ref in zip(_grads(out, upstream, q, k, v), _grads(expected, upstream, q, k, v)):
            assert (ours.float() - ref.float()).norm() / ref.float().norm() < 1e-2


@pytest.mark.gpu
def test_cuda_packed_model_logprobs_equal_each_sample_run_alone():
    model = tiny_model().cuda().to(torch.bfloat16).eval()
    samples = batch(0, prompts=3)
    mb = pack(samples)
    with torch.no_grad():
        packed, _ = compute_logprobs(model, mb.input_ids_BT.cuda(), cu_seqlens=mb.cu_seqlens)
        unpacked = packed[0][mb.unpack_BT1.cuda()]
        for i, s in enumerate(samples):
            ids = torch.from_numpy(np.concatenate([s.prompt_ids, s.response_ids])).long()[None].cuda()
            alone, _ = compute_logprobs(model, ids)
            torch.testing.assert_close(unpacked[i, : s.num_tokens - 1], alone[0], rtol=0.05, atol=0.05)
