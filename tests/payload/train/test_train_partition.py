"""The balanced token partition of a step's samples over data-parallel ranks."""

import numpy as np
import pytest

from payload.train.batch import Sample, split_for_ranks
from estimate.partition import balanced_partition


def lognormal_lengths(n, seed, mean=4096, cut=16384):
    """Response lengths as RL produces them: lognormal (sigma 1) with mean `mean`, cut at `cut`."""
    rng = np.random.default_rng(seed)
    return np.minimum(rng.lognormal(np.log(mean) - 0.5, 1.0, n), cut).astype(np.int64) + 1


@pytest.mark.parametrize("n,parts", [(512, 16), (2048, 128), (8192, 128)])
def test_within_5_percent_of_equal_on_a_lognormal_mix(n, parts):
    tokens = lognormal_lengths(n, seed=n) + 512  # a 512-token prompt each
    split = balanced_partition(tokens, parts)
    assert sorted(i for part in split for i in part) == list(range(n))  # every sample exactly once
    loads = np.array([tokens[part].sum() for part in split])
    assert loads.max() <= 1.05 * loads.mean()
    # What it replaces, contiguous equal-count shares, is nowhere near that.
    contiguous = np.array([chunk.sum() for chunk in np.array_split(tokens, parts)])
    assert contiguous.max() > 1.2 * contiguous.mean()


def test_fewer_items_than_parts_and_one_part():
    assert sorted(map(len, balanced_partition([5, 3], 4))) == [0, 0, 1, 1]
    assert balanced_partition([1, 2, 3], 1) == [[0, 1, 2]]
    with pytest.raises(ValueError, match="parts must be at least 1"):
        balanced_partition([1], 0)


def test_split_for_ranks_keeps_compact_arrays():
    lengths = lognormal_lengths(64, seed=1, mean=256, cut=1024)
    samples = [Sample(np.arange(8), np.arange(n), -np.ones(n), 0.0, routed_experts=np.zeros((n + 7, 2, 8), np.int64))
               for n in lengths]
    parts = split_for_ranks(samples, 4)
    assert sum(map(len, parts)) == 64
    s = parts[0][0]
    assert (s.prompt_ids.dtype, s.response_ids.dtype, s.rollout_logprobs.dtype, s.routed_experts.dtype) == (
        np.int32, np.int32, np.float32, np.uint8)
