"""The feed's order: which (epoch, row) sits at each position, and the task id it gets.

Position p is row `kept[order_e[p mod K]]` of epoch e = p div K, where K is the number of rows
that passed the prompt-length filter and `order_e` is the identity or, with shuffling, a
permutation drawn from (seed, e). Nothing but the position needs remembering: a feeder that
restarts at the position committed in the queue continues the same sequence.

Task ids are `<dataset fingerprint>-e<epoch>-r<row>`: the same row of the same data in the same
epoch has the same id in every run, whichever process submits it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class FeedPlan:
    dataset_fingerprint: str
    kept: np.ndarray  # row indices that passed the filter, ascending
    # Passes over the kept rows; None: unbounded (the trainer's step count ends the run).
    passes: int | None = 1
    shuffle: bool = True
    seed: int = 0
    _orders: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def rows(self) -> int:
        return int(self.kept.size)

    @property
    def total(self) -> int | None:
        """Positions in the whole feed (None: unbounded)."""
        return None if self.passes is None else self.passes * self.rows

    @property
    def fingerprint(self) -> str:
        """What a committed position means: the data, the filter's outcome and the order.
        (Not the number of passes: raising `epochs` continues a finished feed.)"""
        import xxhash

        digest = xxhash.xxh3_64()
        digest.update(self.dataset_fingerprint.encode())
        digest.update(np.ascontiguousarray(self.kept, dtype="<i8").tobytes())
        digest.update(f"shuffle={self.shuffle},seed={self.seed}".encode())
        return f"{self.dataset_fingerprint}:{digest.hexdigest()}"

    def _order(self, epoch: int) -> np.ndarray:
        if epoch not in self._orders:
            self._orders.clear()  # one epoch at a time: K int64 values
            order = np.arange(self.rows)
            if self.shuffle:
                order = np.random.Generator(np.random.PCG64([self.seed, epoch])).permutation(self.rows)
            self._orders[epoch] = order
        return self._orders[epoch]

    def at(self, position: int) -> tuple[int, int]:
        """(epoch, row) at `position`."""
        epoch, index = divmod(position, self.rows)
        return epoch, int(self.kept[self._order(epoch)[index]])

    def task_id(self, epoch: int, row: int) -> str:
        return f"{self.dataset_fingerprint}-e{epoch}-r{row}"

    def prompt_id(self, row: int) -> str:
        return f"{self.dataset_fingerprint}-r{row}"
