"""What torchrun tells a process about its place, read in one place."""

from __future__ import annotations

import os


def local_world_size() -> int:
    """torchrun's LOCAL_WORLD_SIZE: the ranks of this node (outside torchrun: the whole world,
    WORLD_SIZE, one process by default), which is what a node's GPUs, a shard group's default and
    the publisher's per-node servers follow."""
    return int(os.environ.get("LOCAL_WORLD_SIZE", os.environ.get("WORLD_SIZE", "1")))
