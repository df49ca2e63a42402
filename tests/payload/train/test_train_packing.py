"""Packed micro-batches: the same training step as right-padded ones, attention inside each
sample only, positions restarting per sample, no pad token anywhere.

SGD at lr 1 makes the weights after a step the weights before minus the clipped gradient, so
equal weights mean equal gradients (fp32 reduction-order noise, atol 1e-6)."""

import numpy as np
import pytest
import torch

from payload.model import compute_logprobs, iter_hf_tensors
from payload.train.batch import micro_batches, pack, pack_micro_batches
from payload.train.step import LossConfig, train_step
from train_cases import batch, tiny_model

CONFIG = LossConfig(kl_coef=0.0, tis_cap=2.0, max_grad_norm=0.05)


def with_routes(samples, seed=0):
    rng = np.random.default_rng(seed)
    for s in samples:  # tiny model: 2 MoE layers, top-2 of 8 experts
        s.routed_experts = np.stack([rng.permutation(8)[:2] for _ in range(2 * (s.num_tokens - 1))]).reshape(
            s.num_tokens - 1, 2, 2).astype(np.uint8)
    return samples


def test_packed_logprobs_equal_each_sample_run_alone():
    model = tiny_model().eval()
    samples = batch(0, prompts=2)
    mb = pack(samples)
    assert mb.input_ids_BT.shape == (1, sum(s.num_tokens for s in samples))  # no padding at all
    with torch.no_grad():
        packed, _ = compute_logprobs(model, mb.input_ids_BT, cu_seqlens=mb.cu_seqlens, position_ids=mb.position_ids_BT)
        unpacked = packed[0][mb.unpack_BT1]
        for i, s in enumerate(samples):
            ids = torch.from_numpy(np.concatenate([s.prompt_ids, s.response_ids])).long()[None]
            alone, _ = compute_logprobs(model, ids)
            torch.testing.assert_close(unpacked[i, : s.num_tokens - 1], alone[0], rtol=1e-5, atol=1e-5)
    assert mb.position_ids_BT[0, : samples[0].num_tokens].tolist() == list(range(samples[0].num_tokens))
    assert mb.position_ids_BT[0, samples[0].num_tokens] == 0  # the second sample starts again at 0


@pytest.mark.parametrize("routes", [False, True])
def test_packed_step_equals_padded_step(routes):
    models, histories = [], []
    for packed in (False, True):
        model = tiny_model()
        optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
        history = []
        for step in range(2):
            samples = batch(step, prompts=3)
            if routes:
                samples = with_routes(samples, step)
            micro = pack_micro_batches(samples, 2) if packed else micro_batches(samples, 4, 3)
            assert all(mb.packed == packed for mb in micro)
            metrics = train_step(model, optimizer, micro, CONFIG)
            history.append((metrics["loss"], metrics["grad_norm"]))
        models.append(dict(iter_hf_tensors(model)))
        histories.append(history)
    padded, packed = histories
    for a, b in zip(padded, packed):
        assert a == pytest.approx(b, rel=1e-5)
    assert all(norm > CONFIG.max_grad_norm for _, norm in padded)
    for name, tensor in models[0].items():
        torch.testing.assert_close(models[1][name], tensor, rtol=1e-5, atol=1e-6, msg=name)


def test_pack_micro_batches_balances_tokens_and_keeps_every_sample():
    samples = batch(0, prompts=8)
    micro = pack_micro_batches(samples, 4)
    tokens = [mb.num_tokens for mb in micro]
    assert sum(tokens) == sum(s.num_tokens for s in samples)
    assert max(tokens) - min(tokens) <= max(s.num_tokens for s in samples)
    assert sum(mb.advantages_B.numel() for mb in micro) == len(samples)
    assert all(mb.input_ids_BT.dtype == torch.int32 for mb in micro)
