"""The CUDA block quantizer (payload/sync/fp8_triton.py) against the torch one it replaces on
GPUs: bit-equal FP8 bytes and scales, on expert stacks, odd shapes and strided views."""

import pytest
import torch

from payload.sync import fp8

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("shape", [(256, 384), (200, 130), (3, 136, 260), (8, 1536, 2048)])
def test_triton_blocks_are_bit_equal_to_the_torch_reference(shape):
    torch.manual_seed(0)
    w = (torch.randn(shape, device="cuda") * torch.logspace(-3, 1, shape[-1], device="cuda")).to(torch.bfloat16)
    w[..., :128, :128] = 0  # an all-zero block: scale 1
    q, scale_inv = fp8.quantize_block(w)
    q_ref, scale_ref = fp8._quantize_block_torch(w)
    assert q.shape == q_ref.shape and scale_inv.shape == scale_ref.shape
    assert torch.equal(q.view(torch.uint8), q_ref.view(torch.uint8))
    assert torch.equal(scale_inv, scale_ref)


def test_strided_views_are_read_where_they_lie():
    torch.manual_seed(0)
    stacked = torch.randn(4, 2 * 192, 256, device="cuda", dtype=torch.bfloat16)
    up = stacked[:, 192:]  # the experts' up halves: a strided [E, F, D] view
    q, scale_inv = fp8.quantize_block(up)
    q_ref, scale_ref = fp8._quantize_block_torch(up.contiguous())
    assert torch.equal(q.view(torch.uint8), q_ref.view(torch.uint8)) and torch.equal(scale_inv, scale_ref)
