"""A pool of real torch.distributed (gloo) worker processes, started once per test module.

Spawning a process and importing torch costs seconds on the shared CI cores, so the workers
stay up and run one picklable function after another: `pool.run(fn, *args)` calls
`fn(rank, world_size, *args)` on every rank and returns the results in rank order.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import socket
import traceback


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _worker(rank: int, world_size: int, port: int, inbox, outbox) -> None:
    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(world_size),
                      LOCAL_RANK=str(rank))
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world_size)
    while True:
        job = inbox.get()
        if job is None:
            break
        fn, args = job
        try:
            outbox.put((rank, True, fn(rank, world_size, *args)))
        except BaseException:  # the parent re-raises it with the worker's traceback
            outbox.put((rank, False, traceback.format_exc()))
    dist.destroy_process_group()


class GlooPool:
    def __init__(self, world_size: int = 2, timeout_s: float = 120.0):
        ctx = mp.get_context("spawn")
        self.world_size, self.timeout_s = world_size, timeout_s
        self.inboxes = [ctx.Queue() for _ in range(world_size)]
        self.outbox = ctx.Queue()
        port = free_port()
        self.procs = [
            ctx.Process(target=_worker, args=(r, world_size, port, self.inboxes[r], self.outbox), daemon=True)
            for r in range(world_size)
        ]
        for p in self.procs:
            p.start()

    def run(self, fn, *args):
        for inbox in self.inboxes:
            inbox.put((fn, args))
        results: dict[int, object] = {}
        while len(results) < self.world_size:
            try:
                rank, ok, value = self.outbox.get(timeout=self.timeout_s)
            except queue.Empty:
                raise TimeoutError(f"gloo workers did not answer within {self.timeout_s}s") from None
            if not ok:
                raise RuntimeError(f"rank {rank} failed:\n{value}")
            results[rank] = value
        return [results[r] for r in range(self.world_size)]

    def close(self) -> None:
        for inbox in self.inboxes:
            inbox.put(None)
        for p in self.procs:
            p.join(timeout=10)
            if p.is_alive():
                p.kill()
