"""Publishing through every training node's NICs, from a staged copy, behind the next step.

Bytes and seconds at 16 p5en nodes, 32 SGLang TP8 servers (payload/train/costs.py):
Qwen3-30B-A3B is 61 GB in bf16, Qwen3-235B-A22B 470 GB. SGLang 0.5.23 delivers every tensor to
every TP rank of a server from rank 0 of the named group, so each server takes in the whole
model whoever sends it: 32 x B leave the trainer per publish (1.95 TB / 15 TB). From rank 0
alone (one GPU's ~37.5 GB/s) that is 52 s / 400 s. Here:

    sources      one rank per training node (LOCAL_WORLD_SIZE ranks a node; pipelined: the
                 first rank of each stage's first node): each is group rank 0 of the
                 weight-update groups of its own servers, servers / sources of them (2 at
                 p5en-48), so the 32 x B leave through 16 nodes' NICs, 2 x B each.
    relay        the sources' own group: rank 0 broadcasts each staged bucket to the other
                 sources once (a ring crosses each node's NICs once: B per node, 1.6 s / 12.5
                 s at 37.5 GB/s), while the bucket before it goes out to the servers.
    staging      rank 0 gathers the bf16 weights (payload/train/parallel.py full_hf_tensors,
                 collective) and packs them (in the servers' precision, bf16 or block FP8:
                 payload/sync/wire.py) into 4 GiB buckets in pinned host memory: one
                 staged copy, B bytes of host RAM on node 0 (61 GB / 470 GB of its 2 TiB, beside
                 a checkpoint's 366 / 353 GB), never GPU memory, which goes back to training.
                 The trainer stalls for this gather and device-to-host copy only (at ~55 GB/s
                 measured on one H200: 1.1 s / 8.5 s, plus 235B's gather across its replica's
                 nodes); the publish then runs on a thread per source while the next step trains.
    buckets      each source keeps three bucket slots on its device (3 x 4 GiB during a
                 publish, freed after it): one receiving the relay of bucket i+1 while bucket i
                 is broadcast to the servers and bucket i-1 is held back for the version.

Memory bound: one staged copy exists at a time. `stage` waits for the publish in flight before
it overwrites the staged buffers, so the trainer's next publish (not its next step) is what
waits if a publish outlasts a step.

What SGLang 0.5.23 accepts (sglang/srt/model_executor/model_runner_components/weight_updater.py,
srt/utils/common.py init_custom_process_group): a server's TP rank r joins its group as
`rank_offset + r` and receives every bucket with `broadcast(src=0)`. So each group has exactly
one sender, its rank 0, which must hold the whole bucket: a server cannot be fed by several
trainer ranks at once, only by one source per group. Ranks 1..rank_offset-1 could be other
trainer GPUs, but they would only receive the same bytes. A server keeps any number of named
groups (`_model_update_group[group_name]`), so a source forms its own groups with its servers
(rank_offset 1) and the per-server failure handling of payload/sync/publisher.py holds per source.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import torch
import torch.distributed as dist

from payload.sync.bucket import FlatBucket
from payload.sync.client import RolloutServerClient, RolloutServerError
from payload.sync.publisher import PublishError, WeightPublisher, buckets
from payload.sync.wire import WireFormat

log = logging.getLogger(__name__)

SLOTS = 3  # buckets alive in a source at once: relayed, held back, broadcast (publisher._send)


def source_ranks(world_size: int, ranks_per_node: int, pp_size: int = 1) -> list[int]:
    """One source per training node; pipelined, one per stage (its first rank): a stage is whole
    nodes, and slime's layout, one source per stage, keeps each stage's sender on its own NICs."""
    if pp_size > 1:
        return list(range(0, world_size, world_size // pp_size))
    return list(range(0, world_size, max(1, ranks_per_node)))


def assign(servers: list[str], sources: int) -> list[list[str]]:
    """Servers split into `sources` contiguous, near-equal runs (source i feeds run i)."""
    return [servers[i * len(servers) // sources : (i + 1) * len(servers) // sources] for i in range(sources)]


@dataclass
class Manifest:
    """What a bucket holds, sent once per publish to every source (names are the only bulk)."""

    names: list[list[str]]
    dtypes: list[list[str]]
    shapes: list[list[list[int]]]
    nbytes: list[int]


@dataclass
class Outcome:
    version: int
    done: list[str]  # servers now serving the version (every source's, on rank 0)
    error: str = ""


class FanOutPublisher:
    """Every rank builds it (the relay groups are collective to form); sources publish."""

    @dataclass
    class Config:
        publisher: WeightPublisher.Config  # its `servers`: all of them; each source takes its run
        ranks_per_node: int = 1
        pp_size: int = 1

        def build(self, world_rank: int, world_size: int, device: torch.device) -> "FanOutPublisher":
            return FanOutPublisher(self, world_rank, world_size, device)

    def __init__(self, config: Config, rank: int, world_size: int, device: torch.device) -> None:
        self.config, self.rank = config, rank
        # A source without servers would only relay: fewer servers than nodes use the first nodes.
        self.sources = source_ranks(world_size, config.ranks_per_node, config.pp_size)[:max(1, len(config.publisher.servers))]
        self.device = device
        runs = assign(config.publisher.servers, len(self.sources))
        nccl = config.publisher.backend == "nccl"
        # Every rank joins every new_group call (torch's rule); only sources are members.
        self._relay = dist.new_group(self.sources, backend="nccl" if nccl else "gloo") if len(self.sources) > 1 else None
        self._objects = dist.new_group(self.sources, backend="gloo") if len(self.sources) > 1 else None
        self.is_source = rank in self.sources
        self.servers = runs[self.sources.index(rank)] if self.is_source else []
        self.publisher: WeightPublisher | None = None
        if self.is_source and self.servers:
            sub = WeightPublisher.Config(**{**vars(config.publisher), "servers": self.servers})
            self.publisher = sub.build()
        self.dtype = getattr(torch, config.publisher.dtype)
        self._staged: list[torch.Tensor] = []  # rank 0: the staged copy, one host buffer a bucket
        self._manifest: Manifest | None = None
        self._thread: threading.Thread | None = None
        self._outcome: Outcome | None = None
        # Test and metrics hooks: called with ("relayed", version, i) and ("published", version).
        self.on_event: Callable[..., None] = lambda *event: None

    # -- the trainer's side -----------------------------------------------------------------------

    def stage(self, named_tensors: Iterable[tuple[str, torch.Tensor]]) -> None:
        """Every rank (the iterator gathers collectively): rank 0 packs the tensors it receives
        into the staged host buffers; the others drain theirs. Waits first for the publish in
        flight (its buckets are read from the same buffers): take its outcome with `wait` first."""
        self.wait()
        if self.rank != 0:
            for _ in named_tensors:
                pass
            return
        manifest = Manifest([], [], [], [])
        pinned = self.device.type == "cuda"
        wire = WireFormat(self.dtype, self.config.publisher.precision)
        for i, bucket in enumerate(buckets(named_tensors, self.config.publisher.bucket_bytes, wire_bytes=wire.nbytes)):
            total = wire.packed_bytes(bucket)
            if i == len(self._staged):
                self._staged.append(torch.empty(max(total, self.config.publisher.bucket_bytes), dtype=torch.uint8,
                                                pin_memory=pinned))
            elif self._staged[i].numel() < total:
                self._staged[i] = torch.empty(total, dtype=torch.uint8, pin_memory=pinned)
            # Packed on the tensors' own device, then one copy to host (the stall).
            packed = wire.pack(bucket)
            self._staged[i][:total].copy_(packed.flat)
            manifest.names.append(packed.names)
            manifest.dtypes.append(packed.dtypes)
            manifest.shapes.append(packed.shapes)
            manifest.nbytes.append(total)
        del self._staged[len(manifest.nbytes):]
        self._manifest = manifest

    def start(self, version: int) -> None:
        """Sources: publish the staged copy on a thread; returns at once. Others: nothing."""
        if not self.is_source:
            return
        self._outcome = None
        self._thread = threading.Thread(target=self._run, args=(version,), name=f"publish-v{version}", daemon=True)
        self._thread.start()

    @property
    def in_flight(self) -> bool:
        return self._thread is not None

    @property
    def finished(self) -> bool:
        """A publish is out and over: `wait` returns at once."""
        return self._thread is not None and not self._thread.is_alive()

    def wait(self) -> Outcome | None:
        """The outcome of the publish in flight (rank 0: every source's servers); None if none."""
        if self._thread is None:
            return None
        self._thread.join()
        self._thread = None
        return self._outcome

    # -- the publish thread -----------------------------------------------------------------------

    def _run(self, version: int) -> None:
        done: list[str] = []
        error = ""
        try:
            manifest = self._share_manifest()
            relayed = self._relayed(manifest, version)
            if self.publisher is not None:
                try:
                    done = self.publisher.publish_buckets(relayed, version)
                except PublishError as exc:
                    error = str(exc)
            for _ in relayed:  # a source without servers still relays every bucket
                pass
        except Exception as exc:  # noqa: BLE001 - reported to the trainer, never lost in a thread
            log.exception("publish of version %d failed", version)
            error = f"{type(exc).__name__}: {exc}"
        outcomes = [None] * len(self.sources) if self.rank == 0 else None
        if self._objects is not None:
            dist.gather_object((done, error), outcomes, dst=0, group=self._objects)
        else:
            outcomes = [(done, error)]
        if self.rank == 0:
            urls = [url for d, _ in outcomes for url in d]
            errors = "; ".join(e for _, e in outcomes if e)
            self._outcome = Outcome(version, urls, errors if not urls else "")
        self.on_event("published", version)

    def _share_manifest(self) -> Manifest:
        box = [self._manifest]
        if self._objects is not None:
            dist.broadcast_object_list(box, src=0, group=self._objects)
        return box[0]

    def _relayed(self, manifest: Manifest, version: int) -> Iterator[FlatBucket]:
        """Bucket i in slot i % 3 of this source's device: rank 0 copies it from the staged
        host buffer, the relay group broadcasts it to the other sources."""
        slots: list[torch.Tensor | None] = [None] * SLOTS
        try:
            for i, total in enumerate(manifest.nbytes):
                slot = slots[i % SLOTS]
                if slot is None or slot.numel() < total:
                    slot = slots[i % SLOTS] = torch.empty(max(total, self.config.publisher.bucket_bytes),
                                                          dtype=torch.uint8, device=self._send_device())
                flat = slot[:total]
                if self.rank == 0:
                    flat.copy_(self._staged[i][:total], non_blocking=True)
                if self._relay is not None:
                    dist.broadcast(flat, src=0, group=self._relay)
                self.on_event("relayed", version, i)
                yield FlatBucket(manifest.names[i], manifest.dtypes[i], manifest.shapes[i], flat)
        finally:
            slots.clear()

    def _send_device(self) -> torch.device:
        return self.device if self.config.publisher.backend == "nccl" else torch.device("cpu")

    def pause(self, urls: list[str]) -> None:
        """Rank 0: take servers the post-publish probe found wrong out of service until their
        source's next publish re-sends every tensor (paused, never reloaded from disk)."""
        for url in urls:
            client = RolloutServerClient(url, self.config.publisher.probe_timeout_s)
            try:
                client.pause_generation(self.config.publisher.pause_mode)
            except RolloutServerError as exc:
                log.error("%s: pause for rollback failed: %s", url, exc)
            finally:
                client.close()

    def close(self) -> None:
        self.wait()
        if self.publisher is not None:
            self.publisher.close()


def ranks_per_node() -> int:
    """torchrun's LOCAL_WORLD_SIZE: the ranks of one node (1 when not under torchrun)."""
    return int(os.environ.get("LOCAL_WORLD_SIZE", "1"))
