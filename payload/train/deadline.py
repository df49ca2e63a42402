"""A wall-clock time the trainer must be stopped by: a Capacity Block's end (issue 46 item 5).

`make scale POOL=train` reads the block's end (EC2 DescribeCapacityReservations EndDate) and
derives `RL_STOP_AT` from it (infra/capacity.py, block_end_plan): the end, less the lead EKS
asks for scaling a block's node group to zero, less the modelled time to finish a step and
write a checkpoint. The trainer reads it from its environment and treats it like SIGTERM:
at the next step boundary (or at once while it waits for experience) every rank agrees to
stop, the checkpoint is written and waited for, and the process exits 0, so the JobSet ends
instead of burning restarts on nodes EC2 is about to take back.

Accepted forms: seconds since the epoch, or an ISO 8601 time with a zone (2026-12-07T08:30:00Z).
"""

from __future__ import annotations

import os
import time
from datetime import datetime

STOP_AT_ENV = "RL_STOP_AT"


class DeadlineError(ValueError):
    pass


def parse_stop_at(value: str) -> float:
    """Seconds since the epoch."""
    text = value.strip()
    try:
        return float(text)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise DeadlineError(f"{STOP_AT_ENV}={value!r}: expected seconds since the epoch or an ISO 8601 time") from None
    if moment.tzinfo is None:
        raise DeadlineError(f"{STOP_AT_ENV}={value!r}: give the time zone (e.g. a trailing Z for UTC)")
    return moment.timestamp()


def stop_at_from_env(environ=os.environ) -> float | None:
    value = environ.get(STOP_AT_ENV, "").strip()
    return parse_stop_at(value) if value else None


def past(stop_at: float | None, clock=time.time) -> bool:
    return stop_at is not None and clock() >= stop_at
