"""Publish the trainer's weights to the rollout servers, the way SGLang 0.5.23 takes them.

One publish (sglang/srt/entrypoints/http_server.py routes, io_struct.py request classes):

    probe every server (GET /model_info, seconds): every one that answers takes part, whatever
        version it serves (a server that missed publishes gets this one in full: no disk load)
    a weight-update group per server, formed once and kept (its own name, its own port)
    POST /pause_generation {mode: retract | in_place}      the servers taking part
    POST /begin_weight_update {}                            (0.5.23 refuses updates outside a session)
    per bucket of <= bucket_bytes of HF-named tensors, packed into one flat byte tensor (bf16, or
        with precision fp8 SGLang's block FP8 + weight_scale_inv: payload/sync/wire.py):
        POST /update_weights_from_distributed {names, dtypes, shapes, group_name,
             load_format: "flattened_bucket", flush_cache, weight_version}
             (on a thread per server: it allocates the bucket, joins ONE broadcast, loads)
        broadcast the flat bucket on every server's group (async), and meanwhile gather and
        pack a later bucket (three rotating buffers); wait at most bucket_timeout_s
    the last bucket carries weight_version; flush_cache=True on it in retract mode, never in in_place
    POST /end_weight_update {}, check weight_version == the version, POST /continue_generation

Pause modes (sglang/srt/managers/scheduler.py, scheduler_components/weight_updater.py of 0.5.23).
`retract` (the default) moves running requests back to the waiting queue and frees their KV
cache; the flush on the last bucket then empties the radix cache (flush_cache ignores the waiting
queue while paused), so after the publish every token is computed from the new weights, at the
cost of re-prefilling every running request's context. `in_place` only sets the paused flag:
running requests keep their KV cache and go on decoding with the new weights after
/continue_generation. A flush cannot go with it: 0.5.23's flush_cache refuses while any request
is running, and the update then answers success false ("Weights were updated, but the cache was
not flushed"), so in_place sends flush_cache=False on every bucket. The radix cache then keeps
prefixes computed with the old weights (the requests paused in place put theirs in when they
finish), and new requests that share a prefix reuse them: a hot prefix (the chat template, a
group's prompt) can keep a version's KV for as long as it stays cached. 0.5.23 offers no way to
flush it later under load (/flush_cache, deferred or not, needs a scheduler with nothing running
or waiting, which a fed server never is), and the versions a sample carries (SGLang's
per-token weight_versions spans, payload/rollout/client.py) cover only its output tokens, so
that KV's age is not bounded by max_staleness. That is why retract stays the default, and why
a job with in_place renders its servers' command with --disable-radix-cache
(payload/rollout/sglang_args.py: no prefix outlives its request; each of a group's samples then
prefills the prompt itself).
Mixed-version samples are still trained correctly: every output token keeps the version that
sampled it (the spans travel to the trainer's batch; rollout.stale_tokens mask leaves those more
than max_staleness behind out of the loss), and the loss weights each token by truncated
importance sampling against the logprob the server reported for it (payload/train/loss.py TIS,
rollout logprobs carried per token by payload/train/batch.py), and that logprob is the one of
the distribution the token was actually sampled from, whatever weights computed its KV.

Why a group per server. SGLang 0.5.23 forms its side with `init_custom_process_group` and no
timeout (InitWeightsUpdateGroupReqInput has no such field: torch's default, 30 minutes), and its
scheduler is blocked inside the broadcast while it receives; destroy_weights_update_group goes
through the same blocked scheduler. So once a broadcast is stuck, a server cannot be freed from
outside for 30 minutes. With one group for all servers, one server dying mid-bucket stalls the
ring for every other server; with a group per server its only other member is the trainer, who
stops waiting after bucket_timeout_s, aborts that group (NCCL; gloo's own timeout is the same
deadline) and goes on with the others. A server keeps several named groups (its
`_model_update_group` dict), so groups are formed once and reused; a failed one is dropped and
a new one formed when the server answers again.

Failures, bounded. A server whose bucket fails or times out leaves this publish: it holds
partly updated weights, so it is not resumed (it stays paused, serving nothing) and it gets
the next publish in full, which sends every tensor anyway. A server the post-publish probe
(payload/sync/probe.py, every version) finds serving wrong weights is rolled back: roll_back
reloads the last good export from FSx with /update_weights_from_disk and resumes it. The publish fails (PublishError) only if no server took
the version. Worst case per publish: one bucket_timeout_s for all dead servers together
(estimate/costs.py DeadServerBound): a server whose bucket is not taken grace_s (bucket_timeout_s
/ (2 x servers); a new group's first bucket, which creates its NCCL communicators on both sides,
first_bucket_s; forming the group is a phase of its own, form_s) after we are ready to go on is
dropped without waiting (its broadcast aborted in
the background bucket_timeout_s after it started), once per publish; the control calls before
the first bucket and after the last share one deadline each, control_s (bucket_timeout_s / 4;
the fan-out: / (4 x rounds)). A server that timed out while still answering HTTP is wedged in
the broadcast (its scheduler waits out SGLang's 30 minutes): it is left out of later publishes
until it reports another version (restarted) or stops answering, so it costs no publish twice.

Bytes and seconds at p5en-48 (estimate/costs.py, `python -m payload plan --env p5en-48`):
0.5.23 delivers every tensor to every TP rank of a server, so each server receives the whole
bf16 model (Qwen3-30B-A3B 61 GB, Qwen3-235B-A22B 470 GB) whatever feeds it. This class is one
server's sender: payload/sync/fanout.py runs one per server on its node's local rank 0, with
`trainer_ranks` = the node's GPUs in the group (they follow through `tell`), fed the replica's
all-gathered buckets through `publish_buckets`: a server is paused 2.5 s (30B, TP4) / 9.1 s
(235B, TP8) at p5en-48 as modelled (the broadcast calibrated on miles' measured publish,
estimate/costs.py PUBLISH_BROADCAST_ACHIEVED), against 52 s / 401 s of transfer for rank 0
feeding all.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import timedelta

import torch
import torch.distributed as dist

from payload.common.ports import free_port
from payload.sync.bucket import FlatBucket
from payload.sync.client import PauseMode, RolloutServerClient, RolloutServerError
from payload.sync.group import destroy_weights_update_group, init_weights_update_group
from payload.sync.wire import Precision, WireFormat
from estimate.costs import DeadServerBound
from spec.job import PUBLISH_BUCKET_MB

log = logging.getLogger(__name__)

LOAD_FORMAT = "flattened_bucket"
# torch's default process-group timeout, which SGLang 0.5.23 gives its side of the group: a
# server stuck in a broadcast stays stuck this long (then NCCL's watchdog takes it down).
SGLANG_GROUP_TIMEOUT_S = 1800.0


def group_timeout(backend: str, bucket_timeout_s: float) -> timedelta:
    """A server group's timeout. gloo: the collective's own deadline, which ends a dropped
    broadcast. NCCL: 3 x bucket_timeout_s (estimate/costs.py DeadServerBound.group_s), after the
    background abort of a dropped broadcast (bucket_timeout_s after it started, on every rank of
    the group): we abort the communicator before its watchdog would (taking the trainer down)."""
    return timedelta(seconds=(1 if backend == "gloo" else 3) * bucket_timeout_s)


def abort_later(group: dist.ProcessGroup, at: float, skip: Callable[[], bool] = lambda: False) -> None:
    """Abort NCCL `group` at time.monotonic() `at`, on a daemon timer (never on the publish's own
    path: an abort with a kernel in flight may take a while), unless `skip()` says by then that
    its broadcast completed after all."""
    def abort():
        if not skip():
            dist.distributed_c10d._abort_process_group(group)

    timer = threading.Timer(max(0.0, at - time.monotonic()), abort)
    timer.daemon = True
    timer.start()


class PublishError(RuntimeError):
    """A publish reached no server (each failed one is held paused, see the module docstring)."""


def _own_address() -> str:
    # The trainer pod's IP (downward API); outside Kubernetes, whatever the hostname resolves to.
    return os.environ.get("POD_IP") or socket.gethostbyname(socket.gethostname())


def buckets(named_tensors: Iterable[tuple[str, torch.Tensor]], bucket_bytes: int, itemsize: int | None = None,
            wire_bytes: Callable[[str, torch.Tensor], int] | None = None) -> Iterator[list[tuple[str, torch.Tensor]]]:
    """Group tensors in order into buckets of at most `bucket_bytes` (a larger tensor goes alone);
    `itemsize`: bytes an element takes on the wire (default: the tensor's own); `wire_bytes`:
    bytes a tensor takes on the wire, where that is not numel x itemsize (WireFormat.nbytes)."""
    bucket: list[tuple[str, torch.Tensor]] = []
    size = 0
    for name, tensor in named_tensors:
        nbytes = wire_bytes(name, tensor) if wire_bytes else tensor.numel() * (itemsize or tensor.element_size())
        if bucket and size + nbytes > bucket_bytes:
            yield bucket
            bucket, size = [], 0
        bucket.append((name, tensor))
        size += nbytes
    if bucket:
        yield bucket


@dataclass
class _Link:
    """One server's weight-update group, as this process holds it."""

    group: dist.ProcessGroup
    name: str
    # A broadcast completed on it: its NCCL communicators exist (both sides create them lazily,
    # inside the first broadcast, which is allowed first_bucket_s for that).
    proven: bool = False


class WeightPublisher:
    @dataclass
    class Config:
        servers: list[str] = field(default_factory=list)
        # GPUs of one server that join the group: its tensor-parallel size (SGLang's EP
        # lives inside TP, so EP adds none).
        ranks_per_server: int = 1
        backend: str = "nccl"
        # Tensors go out in the rollout engine's dtype, cast while packed.
        dtype: str = "bfloat16"
        # fp8: linear weights go as SGLang's block FP8 (+ weight_scale_inv), quantized while
        # packed (payload/sync/wire.py); the servers must serve a block-FP8 checkpoint.
        precision: Precision = "bf16"
        # SGLang allocates a bucket on every TP rank while it receives, and each trainer GPU
        # keeps four (estimate.footprint): the job's rollout.publish_bucket_mb (auto: at most 4 GiB,
        # NeMo-RL's refit size; 470 GB of 235B is 110 such buckets, 5 ms of overhead each).
        bucket_bytes: int = PUBLISH_BUCKET_MB << 20
        # retract: running requests re-prefill on the new weights; in_place: they keep their KV
        # cache and no flush is sent (see the module docstring for what that leaves stale).
        pause_mode: PauseMode = "retract"
        group_name: str = "rl-weights"
        master_address: str = ""
        # One HTTP call (a bucket's update waits for its broadcast; begin/end/pause are quick).
        timeout_s: float = 600.0
        # What all dead servers together may cost a publish (estimate/costs.py DeadServerBound;
        # 235B at p5en-48: a 4 GiB bucket reaches a server in ~28 ms). A broadcast a dropped
        # server left in flight is aborted this long after it started.
        bucket_timeout_s: float = 30.0
        # A server whose bucket is not taken this long after we are ready to go on is dropped
        # from the publish; None: DeadServerBound's bucket_timeout_s / (2 x servers).
        grace_s: float | None = None
        # Deadline of each control phase (probe, group, pause, begin before the first bucket;
        # end, version check, continue after the last); None: DeadServerBound's
        # bucket_timeout_s / 4 (one round). A server not through by then is dropped.
        control_s: float | None = None
        # A server that does not answer /model_info within this is down for this publish.
        probe_timeout_s: float = 5.0
        # Trainer GPUs in each server's group, as group ranks 0..trainer_ranks-1 (the server's
        # TP ranks at rank_offset trainer_ranks): this process is rank 0, the sender; the
        # others are its node's other GPUs (payload/sync/fanout.py), told what to do by `tell`.
        trainer_ranks: int = 1

        def build(self) -> "WeightPublisher":
            return WeightPublisher(self)

    def __init__(self, config: Config):
        self.config = config
        self.clients = [RolloutServerClient(url, config.timeout_s) for url in config.servers]
        self.device = torch.device("cuda", torch.cuda.current_device()) if config.backend == "nccl" else torch.device("cpu")
        self.dtype = getattr(torch, config.dtype)
        self.wire = WireFormat(self.dtype, config.precision)
        self.version: int | None = None  # the last version published
        self._links: dict[str, _Link] = {}
        # Servers left paused with partly updated (or wrong) weights until a publish completes on them.
        self.held: set[str] = set()
        self.left_out: dict[str, str] = {}
        self._down: list[str] = []
        # Servers that timed out inside a broadcast: (the version they reported, until when they
        # are left out). Their scheduler is blocked in it; a restart shows as another version.
        self._wedged: dict[str, tuple[str | None, float]] = {}
        self._last_versions: dict[str, str | None] = {}
        # An update call to a dead server can hold a thread up to bucket_timeout_s; probes and
        # the next calls must not queue behind it.
        self._pool = ThreadPoolExecutor(max_workers=max(4, 4 * len(self.clients)))
        bound = DeadServerBound(config.bucket_timeout_s, len(self.clients), 1)
        self.grace_s = bound.grace_s if config.grace_s is None else config.grace_s
        self.control_s = bound.control_s if config.control_s is None else config.control_s
        # A group's first broadcast creates its NCCL communicators on both sides (DeadServerBound).
        self.first_bucket_s = max(bound.first_bucket_s, self.grace_s)
        self.form_s = max(bound.form_s, self.control_s)  # forming a server's group: a phase of its own
        self._started: dict[str, float] = {}  # when each server's in-flight broadcast started
        self._buffers: list[torch.Tensor | None] = [None, None, None]
        # The group's other trainer ranks follow this one's every step on their side of the
        # groups (payload/sync/fanout.py sends it to them; alone, nothing to tell): ("join", url, name,
        # address, port, world_size), ("pull",), ("start", index, urls), ("drop", url), ("finish",).
        self.tell: Callable[[tuple], None] = lambda message: None

    # -- fan-out -------------------------------------------------------------------------------

    @staticmethod
    def _left(deadline: float | None) -> float | None:
        return None if deadline is None else max(deadline - time.monotonic(), 1e-3)

    def _each(self, call, clients, deadline: float | None = None) -> dict[str, BaseException | None]:
        """`call(c)` for every client at once, each waited for until `deadline` at most (a call
        still out then is an error; it was given the time left as its own HTTP timeout)."""
        futures = [(c.url, self._pool.submit(call, c)) for c in clients]
        errors: dict[str, BaseException | None] = {}
        for url, f in futures:
            try:
                f.result(timeout=self._left(deadline))
                errors[url] = None
            except TimeoutError:
                errors[url] = TimeoutError(f"not through within the phase's {self.control_s:g} s")
            except BaseException as exc:  # noqa: BLE001 - reported per server by the caller
                errors[url] = exc
        return errors

    def _keep(self, call, clients, what: str, failed: dict[str, str], deadline: float | None = None
              ) -> list[RolloutServerClient]:
        """The clients for which `call` succeeded (by `deadline`); the others are recorded in `failed`."""
        errors = self._each(call, clients, deadline)
        for url, error in errors.items():
            if error is not None:
                failed[url] = f"{what}: {error}"
        return [c for c in clients if errors[c.url] is None]

    # -- who takes part ------------------------------------------------------------------------

    def participants(self, deadline: float | None = None) -> list[RolloutServerClient]:
        """Every server that answers /model_info in probe_timeout_s (and by `deadline`), whatever
        it serves: a publish sends the whole model, so a server that missed versions (or was
        restarted on an older export) is brought up to date by this one."""
        def probe(c: RolloutServerClient):
            try:
                left = self._left(deadline)
                return c.weight_version(timeout_s=min(self.config.probe_timeout_s, left or float("inf")))
            except RolloutServerError as exc:
                log.warning("%s is down for this publish: %s", c.url, exc)
                return None

        def answer(future):
            try:
                return future.result(timeout=self._left(deadline))
            except TimeoutError:
                return None

        versions = {c.url: answer(f) for c, f in [(c, self._pool.submit(probe, c)) for c in self.clients]}
        self._last_versions = versions
        self._down = [url for url, v in versions.items() if v is None]
        up = []
        for c in self.clients:
            if versions[c.url] is None:
                self._drop(c.url)  # its group (if any) is gone with the server's process
                self._wedged.pop(c.url, None)
                continue
            version, until = self._wedged.get(c.url, (None, 0.0))
            if c.url in self._wedged and versions[c.url] == version and time.monotonic() < until:
                log.warning("%s is still blocked in a broadcast of an earlier publish: left out", c.url)
                continue
            self._wedged.pop(c.url, None)
            up.append(c)
        return up

    # -- the groups ----------------------------------------------------------------------------

    def _group_timeout(self) -> timedelta:
        return group_timeout(self.config.backend, self.config.bucket_timeout_s)

    def _connect(self, c: RolloutServerClient, deadline: float | None = None) -> None:
        """Form `c`'s own weight-update group (a new name each time: torch refuses a name
        already taken in the process, and a broken group is never reused)."""
        name = f"{self.config.group_name}-{uuid.uuid4().hex[:8]}"
        address = self.config.master_address or _own_address()
        port = free_port("")  # every interface: the servers connect from their nodes
        world_size = self.config.trainer_ranks + self.config.ranks_per_server
        left = self._left(deadline)
        # The rendezvous waits for every member at most the phase's time left (the followers too).
        connect = timedelta(seconds=left) if left is not None else None
        self.tell(("join", c.url, name, address, port, world_size, left))
        joined = self._pool.submit(c.init_weights_update_group, master_address=address, master_port=port,
                                   rank_offset=self.config.trainer_ranks, world_size=world_size, group_name=name,
                                   backend=self.config.backend, timeout_s=left)
        try:
            group = init_weights_update_group(backend=self.config.backend, master_address=address, master_port=port,
                                              rank=0, world_size=world_size, group_name=name,
                                              timeout=self._group_timeout(), connect_timeout=connect)
        except Exception as exc:
            self.tell(("drop", c.url))
            raise PublishError(f"weight-update group {name} did not form at {address}:{port}: {exc}") from exc
        try:
            joined.result(timeout=self._left(deadline))
        except (RolloutServerError, TimeoutError):
            self.tell(("drop", c.url))
            destroy_weights_update_group(group)
            raise
        self._links[c.url] = _Link(group, name)
        log.info("weight-update group %s formed with %s (world %d)", name, c.url, world_size)

    def _drop(self, url: str, abort: bool = False, skip: Callable[[], bool] = lambda: False) -> None:
        """Forget `url`'s group. A group left mid-collective is never destroyed (a broken
        communicator can hang in teardown); NCCL's is aborted, which frees our side's kernel:
        in the background, bucket_timeout_s after its broadcast started (now if none is out),
        unless `skip()` says by then that it completed. The followers do the same on their side."""
        link = self._links.pop(url, None)
        if link is not None:
            self.tell(("drop", url))
        if link is not None and abort and self.config.backend == "nccl":
            started = self._started.get(url)
            abort_later(link.group, time.monotonic() if started is None else started + self.config.bucket_timeout_s,
                        skip)
        self._started.pop(url, None)

    def disconnect(self) -> None:
        links, self._links = self._links, {}
        by_url = {c.url: c for c in self.clients}
        for url, link in links.items():
            try:
                by_url[url].destroy_weights_update_group(link.name)
            except RolloutServerError as exc:  # a restarted server never had it
                log.debug("%s: destroy_weights_update_group: %s", url, exc)
            destroy_weights_update_group(link.group)

    # -- publishing ----------------------------------------------------------------------------

    def _packed(self, named_tensors: Iterable[tuple[str, torch.Tensor]]) -> Iterator[FlatBucket]:
        """Buckets gathered (by pulling the iterator) and packed into three rotating buffers:
        bucket i reuses bucket i-3's buffer, whose broadcasts `_send` has finished by then."""
        for i, bucket in enumerate(buckets(named_tensors, self.config.bucket_bytes, wire_bytes=self.wire.nbytes)):
            moved = [(n, t.detach().to(self.device)) for n, t in bucket]
            total = self.wire.packed_bytes(moved)
            slot = i % len(self._buffers)
            if self._buffers[slot] is None or self._buffers[slot].numel() < total:
                self._buffers[slot] = torch.empty(max(total, self.config.bucket_bytes), dtype=torch.uint8, device=self.device)
            yield self.wire.pack(moved, self._buffers[slot])

    def _start_bucket(self, index: int, bucket: FlatBucket, members, last: bool, version: int) -> dict:
        """Per server: (its HTTP call, our side of its broadcast), both in flight."""
        self.tell(("start", index, [c.url for c in members]))
        in_flight = {}
        for c in members:
            link = self._links[c.url]
            meta = dict(names=bucket.names, dtypes=bucket.dtypes, shapes=bucket.shapes, group_name=link.name,
                        load_format=LOAD_FORMAT, flush_cache=last and self.config.pause_mode != "in_place",
                        weight_version=str(version) if last else None)
            # The call ends with the background abort of its broadcast at the latest.
            future = self._pool.submit(c.update_weights_from_distributed, **meta,
                                       timeout_s=self.config.bucket_timeout_s)
            self._started[c.url] = time.monotonic()
            in_flight[c.url] = (future, dist.broadcast(bucket.flat, src=0, group=link.group, async_op=True))
        return in_flight

    def _finish_bucket(self, in_flight: dict, failed: dict[str, str]) -> None:
        """Wait for every server's bucket, at most grace_s from now (when we are ready to go
        on; first_bucket_s for a group's first broadcast, which creates its communicators); a
        server that fails or is late is recorded in `failed` and dropped from the rest of the
        publish without waiting for it: its broadcast stays in flight and is aborted in the
        background (`_drop`). Each server is late at most once a publish, so dead servers cost
        at most servers x grace_s in all (estimate/costs.py DeadServerBound)."""
        now = time.monotonic()
        allowed = {url: self.grace_s if self._links[url].proven else self.first_bucket_s for url in in_flight}
        pending = dict(in_flight)
        while pending:
            for url, (future, handle) in list(pending.items()):
                if future.done() and future.exception() is not None:
                    failed[url] = f"bucket: {future.exception()}"
                elif future.done() and handle.is_completed():
                    try:
                        handle.wait()
                        self._links[url].proven = True
                    except Exception as exc:  # noqa: BLE001 - gloo: the peer went away
                        failed[url] = f"bucket broadcast: {exc}"
                else:
                    if time.monotonic() > now + allowed[url]:
                        failed[url] = f"bucket not taken within {allowed[url]:g} s of the others"
                        self._wedged[url] = (self._last_versions.get(url), time.monotonic() + SGLANG_GROUP_TIMEOUT_S)
                    else:
                        continue
                del pending[url]
            if pending:
                time.sleep(0.002)
        for url, (future, _) in in_flight.items():
            if url in failed:
                # Taken after all by the time of the abort: a slow server, not a wedged one.
                self._drop(url, abort=True, skip=lambda url=url, future=future: self._taken_late(url, future))
        self.tell(("finish",))

    def _taken_late(self, url: str, future) -> bool:
        if future.done() and future.exception() is None:
            self._wedged.pop(url, None)
            return True
        return False

    def publish(self, named_tensors: Iterable[tuple[str, torch.Tensor]], version: int) -> list[str]:
        """Send HF-named tensors (call on trainer rank 0; the iterator may gather collectively)
        as weight `version` to every server that is up; returns the URLs that now serve it.
        The iterator is always drained, whatever happens, so that ranks gathering with it
        never hang. A server that fails stays paused (held) until a later publish completes
        on it; PublishError only when no server took the version."""
        return self.publish_buckets(self._packed(named_tensors), version)

    def publish_buckets(self, packed: Iterable[FlatBucket], version: int) -> list[str]:
        """`publish` from buckets already packed (payload/sync/fanout.py gathers them). Bucket
        i's memory must stay untouched until bucket i+3 is pulled (three are alive at once:
        one being pulled, one held back, one being broadcast)."""
        iterator = iter(packed)
        failed: dict[str, str] = {}
        done: list[RolloutServerClient] = []
        started = time.monotonic()
        # Control phases: every call before the first bucket shares one deadline, every call
        # after the last another (all servers' calls at once): a server not through is dropped.
        deadline = started + self.control_s
        left = lambda: self._left(deadline)  # noqa: E731
        try:
            members = self.participants(deadline)
            new = [c for c in members if c.url not in self._links]
            if new:  # once per server life: its own deadline, then the control phase's again
                formed_by = time.monotonic() + self.form_s
                for c in new:
                    try:
                        self._connect(c, formed_by)
                    except (PublishError, RolloutServerError) as exc:
                        failed[c.url] = f"init_weights_update_group: {exc}"
                deadline = time.monotonic() + self.control_s
            members = [c for c in members if c.url in self._links]
            members = self._keep(lambda c: c.pause_generation(self.config.pause_mode, timeout_s=left()), members,
                                 "pause_generation", failed, deadline)
            opened = self._keep(lambda c: c.begin_weight_update(timeout_s=left()), members, "begin_weight_update",
                                failed, deadline)
            try:
                live = self._send(iterator, opened, version, failed)
            except Exception as exc:  # the gather or the pack: no server has the whole version
                for c in opened:
                    failed.setdefault(c.url, f"{type(exc).__name__}: {exc}")
                    self._drop(c.url, abort=True)  # a broadcast of ours may be left in flight
                live = []
            deadline = time.monotonic() + self.control_s
            # Sessions a failed server left open are closed too (it may be alive; errors
            # expected), beside the live ones' ends and within the same deadline.
            ended = self._each(lambda c: c.end_weight_update(timeout_s=left()), opened, deadline)
            for c in live:
                if ended[c.url] is not None:
                    failed[c.url] = f"end_weight_update: {ended[c.url]}"
            live = [c for c in live if ended[c.url] is None]
            served = self._each(lambda c: self._check(c, version, left()), live, deadline)
            for url, error in served.items():
                if error is not None:
                    failed[url] = f"version check: {error}"
            done = [c for c in live if served[c.url] is None]
            self._keep(lambda c: c.continue_generation(timeout_s=left()), done, "continue_generation", failed,
                       deadline)
        finally:
            for _ in iterator:  # every rank takes part in every gather, even after a failure
                pass
            self._buffers = [None] * len(self._buffers)  # 3 buckets of memory, back to training
        # This publish's servers that did not take it, and why (down ones too, not held).
        self.left_out = {url: "down: no answer to /model_info" for url in self._down} | failed
        self.held = (self.held | set(failed)) - {c.url for c in done}
        for url, reason in failed.items():
            log.error("%s left out of version %d (held paused until a publish completes on it): %s", url, version, reason)
        log.info("version %d published to %d of %d servers in %.1f s", version, len(done), len(self.clients),
                 time.monotonic() - started)
        if not done:
            raise PublishError(f"version {version} reached no server: " + "; ".join(f"{u}: {r}" for u, r in failed.items())
                               if failed else f"version {version}: no rollout server is up")
        self.version = version
        return [c.url for c in done]

    def _send(self, iterator, members, version: int, failed: dict[str, str]) -> list[RolloutServerClient]:
        # One bucket is held back so that the last, and only it, carries the version and (unless
        # paused in place) the cache flush; while bucket i-1 is broadcast, bucket i is gathered and packed. The
        # servers still in after each bucket get the next one.
        live = list(members)
        held: FlatBucket | None = None
        in_flight = None
        index = -1
        for index, bucket in enumerate(iterator):
            if held is not None:
                if in_flight is not None:
                    self._finish_bucket(in_flight, failed)
                live = [c for c in live if c.url not in failed]
                in_flight = self._start_bucket(index - 1, held, live, False, version)
            held = bucket
        if in_flight is not None:
            self._finish_bucket(in_flight, failed)
        live = [c for c in live if c.url not in failed]
        if held is not None:
            self._finish_bucket(self._start_bucket(index, held, live, True, version), failed)
        return [c for c in live if c.url not in failed]

    def _check(self, c: RolloutServerClient, version: int, left: float | None) -> None:
        """Loud, cheap: the server must now report the version (one that dropped a bucket or
        never loaded the last one does not)."""
        got = c.weight_version(timeout_s=min(self.config.probe_timeout_s, left or float("inf")))
        if got != str(version):
            raise RolloutServerError(f"serves {got!r} after publishing version {version}")

    def roll_back(self, urls: list[str], model_path: str, version: int) -> list[str]:
        """Servers that serve wrong weights (the post-publish probe, payload/sync/probe.py)
        reload the last good ones from disk (an HF export, or the base model) as `version`:
        paused, /update_weights_from_disk, resumed. Returns the URLs restored; one whose
        reload fails stays paused (held) until a publish completes on it."""
        chosen = [c for c in self.clients if c.url in urls]

        def restore(c: RolloutServerClient) -> None:
            c.pause_generation(self.config.pause_mode)
            c.update_weights_from_disk(model_path=model_path, weight_version=str(version))
            c.continue_generation()

        restored = []
        for url, error in self._each(restore, chosen).items():
            if error is not None:
                log.error("%s: rollback to %s failed (held paused): %s", url, model_path, error)
                self.held.add(url)
            else:
                restored.append(url)
                self.held.discard(url)
        return restored

    def close(self) -> None:
        self.disconnect()
        self._pool.shutdown(wait=False, cancel_futures=True)
        for c in self.clients:
            c.close()
