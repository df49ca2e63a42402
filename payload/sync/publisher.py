"""Publish the trainer's weights to every rollout server, the way SGLang expects them.

One publish (slime's update_weights_from_distributed, SGLang's receiving side in
ModelRunner.update_weights_from_distributed):

    POST /pause_generation {mode}                      every server
    per bucket of ≤ bucket_bytes of HF-named tensors:
        POST /update_weights_from_distributed {names, dtypes, shapes, group_name, ...}
             (sent first, on a thread per server: the server allocates the tensors and
              joins the broadcasts, answering only when it has loaded them)
        broadcast every tensor from rank 0 of the weight-update group, in `names` order
    the last bucket carries weight_version and flush_cache=True
    POST /continue_generation                          every server

A server applies each bucket as it arrives (SGLang has no transaction), so a failed bucket
leaves it half-updated. The publisher then restores the last exported HF directory with
/update_weights_from_disk at that export's version, so no server ever serves mixed weights,
and re-forms the group before the next publish. The same path catches up a server that
came back (e.g. a reclaimed spot node) between publishes.
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import timedelta

import torch
import torch.distributed as dist

from payload.sync.client import PauseMode, RolloutServerClient, RolloutServerError
from payload.sync.group import destroy_weights_update_group, init_weights_update_group

log = logging.getLogger(__name__)


class PublishError(RuntimeError):
    """A publish did not complete; the servers serve the last exported version (or the previous one)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def _own_address() -> str:
    # The trainer pod's IP (downward API); outside Kubernetes, whatever the hostname resolves to.
    return os.environ.get("POD_IP") or socket.gethostbyname(socket.gethostname())


def buckets(named_tensors: Iterable[tuple[str, torch.Tensor]], bucket_bytes: int) -> Iterator[list[tuple[str, torch.Tensor]]]:
    """Group tensors in order into buckets of at most `bucket_bytes` (a larger tensor goes alone)."""
    bucket: list[tuple[str, torch.Tensor]] = []
    size = 0
    for name, tensor in named_tensors:
        nbytes = tensor.numel() * tensor.element_size()
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
        # Tensors go out in the rollout engine's dtype; the trainer's fp32 masters are cast.
        dtype: str = "bfloat16"
        bucket_bytes: int = 1 << 30
        # retract: running requests go back to the queue and are recomputed with the new
        # weights, so the KV cache can be flushed (in_place would forbid it).
        pause_mode: PauseMode = "retract"
        group_name: str = "rl-weights"
        master_address: str = ""
        timeout_s: float = 600.0

        def build(self) -> "WeightPublisher":
            return WeightPublisher(self)

    def __init__(self, config: Config):
        self.config = config
        self.clients = [RolloutServerClient(url, config.timeout_s) for url in config.servers]
        self.device = torch.device("cuda", torch.cuda.current_device()) if config.backend == "nccl" else torch.device("cpu")
        self.dtype = getattr(torch, config.dtype)
        self.version: int | None = None  # the version every server is known to serve
        self.export: Export | None = None
        self._group: dist.ProcessGroup | None = None
        self._group_name = ""
        self._pool = ThreadPoolExecutor(max_workers=max(1, len(self.clients)))

    # -- the group ---------------------------------------------------------------------------

    def _each(self, call, clients=None) -> list[BaseException | None]:
        futures = [self._pool.submit(call, c) for c in (self.clients if clients is None else clients)]
        errors: list[BaseException | None] = []
        for f in futures:
            try:
                f.result()
                errors.append(None)
            except BaseException as exc:  # noqa: BLE001 - reported per server by the caller
                errors.append(exc)
        return errors

    def connect(self) -> None:
        """Form a fresh weight-update group with every server (a new name each time: torch
        refuses to create a group whose name is already taken in a process, and a group left
        behind by a failed publish is never torn down)."""
        self.disconnect()
        name = f"{self.config.group_name}-{uuid.uuid4().hex[:8]}"
        address = self.config.master_address or _own_address()
        port = _free_port()
        world_size = 1 + self.config.ranks_per_server * len(self.clients)
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
            for i, c in enumerate(self.clients)
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
        for c, f in zip(self.clients, futures):
            try:
                f.result()
            except RolloutServerError as exc:
                failures.append(str(exc))
        if failures:
            destroy_weights_update_group(group)
            raise PublishError("; ".join(failures))
        self._group, self._group_name = group, name
        log.info("weight-update group %s formed with %d servers (world %d)", name, len(self.clients), world_size)

    def disconnect(self) -> None:
        if self._group is None:
            return
        group, name = self._group, self._group_name
        self._group, self._group_name = None, ""
        for c, error in zip(self.clients, self._each(lambda c: c.destroy_weights_update_group(name))):
            if error is not None:  # older SGLang has no destroy route; the group dies with the process
                log.debug("%s: destroy_weights_update_group: %s", c.url, error)
        destroy_weights_update_group(group)

    # -- publishing --------------------------------------------------------------------------

    def _send_bucket(self, bucket: list[tuple[str, torch.Tensor]], version: str | None) -> None:
        tensors = [t.detach().to(device=self.device, dtype=self.dtype).contiguous() for _, t in bucket]
        meta = dict(
            names=[n for n, _ in bucket],
            dtypes=[str(self.dtype).removeprefix("torch.")] * len(bucket),
            shapes=[list(t.shape) for t in tensors],
            group_name=self._group_name,
            flush_cache=version is not None,
            weight_version=version,
        )
        futures = [self._pool.submit(c.update_weights_from_distributed, **meta) for c in self.clients]
        handles = [dist.broadcast(t, src=0, group=self._group, async_op=True) for t in tensors]
        for h in handles:
            h.wait()
        failures = []
        for f in futures:
            try:
                f.result()
            except RolloutServerError as exc:
                failures.append(str(exc))
        if failures:
            raise PublishError("; ".join(failures))

    def publish(self, named_tensors: Iterable[tuple[str, torch.Tensor]], version: int) -> None:
        """Send full HF-named tensors (call on trainer rank 0 only) as weight `version`.

        On failure every server is rolled back to the last export (if any) and PublishError
        is raised; generation is resumed either way."""
        if self._group is None:
            self.connect()
        errors = self._each(lambda c: c.pause_generation(self.config.pause_mode))
        try:
            if any(errors):
                raise PublishError("; ".join(str(e) for e in errors if e))
            pending: list[tuple[str, torch.Tensor]] | None = None
            # Hold one bucket back so that the last one, and only it, carries the version.
            for bucket in buckets(named_tensors, self.config.bucket_bytes):
                if pending is not None:
                    self._send_bucket(pending, None)
                pending = bucket
            if pending is not None:
                self._send_bucket(pending, str(version))
            self.version = version
        except Exception as exc:
            self._rollback()
            raise exc if isinstance(exc, PublishError) else PublishError(f"{type(exc).__name__}: {exc}") from exc
        finally:
            for c, error in zip(self.clients, self._each(lambda c: c.continue_generation())):
                if error is not None:
                    log.warning("%s: continue_generation: %s", c.url, error)

    def _rollback(self) -> None:
        # The group may be mid-collective on some peer: never reuse it, and never tear it
        # down either (a broken communicator can hang in teardown); it dies with the process.
        self._group, self._group_name = None, ""
        if self.export is None:
            log.error("publish failed and no export exists: servers may hold partly updated weights")
            return
        export = self.export
        for c, error in zip(self.clients, self._each(lambda c: c.update_weights_from_disk(
                model_path=export.path, weight_version=str(export.version)))):
            if error is not None:
                log.error("%s: rollback to %s failed: %s", c.url, export.path, error)
        self.version = export.version

    def exported(self, path: str, version: int) -> None:
        """Record an HF export that servers can fall back to or catch up from."""
        self.export = Export(path, version)

    def catch_up(self) -> list[str]:
        """Bring servers that do not serve the current version (restarted, or missed a
        publish) to the last export from disk; returns their URLs. Their group membership is
        gone, so the group is re-formed before the next publish."""
        if self.version is None:
            return []
        behind = []
        for c in self.clients:
            try:
                if c.weight_version() != str(self.version):
                    behind.append(c)
            except RolloutServerError as exc:
                log.warning("%s: %s", c.url, exc)
                behind.append(c)
        if not behind:
            return []
        self.disconnect()
        if self.export is not None:
            export = self.export
            for c, error in zip(behind, self._each(lambda c: c.update_weights_from_disk(
                    model_path=export.path, weight_version=str(export.version)), behind)):
                if error is not None:
                    log.warning("%s: catch-up from %s failed: %s", c.url, export.path, error)
        return [c.url for c in behind]

    def close(self) -> None:
        self.disconnect()
        self._pool.shutdown(wait=False)
        for c in self.clients:
            c.close()
