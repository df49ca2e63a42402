"""GPU capacity the stack does not own: reservations it must be given, and how pools grow.

GPU node groups are created empty (infra/gpu_node_group.py): a p5en capacity or quota miss
would otherwise fail the node group and roll back the whole stack, and a Capacity Block node
group must be at size 0 before its block starts and whenever it is upgraded. `make scale`
(infra/scale.py) then sizes a pool to its environment file's desired_size.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from spec.environment import GPU_POOLS, CapacityType, Environment, EnvironmentFileError

# Reservation ids from the documentation (EC2's and EKS's Capacity Block examples, this
# repository's p5en-48.yaml): valid-looking, so EC2 would only reject them at launch time.
EXAMPLE_RESERVATION_IDS = frozenset({"cr-0123456789abcdef0", "cr-1234567890abcdef0", "cr-02168da1478b509e0"})
# Hex digits in counting order or one digit repeated: typed, not copied from the console.
_TYPED = re.compile(r"^cr-(?:0?123456789abcdef|(.)\1{8,})")


def is_placeholder_reservation(reservation_id: str) -> bool:
    return reservation_id in EXAMPLE_RESERVATION_IDS or bool(_TYPED.match(reservation_id))


def check_capacity_reservations(environment: Environment) -> None:
    """Refuse to synthesize a stack whose GPU pools target an example reservation id."""
    for name in GPU_POOLS:
        pool = getattr(environment.pools, name)
        reservation = pool.capacity_reservation_id
        if reservation and is_placeholder_reservation(reservation):
            kind = "Capacity Block" if pool.capacity_type is CapacityType.CAPACITY_BLOCK else "capacity reservation"
            raise EnvironmentFileError(
                f"{environment.name}.yaml: pools.{name}.capacity_reservation_id {reservation} is an example id: "
                f"put your {kind}'s id there (aws ec2 describe-capacity-reservations "
                f"--filters Name=instance-type,Values={pool.instance_type} --query 'CapacityReservations[].CapacityReservationId')"
            )


# EKS user guide, "Create self-managed nodes with Capacity Blocks for ML": "schedule scaling to
# scale to zero more than 30 minutes before the Capacity Block reservation end time" (EC2 starts
# taking a block's instances back ahead of its end). Five minutes more than that.
RECLAIM_LEAD = timedelta(minutes=35)
# An Auto Scaling scheduled action's name on the train pool's group (one per group: re-running
# `make scale` for a new block replaces it).
BLOCK_END_ACTION = "rl-capacity-block-end"


@dataclass(frozen=True)
class BlockEnd:
    """When a Capacity Block's train pool is wound down: the trainer told to stop at `stop_at`
    (RL_STOP_AT: it checkpoints and exits 0, payload/train/deadline.py), the pool scaled to zero
    at `scale_to_zero_at`, EC2's end at `end`."""

    end: datetime
    scale_to_zero_at: datetime
    stop_at: datetime
    margin_s: int


def stop_margin_s(costs, grace_s: int) -> int:
    """Seconds from telling the trainer to stop to its pods being gone, from the modelled costs
    (estimate/costs.py): the step it is in finishes its export and publish, the checkpoint still
    being written is waited for and the final one staged and written (two writes at worst), and
    the pods get their termination grace; a quarter more, whole minutes, at least five."""
    write = costs.checkpoint.stage_s + costs.checkpoint.write_s
    seconds = 1.25 * (costs.export_s + costs.publish.seconds + 2 * write) + grace_s
    return max(300, math.ceil(seconds / 60) * 60)


def block_end_plan(end: datetime, margin_s: int) -> BlockEnd:
    scale_to_zero_at = end - RECLAIM_LEAD
    return BlockEnd(end, scale_to_zero_at, scale_to_zero_at - timedelta(seconds=margin_s), margin_s)


def schedule_scale_to_zero(autoscaling, groups: list[str], plan: BlockEnd) -> None:
    """An Auto Scaling scheduled action on each of the node group's groups: min and desired 0 at
    `scale_to_zero_at`. In AWS, not in the cluster or on the caller's machine: it happens whether
    or not anyone is around when the block ends, needs no credentials in a pod, and is how the
    Cluster Autoscaler sizes managed node groups too (the group's desired capacity)."""
    for group in groups:
        autoscaling.put_scheduled_update_group_action(
            AutoScalingGroupName=group,
            ScheduledActionName=BLOCK_END_ACTION,
            StartTime=plan.scale_to_zero_at,
            MinSize=0,
            DesiredCapacity=0,
        )
