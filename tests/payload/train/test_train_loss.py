"""grpo_loss and group_advantages against a float64 reference written token by token from the
published formulas (PPO clip, DAPO clip-higher, dual clip, k3 KL, the off-policy corrections TIS,
sequence mask and IcePop, the four aggregations)."""

import itertools
import math

import pytest
import torch

from payload.train.advantages import group_advantages, informative_groups
from payload.train.loss import AGGREGATIONS, grpo_loss, loss_denominator


def reference_loss(logp, old, adv, mask, *, clip_low, clip_high, dual_clip, ref, kl_coef, rollout, tis_cap,
                   aggregation, max_tokens, correction="tis", correction_low=0.5, correction_high=5.0):
    """One Python float at a time, float64, no vectorisation shared with the code under test."""
    B, T = len(logp), len(logp[0])
    token_loss = [[0.0] * T for _ in range(B)]
    for b in range(B):
        a = adv[b]
        # Sequence mask: the geometric mean of the sequence's token ratios old/rollout, in [low, high].
        tokens = [t for t in range(T) if mask[b][t]]
        seq_ratio = math.prod(math.exp(old[b][t] - rollout[b][t]) for t in tokens) ** (1 / max(len(tokens), 1))
        seq_kept = correction_low <= seq_ratio <= correction_high
        for t in range(T):
            if not mask[b][t]:
                continue
            ratio = math.exp(logp[b][t] - old[b][t])
            clipped = min(max(ratio, 1 - clip_low), 1 + clip_high)
            pg = -min(ratio * a, clipped * a)
            if dual_clip is not None and a < 0:
                pg = min(pg, -dual_clip * a)
            k = math.exp(old[b][t] - rollout[b][t])
            if correction == "icepop":  # M(k) = k inside [α, β], 0 outside
                pg *= k if correction_low <= k <= correction_high else 0.0
            else:
                if tis_cap is not None or correction == "sequence_mask":
                    pg *= k if tis_cap is None else min(k, tis_cap)
                if correction == "sequence_mask" and not seq_kept:
                    pg *= 0.0
            if ref is not None and kl_coef > 0:
                d = ref[b][t] - logp[b][t]
                pg += kl_coef * (math.exp(d) - d - 1)
            token_loss[b][t] = pg
    lengths = [sum(1 for t in range(T) if mask[b][t]) for b in range(B)]
    sequences = [b for b in range(B) if lengths[b] > 0]
    if aggregation == "token-mean":
        return sum(map(sum, token_loss)) / sum(lengths)
    if aggregation == "seq-mean-token-mean":
        return sum(sum(token_loss[b]) / lengths[b] for b in sequences) / len(sequences)
    if aggregation == "seq-mean-token-sum":
        return sum(sum(token_loss[b]) for b in sequences) / len(sequences)
    assert aggregation == "seq-mean-token-sum-norm"
    return sum(sum(token_loss[b]) / max_tokens for b in sequences) / len(sequences)


def make_batch(seed, B=6, T=7):
    g = torch.Generator().manual_seed(seed)
    old = -torch.rand(B, T, generator=g, dtype=torch.float64) * 3
    # Log-ratios up to ±0.6 so that both clip edges and the dual clip are exercised.
    logp = old + (torch.rand(B, T, generator=g, dtype=torch.float64) - 0.5) * 1.2
    rollout = old + (torch.rand(B, T, generator=g, dtype=torch.float64) - 0.5) * 2.0
    ref = old + (torch.rand(B, T, generator=g, dtype=torch.float64) - 0.5) * 0.8
    adv = torch.randn(B, generator=g, dtype=torch.float64)
    lengths = torch.randint(1, T + 1, (B,), generator=g)
    lengths[1] = 0  # a padding row: a micro-batch filled up with an empty sequence
    mask = torch.arange(T)[None, :] < lengths[:, None]
    # Padding positions hold garbage the loss must ignore, even non-finite values.
    logp = torch.where(mask, logp, torch.full_like(logp, float("nan")))
    return logp, old, adv, mask, ref, rollout


OPTIONS = [
    dict(clip_low=0.2, clip_high=0.2, dual_clip=None, kl_coef=0.0, tis_cap=None),
    dict(clip_low=0.2, clip_high=0.28, dual_clip=None, kl_coef=0.0, tis_cap=None),
    dict(clip_low=0.2, clip_high=0.28, dual_clip=3.0, kl_coef=0.0, tis_cap=None),
    dict(clip_low=0.1, clip_high=0.3, dual_clip=None, kl_coef=0.05, tis_cap=None),
    dict(clip_low=0.2, clip_high=0.28, dual_clip=None, kl_coef=0.0, tis_cap=1.5),
    dict(clip_low=0.2, clip_high=0.28, dual_clip=2.0, kl_coef=0.1, tis_cap=2.0),
]


@pytest.mark.parametrize("seed,aggregation,options",
                         [(i, *case) for i, case in enumerate(itertools.product(AGGREGATIONS, OPTIONS))])
def test_loss_and_gradient_match_float64_reference(seed, aggregation, options):
    logp, old, adv, mask, ref, rollout = make_batch(seed)
    logp = logp.requires_grad_()
    loss, metrics = grpo_loss(logp, old, adv, mask, ref_logprobs_BT=ref, rollout_logprobs_BT=rollout,
                              aggregation=aggregation, max_response_tokens=9, **options)
    loss.backward()

    args = dict(ref=ref.tolist(), rollout=rollout.tolist(), aggregation=aggregation, max_tokens=9, **options)
    expected = reference_loss(logp.tolist(), old.tolist(), adv.tolist(), mask.tolist(), **args)
    assert loss.item() == pytest.approx(expected, rel=1e-12, abs=1e-14)

    # The gradient by central differences of the reference, at every unmasked token.
    h = 1e-6
    for b, t in mask.nonzero().tolist():
        plus, minus = logp.detach().clone(), logp.detach().clone()
        plus[b, t] += h
        minus[b, t] -= h
        numeric = (reference_loss(plus.tolist(), old.tolist(), adv.tolist(), mask.tolist(), **args)
                   - reference_loss(minus.tolist(), old.tolist(), adv.tolist(), mask.tolist(), **args)) / (2 * h)
        assert logp.grad[b, t].item() == pytest.approx(numeric, rel=1e-5, abs=1e-8)
    assert torch.all(logp.grad[~mask] == 0)
    assert math.isfinite(metrics["approx_kl"].item())


CORRECTIONS = [
    # Bounds tight enough that some tokens (IcePop) and some sequences (sequence mask) of
    # make_batch's ratios (old/rollout within e^±1) fall outside, and some inside.
    dict(clip_low=0.2, clip_high=0.28, dual_clip=None, kl_coef=0.0, tis_cap=None, correction="icepop",
         correction_low=0.6, correction_high=1.8),
    dict(clip_low=0.2, clip_high=0.28, dual_clip=3.0, kl_coef=0.1, tis_cap=2.0, correction="icepop",
         correction_low=0.5, correction_high=1.5),
    dict(clip_low=0.2, clip_high=0.28, dual_clip=None, kl_coef=0.0, tis_cap=2.0, correction="sequence_mask",
         correction_low=0.85, correction_high=1.15),
    dict(clip_low=0.2, clip_high=0.28, dual_clip=2.0, kl_coef=0.1, tis_cap=None, correction="sequence_mask",
         correction_low=0.9, correction_high=1.2),
]


@pytest.mark.parametrize("seed,aggregation,options",
                         [(100 + i, *case) for i, case in enumerate(itertools.product(AGGREGATIONS, CORRECTIONS))])
def test_off_policy_corrections_match_float64_reference(seed, aggregation, options):
    """Sequence mask and IcePop, loss and gradient, against the token-by-token float64 reference;
    the masked fraction is the share of loss tokens the reference zeroes."""
    test_loss_and_gradient_match_float64_reference(seed, aggregation, options)
    logp, old, adv, mask, ref, rollout = make_batch(seed)
    _, metrics = grpo_loss(logp, old, adv, mask, ref_logprobs_BT=ref, rollout_logprobs_BT=rollout,
                           aggregation=aggregation, max_response_tokens=9, **options)
    low, high = options["correction_low"], options["correction_high"]
    masked = total = 0
    for b in range(mask.shape[0]):
        tokens = [t for t in range(mask.shape[1]) if mask[b, t]]
        gaps = [old[b, t].item() - rollout[b, t].item() for t in tokens]
        if options["correction"] == "icepop":
            masked += sum(1 for g in gaps if not low <= math.exp(g) <= high)
        elif tokens and not low <= math.exp(sum(gaps) / len(gaps)) <= high:
            masked += len(tokens)
        total += len(tokens)
    assert metrics["off_policy_masked_fraction"].item() == pytest.approx(masked / total, rel=1e-12)


def test_off_policy_corrections_mask_some_but_not_all():
    """The reference cases above do exercise both sides of each mask."""
    for seed, options in zip(range(100, 104), CORRECTIONS):
        logp, old, adv, mask, ref, rollout = make_batch(seed)
        _, m = grpo_loss(logp, old, adv, mask, rollout_logprobs_BT=rollout, **options)
        assert 0 < m["off_policy_masked_fraction"].item() < 1, options


def test_sequence_mask_drops_whole_sequences_and_keeps_their_kl():
    """A sequence whose geometric-mean ratio is outside [low, high] gets no policy gradient at any
    token, even tokens whose own ratio is 1; its KL term still pulls toward the reference.
    IcePop on the same batch masks only the outlying token."""
    old = torch.full((2, 3), -1.0, dtype=torch.float64)
    rollout = old.clone()
    rollout[0, 0] = old[0, 0] - 3.0  # ratio e^3 at one token: geometric mean e^1 over 3 tokens
    mask = torch.ones(2, 3, dtype=torch.bool)
    adv = torch.tensor([1.0, 1.0], dtype=torch.float64)
    ref = old - 0.3
    logp = old.clone().requires_grad_()
    loss, m = grpo_loss(logp, old, adv, mask, rollout_logprobs_BT=rollout, tis_cap=2.0, correction="sequence_mask",
                        correction_low=0.5, correction_high=2.0)
    loss.backward()
    assert torch.all(logp.grad[0] == 0) and torch.all(logp.grad[1] != 0)
    assert m["off_policy_masked_fraction"].item() == pytest.approx(0.5)
    logp.grad = None
    loss, _ = grpo_loss(logp, old, adv, mask, rollout_logprobs_BT=rollout, ref_logprobs_BT=ref, kl_coef=0.1,
                        correction="sequence_mask", correction_low=0.5, correction_high=2.0)
    loss.backward()
    assert torch.all(logp.grad[0] != 0)  # the KL gradient alone
    logp.grad = None
    loss, m = grpo_loss(logp, old, adv, mask, rollout_logprobs_BT=rollout, correction="icepop",
                        correction_low=0.5, correction_high=2.0)
    loss.backward()
    assert logp.grad[0, 0] == 0 and torch.all(logp.grad[0, 1:] != 0)
    assert m["off_policy_masked_fraction"].item() == pytest.approx(1 / 6)


def test_tis_default_is_unchanged_and_reports_nothing_masked():
    logp, old, adv, mask, ref, rollout = make_batch(seed=5)
    explicit, m = grpo_loss(logp, old, adv, mask, rollout_logprobs_BT=rollout, tis_cap=2.0, correction="tis",
                            correction_low=0.9, correction_high=1.1)
    default, _ = grpo_loss(logp, old, adv, mask, rollout_logprobs_BT=rollout, tis_cap=2.0)
    assert explicit.item() == default.item()
    assert m["off_policy_masked_fraction"].item() == 0


def test_metrics_count_clipping_on_unmasked_tokens():
    old = torch.zeros(2, 4, dtype=torch.float64)
    logp = torch.log(torch.tensor([[1.5, 1.0, 0.5, 9.0], [1.1, 1.0, 1.0, 1.0]], dtype=torch.float64))
    mask = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]], dtype=torch.bool)
    adv = torch.tensor([1.0, -1.0], dtype=torch.float64)
    _, m = grpo_loss(logp, old, adv, mask, clip_low=0.2, clip_high=0.28, dual_clip=1.2)
    # Row 0 (A>0): ratio 1.5 clipped at 1.28, ratio 0.5 not (min picks the unclipped). Row 1: 1.1 in range.
    assert m["clip_fraction"].item() == pytest.approx(1 / 5)
    assert m["ratio_max"].item() == pytest.approx(1.5)
    assert m["ratio_min"].item() == pytest.approx(0.5)
    assert m["dual_clip_fraction"].item() == 0.0
    _, m = grpo_loss(logp, old, -adv, mask, dual_clip=1.2)
    # Row 0 now has A<0: ratio 1.5 → loss 1.5 > 1.2, dual-clipped.
    assert m["dual_clip_fraction"].item() == pytest.approx(1 / 5)


def test_denominator_over_micro_batches_makes_shares_add_up():
    logp, old, adv, mask, _, _ = make_batch(seed=3, B=8)
    logp = torch.nan_to_num(logp)
    for aggregation in AGGREGATIONS:
        whole, _ = grpo_loss(logp, old, adv, mask, aggregation=aggregation)
        denominator = loss_denominator([mask[:3], mask[3:]], aggregation)
        parts = [grpo_loss(logp[s], old[s], adv[s], mask[s], aggregation=aggregation, denominator=denominator)[0]
                 for s in (slice(0, 3), slice(3, 8))]
        assert sum(parts).item() == pytest.approx(whole.item(), rel=1e-12)


def test_bad_options_are_rejected_by_name():
    x = torch.zeros(1, 2)
    with pytest.raises(ValueError, match="aggregation 'sum'"):
        grpo_loss(x, x, torch.zeros(1), x.bool(), aggregation="sum")
    with pytest.raises(ValueError, match="rollout logprobs"):
        grpo_loss(x, x, torch.zeros(1), x.bool(), tis_cap=2.0)
    with pytest.raises(ValueError, match="dual_clip"):
        grpo_loss(x, x, torch.zeros(1), x.bool(), dual_clip=0.5)
    with pytest.raises(ValueError, match="correction 'mis' is not one of tis, sequence_mask, icepop"):
        grpo_loss(x, x, torch.zeros(1), x.bool(), rollout_logprobs_BT=x, correction="mis")
    with pytest.raises(ValueError, match="correction icepop needs rollout logprobs"):
        grpo_loss(x, x, torch.zeros(1), x.bool(), correction="icepop")
    with pytest.raises(ValueError, match=r"0 < low < 1 < high, got \[1.2, 5.0\]"):
        grpo_loss(x, x, torch.zeros(1), x.bool(), rollout_logprobs_BT=x, correction="sequence_mask", correction_low=1.2)


def reference_advantages(rewards, group_size, scale, eps):
    def std(xs):
        mean = sum(xs) / len(xs)
        return math.sqrt(sum((x - mean) ** 2 for x in xs) / (len(xs) - 1))

    out = []
    for start in range(0, len(rewards), group_size):
        group = rewards[start:start + group_size]
        mean = sum(group) / len(group)
        for r in group:
            if scale == "group":
                out.append((r - mean) / (std(group) + eps))
            elif scale == "batch":
                out.append((r - mean) / (std(rewards) + eps))
            else:
                out.append(r - mean)
    return out


@pytest.mark.parametrize("scale", ["group", "batch", "none"])
def test_group_advantages_match_reference(scale):
    g = torch.Generator().manual_seed(7)
    rewards = torch.rand(12, generator=g, dtype=torch.float64)
    rewards[4:8] = 1.0  # one group with equal rewards
    got = group_advantages(rewards, group_size=4, scale=scale, eps=1e-6)
    expected = reference_advantages(rewards.tolist(), 4, scale, 1e-6)
    assert got.tolist() == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert torch.all(got[4:8] == 0)
    assert informative_groups(rewards, 4).tolist() == [True, False, True]


def test_group_advantages_reject_a_group_size_that_does_not_divide():
    with pytest.raises(ValueError, match="group_size 4 must divide the batch of 6"):
        group_advantages(torch.zeros(6), group_size=4)
    with pytest.raises(ValueError, match="advantage scale 'std'"):
        group_advantages(torch.zeros(4), group_size=2, scale="std")


def test_rollout_gap_metrics_are_the_train_rollout_logprob_difference_on_unmasked_tokens():
    """rollout_logprob_diff and rollout_kl (k3 of KL(rollout ‖ trainer)) report what the rollout
    engine's precision costs (job.rollout.precision fp8), with or without TIS."""
    g = torch.Generator().manual_seed(0)
    old = -torch.rand(3, 5, generator=g, dtype=torch.float64) * 3
    rollout = old + torch.randn(3, 5, generator=g, dtype=torch.float64) * 0.1
    rollout[2, 4] = -50.0  # masked: must not count
    mask = torch.ones(3, 5, dtype=torch.bool)
    mask[2, 4] = False
    adv = torch.tensor([1.0, -1.0, 0.5], dtype=torch.float64)
    gap = (old - rollout)[mask]
    for tis_cap in (None, 2.0):
        _, m = grpo_loss(old.clone(), old, adv, mask, rollout_logprobs_BT=rollout, tis_cap=tis_cap)
        assert m["rollout_logprob_diff"].item() == pytest.approx(gap.abs().mean().item())
        assert m["rollout_kl"].item() == pytest.approx((torch.exp(gap) - 1 - gap).mean().item())
        assert m["rollout_kl"].item() > 0
    _, same = grpo_loss(old.clone(), old, adv, mask, rollout_logprobs_BT=old.clone())
    assert same["rollout_logprob_diff"].item() == 0 and same["rollout_kl"].item() == 0
    _, none = grpo_loss(old.clone(), old, adv, mask)
    assert "rollout_kl" not in none
