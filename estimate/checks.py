"""The environment file, read and checked against the models: what infra/, k8s/, `payload plan`
and `payload data check` load.

    environment = load_environment("p5en-48")   # schema (spec.environment), the layout resolved
                                                # (estimate.layout), then the job checked to fit

Beyond the schema: the layout fits the GPUs and the pools (estimate.layout), FSx holds the job's
checkpoints and exports and writes one within the trainer's stall timeout, a replica's checkpoint
stages in half a node's host memory (estimate.costs), and the groups in flight fit Redis above
the buffer's byte mark (estimate.buffer). Each break is one EnvironmentFileError line naming the
file, the field and what would fit.
"""

from __future__ import annotations

from typing import Any

from estimate.buffer import LateGroups
from estimate.costs import Costs, Hardware, model_costs
from estimate.layout import resolve
from spec.environment import Environment, EnvironmentFileError, environment_file, read_environment, validate_environment
from spec.layout import LayoutError
from spec.model_shape import ModelConfigError, shape_of
from spec.units import GB, GIB

# The longest a checkpoint write or read may take: the trainer's stall timeout (it waits for the
# previous asynchronous save before the next) and its startup probe (a resume reads one).
MAX_CHECKPOINT_WRITE_S = 900
# Host memory an asynchronous checkpoint may stage per training node (the rest is the pods').
MAX_STAGING_FRACTION = 0.5


def parse_environment(data: Any, source: str) -> Environment:
    """Validate an already-loaded mapping, resolve its layout and check the job fits; `source`
    names it in errors."""
    return checked(validate_environment(data, source), source)


def load_environment(name_or_path: str, model: str | None = None, gpu_figures: dict[str, float] | None = None) -> Environment:
    """`environments/<name>.yaml`, or a path to a YAML file: read, resolved and checked. `model`
    (a released model's name, a config.json or a checkpoint folder) plans the file for that model
    instead of its job's: its layout is chosen for it, FSx's and Redis's sizes are not checked
    (`payload plan --model` prints what that model would need). `gpu_figures` replaces the GPU
    pools' figures (spec.environment.GpuFigures) before the layout is chosen."""
    environment = read_environment(name_or_path).with_gpu_figures(**(gpu_figures or {}))
    if model is not None:
        environment = environment.with_job("model", architecture=model)
    return checked(environment, environment_file(name_or_path).name, storage=model is None)


def checked(environment: Environment, source: str, storage: bool = True) -> Environment:
    """`environment` with its layout resolved, once every check below has passed (storage False:
    all but FSx's and Redis's sizes, for planning a model the environment was not sized for)."""
    try:
        resolved = resolve(environment)
        checks = (_layout_fits_the_pools, _storage_holds_the_job, _buffer_fits_redis) if storage else (_layout_fits_the_pools,)
        for check in checks:
            check(resolved)
    except (LayoutError, ModelConfigError) as exc:
        raise EnvironmentFileError(f"{source}: {exc}") from None
    return resolved


def job_costs(environment: Environment) -> Costs:
    """The job's modeled publish, checkpoint and export (estimate/costs.py) under its resolved layout."""
    _, shape = shape_of(environment.job.model)
    layout, rollout = environment.layout, environment.pools.rollout
    return model_costs(
        shape,
        train_nodes=max(environment.pools.train.desired_size, 1),
        shard_gpus=layout.trainer.shard,
        pipeline=layout.trainer.pipeline,
        servers=rollout.desired_size * rollout.spec.gpus // layout.servers.tensor_parallel or None,
        server_gpus=layout.servers.tensor_parallel,
        fsx_storage_gib=environment.storage.fsx_storage_gib,
        fsx_mb_s_per_tib=environment.storage.fsx_throughput_mb_s_per_tib,
        keep_last=environment.job.checkpoint.keep_last,
        rollout_precision=environment.job.rollout.precision,
        bucket_bytes=environment.job.rollout.publish_bucket_bytes,
        hardware=Hardware.of(environment.pools.train.spec),
    )


def _layout_fits_the_pools(environment: Environment) -> None:
    layout = environment.layout
    if environment.pools.train.desired_size and (error := layout.trainer.error()):
        raise LayoutError(error)
    if error := layout.servers.error():
        raise LayoutError(error)


def _storage_holds_the_job(environment: Environment) -> None:
    costs = job_costs(environment)
    name, ckpt, storage = environment.layout.model, costs.checkpoint, environment.storage
    keep = environment.job.checkpoint.keep_last
    if storage.fsx_storage_gib * GIB < costs.fsx_needed_bytes:
        need = costs.fsx_needed_bytes / GIB
        size = 1200 if need <= 1200 else 2400 * -(-need // 2400)
        raise LayoutError(
            f"storage.fsx_storage_gib {storage.fsx_storage_gib}: {name} needs {need:,.0f} GiB "
            f"({keep + 1} checkpoints of {ckpt.bytes / GB:,.0f} GB and {keep + 1} HF exports of "
            f"{costs.export_bytes / GB:,.0f} GB for checkpoint.keep_last {keep}, plus the base model); use {size:.0f} or more"
        )
    if ckpt.write_s > MAX_CHECKPOINT_WRITE_S:
        need = ckpt.bytes / MAX_CHECKPOINT_WRITE_S / GB
        raise LayoutError(
            f"storage: writing a {name} checkpoint ({ckpt.bytes / GB:,.0f} GB) at {costs.fsx_throughput_gb_s:.2f} GB/s "
            f"({storage.fsx_storage_gib} GiB x {storage.fsx_throughput_mb_s_per_tib} MB/s/TiB) takes {ckpt.write_s:,.0f} s, "
            f"more than the {MAX_CHECKPOINT_WRITE_S} s the trainer's stall timeout and startup probe allow; "
            f"it needs {need:.2f} GB/s (raise fsx_throughput_mb_s_per_tib or fsx_storage_gib)"
        )
    train = environment.pools.train
    host = train.spec.memory_gib * GIB * MAX_STAGING_FRACTION
    if ckpt.host_bytes_per_node > host:
        raise LayoutError(
            f"pools.train: staging a {name} checkpoint takes {ckpt.host_bytes_per_node / GB:,.0f} GB of host memory "
            f"per node on the {ckpt.writer_nodes} node(s) of one HSDP replica, more than half of a "
            f"{train.instance_type}'s {train.spec.memory_gib} GiB; raise "
            f"job.parallel.data_parallel_shard_size (more nodes to a replica)"
        )


def _buffer_fits_redis(environment: Environment) -> None:
    """Producers stop at the buffer's byte mark (80% of Redis's maxmemory), but every group
    already being generated then still lands: that many worst-case groups must fit in the rest."""
    late = LateGroups.of(environment, routed=environment.job.rollout.routes_replayed)
    if not late.fit:
        raise LayoutError(f"job.rollout: {late.describe()}; lower workers x worker_concurrency or "
                          "batch.max_response_tokens, or use a larger memory instance")
