"""Publishing through every training GPU's NICs, from each GPU's own staged shard, behind the next step.

What SGLang 0.5.23 accepts (sglang/srt/model_executor/model_runner_components/weight_updater.py):
`init_weights_update_group(master_address, master_port, rank_offset, world_size, group_name)`
puts a server's TP rank r in the group as `rank_offset + r`, with any world_size, and
`update_weights_from_distributed` receives each flattened bucket with ONE `broadcast(src=0)`.
So a server's group may hold several trainer GPUs (ranks 0..rank_offset-1) but only rank 0
sends; the others are receivers that NCCL can route through.

The design, per publish (every rank takes part; `Config.nodes` of `local_ranks` GPUs each):

    stage     (the trainer's stall) each GPU casts ITS OWN rows of every HF tensor to bf16
              and copies them to pinned host memory: B / G bytes a GPU, G the GPUs that hold
              the model once (a replica; pipelined: every stage's shard ranks of it). No gather,
              no rank holds more than its share.
    gather    (behind the next step, on the publish thread) per 4 GiB bucket, an all-gather of
              the G shares' bucket rows over the replica's own group (FSDP's own collective:
              a node takes in (1 - 1/nodes) x bucket through all of its NICs), then the rows
              are placed into SGLang's flattened layout. This replaces the old relay from rank 0.
    send      each server's group is its feeding node's L GPUs (group ranks 0..L-1) plus its TP
              ranks (rank_offset L). Local rank 0 broadcasts (src=0, what the release receives);
              the node's other GPUs post the same broadcast into their own gathered copy (the
              same bytes), which lets NCCL's channels leave the node through every GPU's NICs
              (premise below). A node feeds its servers ONE AT A TIME (a round per server,
              each round re-gathers), so a server is paused only for its own transfer.
    control   local rank 0 makes every HTTP call and decides (deadline, drops, held servers:
              payload/sync/publisher.py, unchanged); its node's other GPUs follow its steps,
              told over a gloo node group ("join", "pull", "start", "drop", "finish", "end").

The NCCL premise, and what it rests on: NCCL builds each communicator's rings/trees per
channel, and from 2.12 PXN ("inter-node communication using a non-local NIC, using NVLink and
an intermediate GPU", NCCL_PXN_DISABLE, default on) routes a channel through another GPU of the
same communicator on the node. A communicator with ONE GPU on the node can leave only through
that GPU's NICs (2 of 16 on p5en, ~37.5 GB/s); with all 8 it can use all 16 (~300 GB/s at
75%). Not measured here (no multi-node machine): the model (estimate/costs.py) states it
as an assumption (Hardware.node_broadcast_gb_s).

Dead servers (issue 45 item 6). At 16 p5en-48 nodes and 235B (publish_bytes 470 GB bf16, 110
buckets of 4 GiB, 32 TP8 servers, 2 rounds) a bucket reaches a server in ~71 ms (7.84 s / 110).
Every node's next bucket is a replica-wide all-gather, so whatever a leader waits for its own
server, every node waits. Before: a leader waited up to bucket_timeout_s (T, 30 s) for a dead
server's bucket, dead servers on k nodes at different buckets added up to k x T (16 nodes: 480 s
against the then 515 s fan-out timeout), a control call (probe, group, pause, begin/end,
continue) could take the HTTP timeout (450 s) between two gathers, and a follower's broadcast
into a dead server could reach the server group's 60 s NCCL watchdog. Now (estimate/costs.py
DeadServerBound; each leader decides alone about its own servers, no cross-node agreement):
  - a bucket not taken grace_s = T / (2 x servers) (235B: 0.47 s, 17x a bucket's transfer; 30B,
    64 servers: 0.23 s) after the leader is ready to go on drops its server from the rest of the
    publish without waiting: its broadcast is left in flight (its slot's bytes matter to no
    one: the root only reads, a follower's copy is never a source) and aborted in the background
    T after it started, on the leader and on each follower (their own post time), unless it
    completed by then (then the server is not marked wedged). A server is late at most once, so
    all of them cost the gathers <= servers x grace_s = T / 2, on however many nodes;
  - each round's control phase before its first bucket (probe, group with the rendezvous,
    pause, begin) and after its last (end, version check, continue) has one deadline,
    control_s = T / (4 x rounds) (235B: 3.75 s, 30B: 1.88 s), every call's HTTP timeout the time
    left; a server not through is dropped. Every leader runs its phases between the same two
    gathers at once, so nodes' phases overlap instead of adding: <= 2 x rounds x control_s = T / 2;
  - the server groups' NCCL timeout is 3 x T (publisher.group_timeout; gloo: T), past the abort;
  - forming a server's group is a phase of its own, form_s = T / 2, and its first bucket, which
    creates its NCCL communicators on both sides (lazily: SGLang 0.5.23 passes no device_id),
    is allowed first_bucket_s = T / 2 instead of grace_s: once per server life;
  - the fan-out groups' timeout is Timeouts.publish_s = 2 x (T + T / 2 + T / 2 + a round's
    pause), in whole 10 s: 130 s for both released models (was 515 s), passed by the chart as
    --publish-timeout-s.
Timed on CPU (tests/payload/sync/test_sync_fanout_dead.py, T = 4 s): a server killed mid-bucket
and servers wedged on two nodes at different buckets each cost a publish under T.

Unverified here, a risk to check on GPUs: the publish thread's collectives (the gather, the
server groups) run on their own communicators and stream while the next step's run on the
trainer's, from another thread. torch's new_group docs call concurrent NCCL process groups unsafe without
explicit ordering, citing NCCL's "Using multiple NCCL communicators concurrently"; whether the
pinned NCCL/CUDA make it safe (or the publish must be interleaved between the step's
collectives) has not been read in NCCL's source nor run.

Bytes and seconds at 16 p5en-48 nodes (`python -m payload plan --env p5en-48`):

                                            Qwen3-30B-A3B            Qwen3-235B-A22B
    servers (SGLang)                        64 x TP4, 4 per node     32 x TP8, 2 per node
    B (bf16)                                61 GB, 15 buckets        470 GB, 110 buckets
    stall: own shard D2H (B/128 at 25 GB/s) 0.48 GB: 0.02 s          3.67 GB: 0.15 s
    gather a node takes in, per round       57 GB: 0.19 s            441 GB: 1.47 s (beside the send)
    a server's transfer (its NICs' line     B / 30 GB/s: 2.04 s      B / 60 GB/s: 7.84 s
      rate x 0.150, the broadcast share calibrated on miles' measured 10.75 s, estimate/costs.py)
      + 5 ms a bucket, + 20 us a tensor     0.08 + 0.38 s            0.55 + 0.74 s
    = a server paused                       2.49 s (target 1 s)      9.13 s (target 5 s)
    whole publish (stall + rounds x pause)  10.0 s behind the step   18.4 s behind the step
    device memory while publishing          3 bucket slots + the gather buffer: ~16 GiB a GPU

Streams (issue 45 item 3). The publish thread never uses the training stream: `_run` runs on the
fan-out's own CUDA stream (`torch.cuda.stream`), which first waits on an event the training
thread records after `stage`. Its host-to-device copies and placing copies are queued there,
and torch's ProcessGroupNCCL makes each collective's NCCL stream wait on the *current* stream
(the publish stream), and `Work.wait` makes the current stream wait on it: the gather and the
server broadcasts are ordered against the publish stream only, never against the training
stream, so no rank can queue "gather wait" and "training collective" on one stream in
different orders. Every tensor the publish stream touches is allocated on it (the caching
allocator keeps its blocks to that stream) and read nowhere else, except the pinned share
(host memory, rewritten only by `stage` after `wait`, which synchronizes the stream first).
The collectives run on the publish's own communicators, never on the trainer's: the replica's
gather group (formed in __init__ by every rank in one order, its NCCL communicator created
there by a warm-up all-reduce from the training thread) and each server's weight-update group;
within the publish thread they are issued in one order on every rank (bucket by bucket, round
by round, the same layout everywhere).

Failures, bounded. A server that dies mid-bucket costs every node at most one grace_s (its
node's local rank 0 drops the group and tells its node's other GPUs to drop theirs, aborted in
the background; "Dead servers" above); it is held and rejoins the next publish (publisher.py). Every group this module forms (the replica's
gather group, the node and heads groups) carries a timeout: a rank whose publish thread fails
leaves the others waiting at most that long in their next collective, after which their
publish fails with the error; a publish that failed that way leaves the groups unusable, and
the next `stage` raises FanOutBroken (the trainer exits; its JobSet restarts it from the
checkpoint) instead of mismatched collectives.
"""

from __future__ import annotations

import logging
import threading
import time
from graphlib import TopologicalSorter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta

import torch
import torch.distributed as dist

from payload.sync.bucket import FlatBucket, pack
from payload.sync.client import RolloutServerClient, RolloutServerError
from payload.sync.group import destroy_weights_update_group, init_weights_update_group
from payload.sync.publisher import PublishError, WeightPublisher, abort_later, group_timeout
from estimate.costs import DeadServerBound
from estimate.footprint import PUBLISH_SLOTS
from payload.sync.wire import WireFormat

log = logging.getLogger(__name__)

# Gathered buckets alive at once: being pulled, held back, being broadcast (publisher._send);
# the trainer's memory model counts them (estimate.footprint).
SLOTS = PUBLISH_SLOTS


class FanOutBroken(RuntimeError):
    """A publish failed inside a collective: the fan-out's groups can no longer be trusted."""


def assign(servers: list[str], nodes: int) -> list[list[str]]:
    """Servers split into `nodes` contiguous, near-equal runs (node i feeds run i)."""
    return [servers[i * len(servers) // nodes : (i + 1) * len(servers) // nodes] for i in range(nodes)]


@dataclass(frozen=True)
class Piece:
    """Rows [row_start, row_start + rows) of the HF tensor `name` of `shape`, held by one rank."""

    name: str
    shape: tuple[int, ...]
    row_start: int
    rows: int


@dataclass
class FanoutLayout:
    """Where every rank's rows go in every bucket, known to every rank (built from the pieces'
    headers, gathered once). Each rank lists its tensors in the model's order; the tensors go
    in one order that agrees with every rank's list (an EP rank's experts are a subsequence)."""

    names: list[list[str]]  # per bucket
    shapes: list[list[list[int]]]
    nbytes: list[int]
    # per bucket, per rank: (byte offset in the bucket, bytes) of each run of its pieces that lie
    # back to back there, in its order (its share is their concatenation)
    places: list[list[list[tuple[int, int]]]]
    # per bucket: this rank's pieces (indices into its own list), in the order `places` lists them
    mine: list[list[int]]

    @classmethod
    def of(cls, headers: list[list[Piece]], rank: int, itemsize: int, bucket_bytes: int) -> "FanoutLayout":
        shapes: dict[str, tuple[int, ...]] = {}
        rows: dict[str, int] = {}
        for pieces in headers:
            for p in pieces:
                if shapes.setdefault(p.name, p.shape) != p.shape:
                    raise ValueError(f"{p.name}: ranks disagree on its shape ({shapes[p.name]} vs {p.shape})")
                rows[p.name] = rows.get(p.name, 0) + p.rows
        order = TopologicalSorter()
        for pieces in headers:
            for before, after in zip([None, *pieces], pieces):
                order.add(after.name, *([before.name] if before is not None else []))
        shapes = {name: shapes[name] for name in order.static_order()}
        wrong = [n for n in shapes if rows[n] != (shapes[n][0] if shapes[n] else 1)]
        if wrong:  # the group must hold every row once: a replica, not more, not less
            raise ValueError(f"the publish group holds {rows[wrong[0]]} rows of {wrong[0]} {shapes[wrong[0]]}")
        size = {n: itemsize * torch.Size(s).numel() for n, s in shapes.items()}
        bucket_of: dict[str, tuple[int, int]] = {}  # name -> (bucket, byte offset in it)
        layout = cls([], [], [], [], [])
        for name, shape in shapes.items():
            if not layout.nbytes or (layout.nbytes[-1] and layout.nbytes[-1] + size[name] > bucket_bytes):
                layout.names.append([]), layout.shapes.append([]), layout.nbytes.append(0)
            bucket_of[name] = (len(layout.nbytes) - 1, layout.nbytes[-1])
            layout.names[-1].append(name)
            layout.shapes[-1].append(list(shape))
            layout.nbytes[-1] += size[name]
        layout.places = [[[] for _ in headers] for _ in layout.nbytes]
        layout.mine = [[] for _ in layout.nbytes]
        for r, pieces in enumerate(headers):
            for i, p in enumerate(pieces):
                k, offset = bucket_of[p.name]
                row_bytes = size[p.name] // max(p.shape[0], 1) if p.shape else size[p.name]
                at, n = offset + p.row_start * row_bytes, p.rows * row_bytes
                runs = layout.places[k][r]
                if runs and sum(runs[-1]) == at:  # follows its previous piece (an EP rank's experts): one copy
                    runs[-1] = (runs[-1][0], runs[-1][1] + n)
                else:
                    runs.append((at, n))
                if r == rank:
                    layout.mine[k].append(i)
        return layout

    def share(self, k: int, rank: int) -> int:
        return sum(n for _, n in self.places[k][rank])


@dataclass
class Outcome:
    version: int
    done: list[str]  # servers now serving the version (every node's, on rank 0)
    error: str = ""
    left_out: dict[str, str] = field(default_factory=dict)  # servers that did not take it, and why


class FanOutPublisher:
    """Every rank builds it (its groups are collective to form) and stages and publishes."""

    @dataclass
    class Config:
        publisher: WeightPublisher.Config  # its `servers`: all of them; each node takes its run
        local_ranks: int = 1  # GPUs a node (torchrun's LOCAL_WORLD_SIZE)
        # The ranks that hold the model once, one list per replica (World.replica_ranks).
        replicas: list[list[int]] | None = None
        # Longest a rank waits in a fan-out collective for a peer (the trainer passes
        # estimate/costs.py Timeouts.publish_s); None: DeadServerBound.fanout_s with a round of
        # live work taken as one bucket_timeout_s.
        timeout_s: float | None = None

        def build(self, world_rank: int, world_size: int, device: torch.device) -> "FanOutPublisher":
            return FanOutPublisher(self, world_rank, world_size, device)

    def __init__(self, config: Config, rank: int, world_size: int, device: torch.device) -> None:
        self.config, self.rank, self.device = config, rank, device
        p = config.publisher
        local = max(1, config.local_ranks)
        self.nodes = max(1, world_size // local)
        self.node, self.local_rank = rank // local, rank % local
        self.head = self.node * local  # the node's local rank 0: its servers' sender
        runs = assign(p.servers, self.nodes)
        self.servers = runs[self.node]
        self.rounds = max(len(run) for run in runs)
        # Dead servers cost every node's gathers at most bucket_timeout_s in all, however many
        # nodes have one: each node's leader decides alone about its own servers, within
        # deadlines that add up to that bound (estimate/costs.py DeadServerBound).
        self.bound = DeadServerBound(p.bucket_timeout_s, len(p.servers), self.rounds)
        timeout = timedelta(seconds=config.timeout_s if config.timeout_s is not None
                            else self.bound.fanout_s(p.bucket_timeout_s))
        backend = "nccl" if p.backend == "nccl" else "gloo"
        # Every rank joins every new_group call, in the same order (torch's rule).
        replicas = config.replicas or [list(range(world_size))]
        self._gather = self._replica_ranks = None
        for ranks in replicas:
            group = dist.new_group(ranks, backend=backend, timeout=timeout) if world_size > 1 else None
            if rank in ranks:
                self._gather, self._replica_ranks = group, ranks
        self._node_group = None
        for n in range(self.nodes):
            group = dist.new_group(list(range(n * local, (n + 1) * local)), backend="gloo", timeout=timeout) \
                if local > 1 else None
            if n == self.node:
                self._node_group = group
        heads = list(range(0, self.nodes * local, local))
        self._heads = dist.new_group(heads, backend="gloo", timeout=timeout) if len(heads) > 1 else None
        # Local rank 0: one publisher per server of its run (a round each), its groups with
        # rank_offset local_ranks; its node's other GPUs follow it (`_follow`).
        self.publishers: list[WeightPublisher] = []
        if self.local_rank == 0:
            for url in self.servers:
                sender = WeightPublisher.Config(**{
                    **vars(p), "servers": [url], "trainer_ranks": local,
                    "grace_s": self.bound.grace_s if p.grace_s is None else p.grace_s,
                    "control_s": self.bound.control_s if p.control_s is None else p.control_s}).build()
                sender.tell = self._tell
                self.publishers.append(sender)
        self._links: dict[str, dist.ProcessGroup] = {}  # a follower's side of its node's groups
        self.dtype = getattr(torch, p.dtype)
        self.wire = WireFormat(self.dtype, p.precision)
        self._layout: FanoutLayout | None = None
        self._staged: torch.Tensor | None = None  # this rank's share of every bucket, pinned host
        self._offsets: list[int] = []  # where bucket k's share starts in `_staged`
        # The publish thread's own CUDA stream: its copies, and (through torch's NCCL streams,
        # which wait on the current stream) its collectives, are never queued on the training
        # stream. `_ready`, recorded on the training stream when the staged copy is issued, is
        # what the publish stream waits on first (see "Streams" in the module docstring).
        cuda = device.type == "cuda" and p.backend == "nccl"
        self._stream = torch.cuda.Stream(device) if cuda else None
        self._ready = torch.cuda.Event() if cuda else None
        if cuda and self._gather is not None:
            # The gather group's NCCL communicator is created here, by the training thread, at
            # the same point on every rank (ProcessGroupNCCL creates it lazily at the first
            # collective: it would otherwise be created from the publish thread mid-step).
            dist.all_reduce(torch.zeros(1, device=device), group=self._gather)
            torch.cuda.current_stream(device).synchronize()
        self._thread: threading.Thread | None = None
        self._outcome: Outcome | None = None
        self._broken = ""
        # Test and metrics hooks: called with ("gathered", version, round, bucket), ("published", version).
        self.on_event: Callable[..., None] = lambda *event: None

    # -- the trainer's side -----------------------------------------------------------------------

    @property
    def staged_bytes(self) -> int:
        return 0 if self._staged is None else self._staged.numel()

    def stage(self, pieces: Iterable[tuple[str, tuple[int, ...], int, torch.Tensor]]) -> None:
        """Every rank: copy its own rows of every HF tensor ((name, full shape, first row,
        rows), payload/train/parallel.py own_hf_rows) to its pinned host share, cast to the wire
        dtype. No communication but the first call's (the layout's headers). Waits first for
        the publish in flight, which reads the same buffer: take its outcome with `wait` first."""
        self.wait()
        if self._broken:
            raise FanOutBroken(self._broken)
        pieces = list(pieces)
        if self._layout is None:
            headers = [Piece(n, tuple(s), start, t.shape[0] if s else 1) for n, s, start, t in pieces]
            everyone: list = [None] * len(self._replica_ranks or [0])
            if self._gather is not None:
                dist.all_gather_object(everyone, headers, group=self._gather)
            else:
                everyone = [headers]
            me = (self._replica_ranks or [self.rank]).index(self.rank)
            self._layout = FanoutLayout.of(everyone, me, self.dtype.itemsize, self.config.publisher.bucket_bytes)
            self._offsets = [0]
            for k in range(len(self._layout.nbytes)):
                self._offsets.append(self._offsets[-1] + self._layout.share(k, me))
            self._staged = torch.empty(self._offsets[-1], dtype=torch.uint8, pin_memory=self.device.type == "cuda")
        layout = self._layout
        ordered = [(f"{i}", pieces[i][3]) for k in range(len(layout.nbytes)) for i in layout.mine[k]]
        if ordered:
            # Packed on the GPU (one copy per run of rows), then one device-to-host copy: the stall.
            self._staged.copy_(pack(ordered, self.dtype).flat)
        if self._ready is not None:
            self._ready.record()  # on the training stream: the publish stream starts after it

    def start(self, version: int) -> None:
        """Every rank: publish the staged shares on a thread; returns at once."""
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
        """The outcome of the publish in flight (rank 0: every node's servers); None if none."""
        if self._thread is None:
            return None
        self._thread.join()
        self._thread = None
        return self._outcome

    # -- the publish thread -----------------------------------------------------------------------

    def _run(self, version: int) -> None:
        if self.device.type == "cuda":  # a thread starts on device 0: NCCL must see this rank's GPU
            torch.cuda.set_device(self.device)
        if self._stream is None:
            return self._publish(version)
        self._stream.wait_event(self._ready)
        try:
            with torch.cuda.stream(self._stream):
                self._publish(version)
        finally:
            # Before `wait` returns (and `stage` rewrites the pinned share this stream copies
            # from, or the buckets are freed): everything queued on the publish stream is done.
            self._stream.synchronize()

    def _publish(self, version: int) -> None:
        done: list[str] = []
        errors: list[str] = []
        left_out: dict[str, str] = {}
        try:
            for j in range(self.rounds):
                stream = self._gathered(version, j)
                if j >= len(self.servers):  # no server of this node this round: its gathers only
                    for _ in stream:
                        pass
                elif self.local_rank == 0:
                    try:
                        done += self.publishers[j].publish_buckets(self._told(stream), version)
                    except PublishError as exc:
                        errors.append(str(exc))
                    finally:
                        left_out.update(self.publishers[j].left_out)
                        self._tell(("end",))
                else:
                    self._follow(stream)
        except Exception as exc:  # noqa: BLE001 - reported to the trainer, never lost in a thread
            log.exception("publish of version %d failed", version)
            errors.append(f"{type(exc).__name__}: {exc}")
            self._broken = f"version {version}'s publish failed in a collective: {errors[-1]}"
        if self.local_rank == 0:
            outcomes = [None] * self.nodes if self.rank == 0 else None
            try:
                if self._heads is not None:
                    dist.gather_object((done, errors, left_out), outcomes, dst=0, group=self._heads)
                else:
                    outcomes = [(done, errors, left_out)]
            except Exception as exc:  # noqa: BLE001 - a head that never came: its servers did not take it
                self._broken = self._broken or f"version {version}: outcome gather failed: {exc}"
                outcomes = [(done, errors + [f"{type(exc).__name__}: {exc}"], left_out)] if self.rank == 0 else None
            if self.rank == 0:
                urls = [url for d, _, _ in outcomes for url in d]
                failures = "; ".join(e for _, es, _ in outcomes for e in es)
                self._outcome = Outcome(version, urls, failures if not urls or self._broken else "",
                                        {url: why for _, _, lo in outcomes for url, why in lo.items()})
        if self._stream is not None:
            self._stream.synchronize()
        self.on_event("published", version)

    def _gathered(self, version: int, round_: int) -> Iterator[FlatBucket]:
        """`_assembled`, and a rank whose stream fails (in the gather or not) has left its
        replica's collectives out of step: the fan-out is broken."""
        produced = 0
        try:
            for bucket in self._assembled(version, round_):
                yield bucket
                produced += 1
        except Exception as exc:
            self._broken = f"version {version}'s gather of bucket {produced} failed: {exc}"
            raise

    def _assembled(self, version: int, round_: int) -> Iterator[FlatBucket]:
        """Bucket k, assembled on every rank of the replica from each rank's staged share: one
        all-gather of equal (padded) shares, then each rank's rows placed at their offsets."""
        layout, device = self._layout, self._send_device()
        replica = len(self._replica_ranks or [0])
        me = (self._replica_ranks or [self.rank]).index(self.rank)
        slots: list[torch.Tensor | None] = [None] * SLOTS
        for k, total in enumerate(layout.nbytes):
            width = max(layout.share(k, r) for r in range(replica))
            send = torch.zeros(width, dtype=torch.uint8, device=device)
            mine = layout.share(k, me)
            send[:mine].copy_(self._staged[self._offsets[k] : self._offsets[k] + mine], non_blocking=True)
            if self._gather is not None:
                received = torch.empty(replica * width, dtype=torch.uint8, device=device)
                dist.all_gather_into_tensor(received, send, group=self._gather)
            else:
                received = send
            slot = slots[k % SLOTS]
            if slot is None or slot.numel() < total:
                slot = slots[k % SLOTS] = torch.empty(max(total, self.config.publisher.bucket_bytes),
                                                      dtype=torch.uint8, device=device)
            for r in range(replica):
                at = r * width
                for offset, n in layout.places[k][r]:
                    slot[offset : offset + n].copy_(received[at : at + n])
                    at += n
            # Freed now, not when the next bucket's are assigned over them: held until then they
            # cost one bucket more a GPU than the memory model counts (measured on an H100: 6
            # buckets held at a one-rank gather, tests/payload/sync/test_sync_publish_memory_gpu.py).
            # The stream-ordered allocator hands their blocks only to work queued after the copies.
            del send, received
            self.on_event("gathered", version, round_, k)
            bucket = FlatBucket(layout.names[k], [str(self.dtype).removeprefix("torch.")] * len(layout.names[k]),
                                layout.shapes[k], slot[:total])
            # In the servers' precision (payload/sync/wire.py): fp8 quantizes the gathered bf16
            # bucket on this GPU; what is sent halves. Every GPU of the node does it alike.
            yield bucket if self.wire.precision == "bf16" else self.wire.pack(bucket.tensors())

    # -- local rank 0 leads, the node's other GPUs follow -----------------------------------------

    def _tell(self, message: tuple) -> None:
        if self._node_group is not None:
            dist.broadcast_object_list([message], src=self.head, group=self._node_group)

    def _told(self, stream: Iterator[FlatBucket]) -> Iterator[FlatBucket]:
        """The stream, each pull announced first: the followers gather in step."""
        while True:
            self._tell(("pull",))
            try:
                bucket = next(stream)
            except StopIteration:
                return
            yield bucket

    def _follow(self, stream: Iterator[FlatBucket]) -> None:
        """Do on this GPU what local rank 0 does on its side of each server group, as told."""
        pulled: dict[int, FlatBucket] = {}
        pending: list[tuple[str, dist.Work]] = []
        started: dict[str, float] = {}  # when this GPU posted each server's broadcast in flight
        while True:
            box = [None]
            dist.broadcast_object_list(box, src=self.head, group=self._node_group)
            kind, *args = box[0]
            if kind == "pull":
                bucket = next(stream, None)
                if bucket is not None:
                    pulled[len(pulled)] = bucket
            elif kind == "join":
                url, name, address, port, world_size, connect_s = args
                p = self.config.publisher
                try:  # the rendezvous waits at most what its leader's control phase has left
                    self._links[url] = init_weights_update_group(
                        backend=p.backend, master_address=address, master_port=port,
                        rank=self.local_rank, world_size=world_size, group_name=name,
                        timeout=group_timeout(p.backend, p.bucket_timeout_s),
                        connect_timeout=None if connect_s is None else timedelta(seconds=connect_s))
                except Exception as exc:  # noqa: BLE001 - rank 0's side failed too; it tells "drop"
                    log.warning("weight-update group %s with %s did not form: %s", name, url, exc)
            elif kind == "start":
                index, urls = args
                for url in urls:
                    if url in self._links:  # the same bytes as rank 0's: received in place
                        started[url] = time.monotonic()
                        pending.append((url, dist.broadcast(pulled[index].flat, src=0, group=self._links[url],
                                                            async_op=True)))
            elif kind == "drop":
                # Never waited for: a broadcast in flight into a dropped server is aborted in the
                # background bucket_timeout_s after this GPU posted it (within the server
                # groups' 3 x bucket_timeout_s NCCL timeout), like its leader's side.
                url = args[0]
                group = self._links.pop(url, None)
                out = [work for u, work in pending if u == url]
                if group is not None and self.config.publisher.backend == "nccl":
                    at = started[url] + self.config.publisher.bucket_timeout_s if out else time.monotonic()
                    abort_later(group, at, skip=lambda out=out: all(w.is_completed() for w in out))
                pending = [(u, work) for u, work in pending if u != url]
                started.pop(url, None)
            elif kind == "finish":
                for url, work in pending:  # rank 0 saw these servers take the bucket
                    work.wait()
                pending = []
            elif kind == "end":
                for _ in stream:  # never: rank 0 pulls every bucket (publish_buckets drains)
                    pass
                return

    def _send_device(self) -> torch.device:
        return self.device if self.config.publisher.backend == "nccl" else torch.device("cpu")

    def roll_back(self, urls: list[str], model_path: str, version: int) -> list[str]:
        """Rank 0: servers the probe found serving wrong weights reload the last good weights,
        `model_path` (the newest HF export, or the base model before any), as `version`:
        paused, /update_weights_from_disk (SGLang 0.5.23 loads it outside a weight-update
        session and, while paused, without waiting for the update lock:
        tokenizer_manager.update_weights_from_disk), then resumed. The ones that reloaded
        are returned; any other stays paused until a publish completes on it."""
        restored = []
        for url in urls:
            client = RolloutServerClient(url, self.config.publisher.timeout_s)
            try:
                client.pause_generation(self.config.publisher.pause_mode)
                client.update_weights_from_disk(model_path=model_path, weight_version=str(version))
                client.continue_generation()
                restored.append(url)
                log.warning("%s rolled back to %s (version %d)", url, model_path, version)
            except RolloutServerError as exc:
                log.error("%s: rollback to %s failed (left paused): %s", url, model_path, exc)
            finally:
                client.close()
        return restored

    def close(self) -> None:
        self.wait()
        for publisher in self.publishers:
            publisher.close()
        for group in self._links.values():
            destroy_weights_update_group(group)
        self._links.clear()


