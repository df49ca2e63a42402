"""Balanced partitions of weighted items: the largest differencing method (Karmarkar–Karp).

    parts = balanced_partition(tokens_N, k)      # k lists of item indices

The trainer splits each step's samples over its data-parallel ranks by token count (every
collective waits for the slowest rank, so the largest part sets the step time), and each
rank's samples over its micro-batches likewise.

k-way LDM (Karmarkar & Karp 1982; Michiels et al. 2003 for k > 2): every item starts as a
k-tuple of subsets (itself and k − 1 empty ones); the two tuples with the largest spread
(max − min sum) are merged by pairing the heaviest subset of one with the lightest of the
other, until one tuple is left. On 512 lognormal lengths over 16 ranks it lands within a
fraction of a percent of equal (tests/payload/train/test_train_partition.py), where
contiguous equal-count shares are 1.5–2× apart. O(n·k) time; 8192 samples over 128 ranks
take well under a second on rank 0, once per step.
"""

from __future__ import annotations

import heapq

import numpy as np


def balanced_partition(weights_N: np.ndarray, parts: int) -> list[list[int]]:
    """Indices of `weights_N` split into `parts` lists of near-equal total weight (some lists
    may be empty when there are fewer items than parts)."""
    if parts < 1:
        raise ValueError(f"parts must be at least 1, got {parts}")
    weights_N = np.asarray(weights_N, dtype=np.float64)
    if parts == 1 or len(weights_N) == 0:
        return [list(range(len(weights_N)))] + [[] for _ in range(parts - 1)]
    # A heap entry: (-spread, tiebreak, sums sorted descending, the subsets in that order).
    heap = []
    for i, w in enumerate(weights_N):
        sums = np.zeros(parts)
        sums[0] = w
        heap.append((-w, i, sums, [[i]] + [[] for _ in range(parts - 1)]))
    heapq.heapify(heap)
    tiebreak = len(heap)
    while len(heap) > 1:
        _, _, sums_a, subsets_a = heapq.heappop(heap)
        _, _, sums_b, subsets_b = heapq.heappop(heap)
        # Heaviest of a with lightest of b: both are sorted descending, so pair a[j] with b[k-1-j].
        sums = sums_a + sums_b[::-1]
        subsets = [a + b for a, b in zip(subsets_a, reversed(subsets_b))]
        order = np.argsort(-sums, kind="stable")
        sums = sums[order] - sums[order][-1]
        heapq.heappush(heap, (-sums[0], tiebreak, sums, [subsets[j] for j in order]))
        tiebreak += 1
    return heap[0][3]


def first_fit_bins(sizes, budget: int) -> int:
    """Bins of capacity `budget` that first-fit decreasing packs `sizes` into (an item larger
    than the budget gets a bin of its own): the packer's micro-batch count."""
    free: list[int] = []
    for n in sorted(sizes, reverse=True):
        for i, room in enumerate(free):
            if n <= room:
                free[i] -= n
                break
        else:
            free.append(max(budget - n, 0))
    return len(free)
