"""The weight-update process group between trainer rank 0 and every rollout server GPU.

It must be formed exactly the way SGLang forms its side (`init_custom_process_group` in
sglang/srt/utils, reached through `/init_weights_update_group`): a TCP rendezvous at
`tcp://master_address:master_port`, a `PrefixStore(group_name, store)`, and torch's
`_new_process_group_helper`. Any other key layout and the two sides never meet. The group
is separate from torchrun's default group, so the trainer's FSDP/EP collectives and the
rollout servers' TP collectives never see it.
"""

from __future__ import annotations

import inspect
from datetime import timedelta

import torch.distributed as dist
from torch.distributed.distributed_c10d import (
    Backend,
    PrefixStore,
    _new_process_group_helper,
    _world,
    rendezvous,
)


def init_weights_update_group(
    *,
    backend: str,
    master_address: str,
    master_port: int,
    rank: int,
    world_size: int,
    group_name: str,
    timeout: timedelta = timedelta(minutes=10),
    connect_timeout: timedelta | None = None,
) -> dist.ProcessGroup:
    """Join (rank 0: host) the weight-update group; blocks until all `world_size` ranks arrive,
    at most `connect_timeout` (default `timeout`, which the group's collectives then keep)."""
    store, rank, world_size = next(rendezvous(f"tcp://{master_address}:{master_port}", rank, world_size,
                                              timeout=connect_timeout or timeout))
    store.set_timeout(timeout)
    store = PrefixStore(group_name, store)
    # torch renamed pg_options to backend_options (2.6); SGLang's images carry either.
    options = "backend_options" if "backend_options" in inspect.signature(_new_process_group_helper).parameters else "pg_options"
    group, _ = _new_process_group_helper(
        world_size, rank, [], Backend(backend), store, group_name=group_name, timeout=timeout, **{options: None}
    )
    _world.pg_group_ranks[group] = {i: i for i in range(world_size)}
    return group


def destroy_weights_update_group(group: dist.ProcessGroup) -> None:
    dist.destroy_process_group(group)
