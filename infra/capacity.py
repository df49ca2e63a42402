"""GPU capacity the stack does not own: reservations it must be given, and how pools grow.

GPU node groups are created empty (infra/gpu_node_group.py): a p5en capacity or quota miss
would otherwise fail the node group and roll back the whole stack, and a Capacity Block node
group must be at size 0 before its block starts and whenever it is upgraded. `make scale`
(infra/scale.py) then sizes a pool to its environment file's desired_size.
"""

from __future__ import annotations

import re

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
