"""Real multi-process torch.distributed (gloo) for the EP tests, started once per test module.

Four spawned processes join one gloo world and also form two 2-rank groups ({0,1}, {2,3}); a
case function (importable, so it pickles by name) runs on the first `ep_size` ranks with that
group and its return values come back as a list ordered by rank.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import traceback
from datetime import timedelta
from typing import Callable

from payload.common.ports import free_port

WORLD = 4
TIMEOUT_S = 120


def _worker(rank: int, port: int, tasks, results) -> None:
    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    # A case that fails on one rank leaves the others in a collective: time out instead of hanging.
    dist.init_process_group(
        "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=WORLD, timeout=timedelta(seconds=60)
    )
    pairs = [dist.new_group([0, 1]), dist.new_group([2, 3])]
    groups = {4: dist.group.WORLD, 2: pairs[rank // 2]}
    while True:
        task = tasks.get()
        if task is None:
            break
        fn, ep_size, args = task
        try:
            value = fn(groups[ep_size], *args) if rank < ep_size else None
            results.put((rank, True, value))
        except BaseException:  # report, keep serving: the next case must still run
            results.put((rank, False, traceback.format_exc()))
    dist.destroy_process_group()


class GlooPool:
    def __init__(self) -> None:
        ctx = mp.get_context("spawn")
        port = free_port()
        self.results = ctx.Queue()
        self.tasks = [ctx.Queue() for _ in range(WORLD)]
        env = {"OMP_NUM_THREADS": "1"}
        old = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            self.procs = [
                ctx.Process(target=_worker, args=(r, port, self.tasks[r], self.results), daemon=True)
                for r in range(WORLD)
            ]
            for p in self.procs:
                p.start()
        finally:
            for k, v in old.items():
                os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)

    def run(self, fn: Callable, ep_size: int, *args) -> list:
        """fn(group, *args) on ranks 0..ep_size-1; returns their results by rank."""
        for q in self.tasks:
            q.put((fn, ep_size, args))
        out: dict[int, object] = {}
        failures = []
        for _ in range(WORLD):
            try:
                rank, ok, value = self.results.get(timeout=TIMEOUT_S)
            except queue.Empty:
                raise AssertionError(f"gloo workers did not answer in {TIMEOUT_S}s; " + "\n".join(failures)) from None
            if ok:
                out[rank] = value
            else:
                failures.append(f"rank {rank}:\n{value}")
        if failures:
            raise AssertionError("\n".join(failures))
        return [out[r] for r in range(ep_size)]

    def close(self) -> None:
        for q in self.tasks:
            q.put(None)
        for p in self.procs:
            p.join(timeout=30)
            if p.is_alive():
                p.kill()
