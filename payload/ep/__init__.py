"""Expert parallelism behind one dispatch interface (dispatcher.py).

    from payload import ep
    dispatcher = ep.build(ep.Config(backend="all_to_all"), num_experts=128, group=ep_group)
    x_ND, tokens_per_expert_L, handle = dispatcher.dispatch(x_TD, topk_idx_TK, topk_weight_TK)
    out_TD = dispatcher.combine(experts(x_ND, tokens_per_expert_L), handle)

or, for a whole model, `ep.apply_expert_parallel(model, ep_group, ep.Config(backend="auto"))`:
each MoE block keeps only its rank's slice of the experts and gets the chosen dispatcher; the
model code is unchanged. Backends: `local` (every expert here, no communication), `all_to_all`
(torch.distributed, gloo or NCCL), `deepep` (DeepEP v2 ElasticBuffer, CUDA only), `auto`
(deepep where it imports and sets up its buffer on CUDA, else all_to_all with one warning
naming why; local for a group of one). An explicit `deepep` that cannot run is an
EPConfigError with the same reason. `preflight` resolves the backend at process start, before
any NCCL communicator exists, which DeepEP's import requires (payload/ep/deepep.py).
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass
from typing import Literal

import torch
import torch.distributed as dist
from torch import nn

from payload.ep.dispatcher import Dispatcher, LocalDispatcher

Backend = Literal["auto", "deepep", "all_to_all", "local"]
BACKENDS = ("auto", "deepep", "all_to_all", "local")
log = logging.getLogger(__name__)


class EPConfigError(ValueError):
    """Expert parallelism asked for something this machine or model cannot do: one line."""


@dataclass(frozen=True)
class Config:
    backend: Backend = "auto"
    # DeepEP sizes its communication buffer for this many tokens per rank per dispatch and
    # asserts beyond it: the job's largest micro-batch (Config.for_job), not DeepEP's default.
    # Its receive space grows with it, roughly ranks x tokens x hidden x 2 B each way (EP8,
    # hidden 4096, 26,624 tokens: ~1.7 GB per direction per GPU; an estimate: DeepEP's
    # calculate_elastic_buffer_size decides, once per process).
    deepep_max_tokens_per_rank: int = 16384

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise EPConfigError(f"ep backend {self.backend!r}: must be one of {', '.join(BACKENDS)}")
        if self.deepep_max_tokens_per_rank < 1:
            raise EPConfigError(f"deepep_max_tokens_per_rank {self.deepep_max_tokens_per_rank}: must be at least 1")

    @classmethod
    def for_job(cls, job) -> "Config":
        """The job's backend, with DeepEP's buffer sized for the most tokens one of its
        micro-batches can hold on a rank (spec.job.BatchSection.largest_micro_batch_tokens)."""
        return cls(backend=job.parallel.ep_backend, deepep_max_tokens_per_rank=job.batch.largest_micro_batch_tokens)


def preflight(config: Config, ep_size: int) -> str:
    """The backend `config` runs on over `ep_size` ranks: `local` for `auto` alone, `deepep` or
    `all_to_all` for `auto` on more, else as asked. Imports DeepEP when it may be used, so call
    it at start, before any NCCL communicator (payload.ep.deepep says why). `auto` without
    DeepEP falls back to all_to_all with one warning naming the reason; an explicit `deepep`
    that cannot run raises EPConfigError with that reason."""
    if config.backend == "auto" and ep_size == 1:
        return "local"
    if config.backend not in ("auto", "deepep"):
        return config.backend
    from payload.ep.deepep import deepep_unavailable_reason

    reason = deepep_unavailable_reason()
    if reason is None:
        return "deepep"
    if config.backend == "deepep":
        raise EPConfigError(f"ep backend 'deepep': {reason}; choose ep backend 'all_to_all' or 'auto'")
    _announce_fallback(reason)
    return "all_to_all"


@functools.lru_cache(maxsize=None)
def _announce_fallback(reason: str) -> None:
    # Once per process, though every MoE block resolves its backend.
    log.warning("EP BACKEND FALLBACK: ep backend 'auto' runs all_to_all, not deepep: %s", reason)


def resolve_backend(config: Config, group: dist.ProcessGroup | None) -> str:
    return preflight(config, 1 if group is None else dist.get_world_size(group))


def build(config: Config, num_experts: int, group: dist.ProcessGroup | None = None, hidden_size: int = 0, top_k: int = 0) -> Dispatcher:
    """The dispatcher for `num_experts` experts spread evenly over `group` (None: this process)."""
    backend = resolve_backend(config, group)
    size = 1 if group is None else dist.get_world_size(group)
    if num_experts % size:
        raise EPConfigError(f"num_experts={num_experts} is not divisible by the expert-parallel size {size}")
    if backend == "local":
        if size != 1:
            raise EPConfigError(f"ep backend 'local' holds every expert in one process; the group has {size} ranks")
        return LocalDispatcher(num_experts)
    if group is None:
        raise EPConfigError(f"ep backend {backend!r} needs a process group")
    if backend == "all_to_all":
        from payload.ep.all_to_all import AllToAllDispatcher

        return AllToAllDispatcher(num_experts, group)
    from payload.ep.all_to_all import AllToAllDispatcher
    from payload.ep.deepep import DeepEPDispatcher

    try:
        return DeepEPDispatcher(num_experts, group, hidden_size, top_k, config.deepep_max_tokens_per_rank)
    except EPConfigError:
        raise
    except Exception as exc:  # noqa: BLE001 - DeepEP's buffer set-up (NCCL GIN contexts, symmetric memory)
        # Such failures (no GIN: no GDRCopy, NCCL too old) happen on every rank alike, before
        # DeepEP's first collective, so every rank falls back or fails together.
        reason = f"the deepep backend cannot set up its buffer ({type(exc).__name__}: {' '.join(str(exc).split())})"
        if config.backend == "deepep":
            raise EPConfigError(f"ep backend 'deepep': {reason}; choose ep backend 'all_to_all' or 'auto'") from None
        _announce_fallback(reason)
        return AllToAllDispatcher(num_experts, group)


@torch.no_grad()
def _keep_slice(param: nn.Parameter, start: int, count: int) -> nn.Parameter:
    return nn.Parameter(param[start : start + count].clone(), requires_grad=param.requires_grad)


def apply_expert_parallel(model: nn.Module, group: dist.ProcessGroup | None, config: Config = Config()) -> nn.Module:
    """Shard every MoE block's experts over `group` and swap in the dispatcher (in place).

    Rank r keeps experts [r*E/W, (r+1)*E/W). Works on a meta-device model too (then only the
    slices' shapes change), which is how load_pretrained reads just the local experts.
    """
    # An MoE block is what carries a dispatcher (payload.model.moe.SparseMoeBlock): found by that,
    # so expert parallelism wraps the model without importing it.
    for block in [m for m in model.modules() if isinstance(getattr(m, "dispatcher", None), Dispatcher)]:
        experts = block.experts
        dispatcher = build(
            config, block.num_experts, group, hidden_size=experts.gate_up_proj.shape[-1], top_k=block.gate.top_k
        )
        if experts.num_local_experts != block.num_experts:
            raise EPConfigError("apply_expert_parallel: this model's experts are already sharded")
        start, count = dispatcher.local_expert_offset, dispatcher.num_local_experts
        experts.gate_up_proj = _keep_slice(experts.gate_up_proj, start, count)
        experts.down_proj = _keep_slice(experts.down_proj, start, count)
        experts.expert_offset = start
        block.dispatcher = dispatcher
    return model


__all__ = [
    "BACKENDS",
    "Config",
    "Dispatcher",
    "EPConfigError",
    "LocalDispatcher",
    "apply_expert_parallel",
    "build",
    "preflight",
    "resolve_backend",
]
