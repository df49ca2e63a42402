"""Aggregations across data-parallel ranks: two real gloo processes each hold half the batch;
their loss shares add up to the single-process loss and their gradients equal its gradient."""

import pytest
import torch
import torch.distributed as dist

from payload.train.loss import AGGREGATIONS, grpo_loss, loss_denominator
from test_train_loss import make_batch


def _batch():
    logp, old, adv, mask, ref, rollout = make_batch(seed=11, B=8, T=6)
    return torch.nan_to_num(logp), old, adv, mask, ref, rollout


def _share(rank, world_size, aggregation):
    logp, old, adv, mask, ref, rollout = _batch()
    # Unequal shards, split into two micro-batches on rank 0: the denominator must not care.
    rows = [slice(0, 3), slice(3, 8)][rank]
    micro = [slice(0, 1), slice(1, 3)] if rank == 0 else [slice(0, 5)]
    logp = logp[rows].clone().requires_grad_()
    denominator = loss_denominator([mask[rows][m] for m in micro], aggregation, group=dist.group.WORLD)
    total = 0.0
    for m in micro:
        loss, _ = grpo_loss(logp[m], old[rows][m], adv[rows][m], mask[rows][m], ref_logprobs_BT=ref[rows][m],
                            kl_coef=0.05, rollout_logprobs_BT=rollout[rows][m], tis_cap=2.0, dual_clip=3.0,
                            aggregation=aggregation, denominator=denominator)
        loss.backward()
        total += loss.item()
    return total, logp.grad


@pytest.mark.parametrize("aggregation", AGGREGATIONS)
def test_shares_across_ranks_equal_the_global_loss(gloo_pool, aggregation):
    (loss0, grad0), (loss1, grad1) = gloo_pool.run(_share, aggregation)
    logp, old, adv, mask, ref, rollout = _batch()
    logp = logp.clone().requires_grad_()
    whole, _ = grpo_loss(logp, old, adv, mask, ref_logprobs_BT=ref, kl_coef=0.05, rollout_logprobs_BT=rollout,
                         tis_cap=2.0, dual_clip=3.0, aggregation=aggregation)
    whole.backward()
    assert loss0 + loss1 == pytest.approx(whole.item(), rel=1e-12)
    torch.testing.assert_close(torch.cat([grad0, grad1]), logp.grad, rtol=1e-12, atol=1e-15)
