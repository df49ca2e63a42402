"""Publish the trainer's weights to the rollout servers, the way SGLang 0.5.23 takes them.

One publish (sglang/srt/entrypoints/http_server.py routes, io_struct.py request classes):

    probe every server (GET /model_info, seconds): the ones that answer take part; a
        server that is down is skipped, one that is behind is caught up in the background
    POST /pause_generation {mode: retract}                 the servers taking part
    POST /begin_weight_update {}                            (0.5.23 refuses updates outside a session)
    per bucket of ≤ bucket_bytes of HF-named tensors, packed bf16 into one flat byte tensor:
        POST /update_weights_from_distributed {names, dtypes, shapes, group_name,
             load_format: "flattened_bucket", flush_cache, weight_version}
             (on a thread per server: it allocates the bucket, joins ONE broadcast, loads)
        broadcast the flat bucket from rank 0 of the weight-update group (async), and
        meanwhile gather and pack a later bucket (three rotating GPU buffers)
    the last bucket carries weight_version and flush_cache=True
    POST /end_weight_update {}, POST /continue_generation
    check: every server taking part reports weight_version == the version, else PublishError

Bytes and seconds (payload/train/costs.py, p5en, 16 training nodes, 32 TP8 servers = 257 ranks):
Qwen3-30B-A3B sends 61 GB in 57 buckets, ~2.3 s; Qwen3-235B-A22B 470 GB in 438 buckets, ~15.5 s,
bound by the broadcast (bytes / ~37.5 GB/s). 0.5.23 delivers every tensor to every rank of a
server (its receiver broadcasts from group rank 0 to all and each TP rank slices), so expert
shards cannot go only to the ranks that hold them; one ring broadcast carries each byte over
each link once, so the number of servers adds latency, not time.

Pause mode: `retract` keeps every in-flight request (its tokens so far are not thrown away): the
scheduler puts it back in its waiting queue and recomputes its KV cache with the new weights
after continue_generation, so the cache can be flushed and no KV of the old weights survives.
`in_place` would keep that KV, but 0.5.23 then refuses flush_cache while requests run, and a
prefix cache of old-weight KV would outlive the update: silent off-policy prompts.

Failures: a bucket applies as it arrives (SGLang has no transaction). A failed publish restores
the last exported HF directory on the servers with /update_weights_from_disk at that export's
version, so none serves mixed weights, and re-forms the group before the next publish. A server
that was down or missed versions is brought to the latest export by a background thread (never
inside a step) and joins the group again at the next publish.
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import timedelta

import torch
import torch.distributed as dist

from payload.sync.bucket import FlatBucket, pack, packed_bytes
from payload.sync.client import PauseMode, RolloutServerClient, RolloutServerError
from payload.sync.group import destroy_weights_update_group, init_weights_update_group

log = logging.getLogger(__name__)

LOAD_FORMAT = "flattened_bucket"


class PublishError(RuntimeError):
    """A publish did not complete; the servers serve the last exported version (or the previous one)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def _own_address() -> str:
    # The trainer pod's IP (downward API); outside Kubernetes, whatever the hostname resolves to.
    return os.environ.get("POD_IP") or socket.gethostbyname(socket.gethostname())


def buckets(named_tensors: Iterable[tuple[str, torch.Tensor]], bucket_bytes: int, itemsize: int | None = None
            ) -> Iterator[list[tuple[str, torch.Tensor]]]:
    """Group tensors in order into buckets of at most `bucket_bytes` (a larger tensor goes alone);
    `itemsize`: bytes an element takes on the wire (default: the tensor's own)."""
    bucket: list[tuple[str, torch.Tensor]] = []
    size = 0
    for name, tensor in named_tensors:
        nbytes = tensor.numel() * (itemsize or tensor.element_size())
        if bucket and size + nbytes > bucket_bytes:
            yield bucket
            bucket, size = [], 0
        bucket.append((name, tensor))
        size += nbytes
    if bucket:
        yield bucket


@dataclass
class Export:
    """An HF-format directory on shared storage that every rollout server can read."""

    path: str
    version: int


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
        bucket_bytes: int = 1 << 30
        pause_mode: PauseMode = "retract"
        group_name: str = "rl-weights"
        master_address: str = ""
        # Weight updates and the group's collectives; a dead peer costs at most this.
        timeout_s: float = 600.0
        # A server that does not answer /model_info within this is down for this publish.
        probe_timeout_s: float = 5.0

        def build(self) -> "WeightPublisher":
            return WeightPublisher(self)

    def __init__(self, config: Config):
        self.config = config
        self.clients = [RolloutServerClient(url, config.timeout_s) for url in config.servers]
        self.device = torch.device("cuda", torch.cuda.current_device()) if config.backend == "nccl" else torch.device("cpu")
        self.dtype = getattr(torch, config.dtype)
        self.version: int | None = None  # the last version published
        self.export: Export | None = None
        self._group: dist.ProcessGroup | None = None
        self._group_name = ""
        self._members: list[RolloutServerClient] = []
        self._pool = ThreadPoolExecutor(max_workers=max(2, 2 * len(self.clients)))
        # Servers being brought to the latest export, off the step's path.
        self._catching_up: dict[str, Future] = {}
        self._rejoin: set[str] = set()
        self._buffers: list[torch.Tensor | None] = [None, None, None]

    # -- fan-out -------------------------------------------------------------------------------

    def _each(self, call, clients) -> list[BaseException | None]:
        futures = [self._pool.submit(call, c) for c in clients]
        errors: list[BaseException | None] = []
        for f in futures:
            try:
                f.result()
                errors.append(None)
            except BaseException as exc:  # noqa: BLE001 - reported per server by the caller
                errors.append(exc)
        return errors

    def _all(self, call, clients, what: str) -> None:
        failures = [f"{c.url}: {e}" for c, e in zip(clients, self._each(call, clients)) if e is not None]
        if failures:
            raise PublishError(f"{what}: " + "; ".join(failures))

    # -- who takes part ------------------------------------------------------------------------

    def _versions(self) -> dict[str, str | None]:
        """Each server's weight version, None where it does not answer in probe_timeout_s."""
        def probe(c: RolloutServerClient):
            try:
                return c.weight_version(timeout_s=self.config.probe_timeout_s)
            except RolloutServerError as exc:
                log.warning("%s is down for this publish: %s", c.url, exc)
                return None

        futures = {c.url: self._pool.submit(probe, c) for c in self.clients}
        return {url: f.result() for url, f in futures.items()}

    def participants(self) -> list[RolloutServerClient]:
        """The servers that take part in the next publish: up, and serving the last published
        version (or any before the first publish, or freshly caught up to the latest export).
        An up server that is behind is brought to the latest export in the background and
        rejoins at the publish after that; a server that does not answer is skipped."""
        for url, future in list(self._catching_up.items()):
            if future.done():
                del self._catching_up[url]
                if (error := future.exception()) is None:
                    self._rejoin.add(url)
                else:
                    log.warning("%s: catch-up failed: %s", url, error)
        versions = self._versions()
        ready = []
        for c in self.clients:
            version = versions[c.url]
            if version is None or c.url in self._catching_up:
                continue
            if self.version is None or version == str(self.version) or c.url in self._rejoin or self.export is None:
                self._rejoin.discard(c.url)
                ready.append(c)
            else:
                self._catch_up_in_background(c)
        return ready

    def _catch_up_in_background(self, c: RolloutServerClient) -> None:
        export = self.export
        log.info("%s is behind: loading %s (version %d) in the background", c.url, export.path, export.version)
        self._catching_up[c.url] = self._pool.submit(
            c.update_weights_from_disk, model_path=export.path, weight_version=str(export.version))

    # -- the group -----------------------------------------------------------------------------

    def connect(self, members: list[RolloutServerClient]) -> None:
        """Form a fresh weight-update group with `members` (a new name each time: torch refuses
        a group name already taken in the process, and a group a failed publish left is never
        torn down)."""
        self.disconnect()
        name = f"{self.config.group_name}-{uuid.uuid4().hex[:8]}"
        address = self.config.master_address or _own_address()
        port = _free_port()
        world_size = 1 + self.config.ranks_per_server * len(members)
        futures = [
            self._pool.submit(
                c.init_weights_update_group,
                master_address=address,
                master_port=port,
                rank_offset=1 + i * self.config.ranks_per_server,
                world_size=world_size,
                group_name=name,
                backend=self.config.backend,
            )
            for i, c in enumerate(members)
        ]
        try:
            group = init_weights_update_group(
                backend=self.config.backend,
                master_address=address,
                master_port=port,
                rank=0,
                world_size=world_size,
                group_name=name,
                timeout=timedelta(seconds=self.config.timeout_s),
            )
        except Exception as exc:
            raise PublishError(f"weight-update group {name} did not form at {address}:{port}: {exc}") from exc
        failures = []
        for c, f in zip(members, futures):
            try:
                f.result()
            except RolloutServerError as exc:
                failures.append(str(exc))
        if failures:
            destroy_weights_update_group(group)
            raise PublishError("; ".join(failures))
        self._group, self._group_name, self._members = group, name, list(members)
        log.info("weight-update group %s formed with %d servers (world %d)", name, len(members), world_size)

    def disconnect(self) -> None:
        if self._group is None:
            return
        group, name, members = self._group, self._group_name, self._members
        self._group, self._group_name, self._members = None, "", []
        for c, error in zip(members, self._each(lambda c: c.destroy_weights_update_group(name), members)):
            if error is not None:  # a restarted server never had it
                log.debug("%s: destroy_weights_update_group: %s", c.url, error)
        destroy_weights_update_group(group)

    # -- publishing ----------------------------------------------------------------------------

    def _packed(self, named_tensors: Iterable[tuple[str, torch.Tensor]]) -> Iterator[FlatBucket]:
        """Buckets gathered (by pulling the iterator) and packed into three rotating buffers:
        bucket i reuses bucket i-3's buffer, whose broadcast `_send` has finished by then."""
        for i, bucket in enumerate(buckets(named_tensors, self.config.bucket_bytes, self.dtype.itemsize)):
            moved = [(n, t.detach().to(self.device)) for n, t in bucket]
            total = packed_bytes((t for _, t in moved), self.dtype)
            slot = i % len(self._buffers)
            if self._buffers[slot] is None or self._buffers[slot].numel() < total:
                self._buffers[slot] = torch.empty(max(total, self.config.bucket_bytes), dtype=torch.uint8, device=self.device)
            yield pack(moved, self.dtype, self._buffers[slot])

    def _start_bucket(self, bucket: FlatBucket, members, last: bool, version: int) -> tuple[list[Future], object]:
        meta = dict(names=bucket.names, dtypes=bucket.dtypes, shapes=bucket.shapes, group_name=self._group_name,
                    load_format=LOAD_FORMAT, flush_cache=last, weight_version=str(version) if last else None)
        futures = [self._pool.submit(c.update_weights_from_distributed, **meta) for c in members]
        handle = dist.broadcast(bucket.flat, src=0, group=self._group, async_op=True)
        return futures, handle

    def _finish_bucket(self, futures: list[Future], handle) -> None:
        handle.wait()
        failures = []
        for f in futures:
            try:
                f.result()
            except RolloutServerError as exc:
                failures.append(str(exc))
        if failures:
            raise PublishError("; ".join(failures))

    def publish(self, named_tensors: Iterable[tuple[str, torch.Tensor]], version: int) -> list[str]:
        """Send HF-named tensors (call on trainer rank 0; the iterator may gather collectively)
        as weight `version` to every server that is up; returns their URLs. The iterator is
        always drained, whatever happens, so that ranks gathering with it never hang.

        On failure the servers taking part are rolled back to the last export (if any) and
        PublishError is raised; generation is resumed either way."""
        iterator = iter(named_tensors)
        members: list[RolloutServerClient] = []
        try:
            members = self.participants()
            if not members:
                raise PublishError("no rollout server is up and in step")
            if self._group is None or [c.url for c in members] != [c.url for c in self._members]:
                self.connect(members)
            self._all(lambda c: c.pause_generation(self.config.pause_mode), members, "pause_generation")
            try:
                self._all(lambda c: c.begin_weight_update(), members, "begin_weight_update")
                self._send(iterator, members, version)
                self._all(lambda c: c.end_weight_update(), members, "end_weight_update")
                self._check(members, version)
            except Exception as exc:
                self._rollback(members)
                raise exc if isinstance(exc, PublishError) else PublishError(f"{type(exc).__name__}: {exc}") from exc
            finally:
                for c, error in zip(members, self._each(lambda c: c.continue_generation(), members)):
                    if error is not None:
                        log.warning("%s: continue_generation: %s", c.url, error)
        finally:
            for _ in iterator:  # every rank takes part in every gather, even after a failure
                pass
        self.version = version
        return [c.url for c in members]

    def _send(self, iterator, members, version: int) -> None:
        # One bucket is held back so that the last, and only it, carries the version and the
        # cache flush; while bucket i-2 is broadcast, bucket i is gathered and packed.
        held: FlatBucket | None = None
        in_flight = None
        for bucket in self._packed(iterator):
            if held is not None:
                if in_flight is not None:
                    self._finish_bucket(*in_flight)
                in_flight = self._start_bucket(held, members, False, version)
            held = bucket
        if in_flight is not None:
            self._finish_bucket(*in_flight)
        if held is not None:
            self._finish_bucket(*self._start_bucket(held, members, True, version))

    def _check(self, members, version: int) -> None:
        """Loud, cheap: every server must now report the version (a server that dropped a
        bucket or never loaded the last one does not)."""
        wrong = []
        for c in members:
            got = c.weight_version(timeout_s=self.config.probe_timeout_s)
            if got != str(version):
                wrong.append(f"{c.url} serves {got!r}")
        if wrong:
            raise PublishError(f"after publishing version {version}: " + "; ".join(wrong))

    def roll_back(self, urls: list[str]) -> None:
        """Put these servers back on the last export (a failed post-publish check); the group
        is re-formed at the next publish."""
        self._rollback([c for c in self.clients if c.url in urls])

    def _rollback(self, members) -> None:
        # The group may be mid-collective on some peer: never reuse it, and never tear it
        # down either (a broken communicator can hang in teardown); it dies with the process.
        self._group, self._group_name, self._members = None, "", []
        # They hold one whole version (the export's) and rejoin the next publish in full.
        self._rejoin.update(c.url for c in members)
        self._each(lambda c: c.end_weight_update(), members)  # close an open session; errors expected
        if self.export is None:
            log.error("publish failed and no export exists: servers may hold partly updated weights")
            return
        export = self.export
        for c, error in zip(members, self._each(lambda c: c.update_weights_from_disk(
                model_path=export.path, weight_version=str(export.version)), members)):
            if error is not None:
                log.error("%s: rollback to %s failed: %s", c.url, export.path, error)

    def exported(self, path: str, version: int) -> None:
        """Record an HF export that servers can fall back to or catch up from."""
        self.export = Export(path, version)

    def wait_for_catch_up(self, timeout_s: float | None = None) -> None:
        """Block until the background catch-ups started so far have finished (tests, shutdown)."""
        for future in list(self._catching_up.values()):
            try:
                future.result(timeout=timeout_s)
            except Exception:  # noqa: BLE001 - logged when collected by participants()
                pass

    def close(self) -> None:
        self.disconnect()
        self._pool.shutdown(wait=False, cancel_futures=True)
        for c in self.clients:
            c.close()
