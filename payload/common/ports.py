"""A free TCP port for a server another process will bind (a rendezvous, a local engine).

Why not bind to port 0 and hand its number on: the kernel takes that number from the
ephemeral range (/proc/sys/net/ipv4/ip_local_port_range, 32768-60999 by default), the same
range every outbound connection on the machine draws its local port from. Between the check
and the server's own bind, any client socket may take it, and the server fails with "Address
already in use" (seen in CI: the local demo's engine, with a dozen test processes connecting
beside it). A port below that range can only be taken by another server that chose it, so the
window shrinks to two explicit listeners picking the same number among ~20,000 at once.
"""

from __future__ import annotations

import random
import socket
from pathlib import Path

EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
# Below: the registered ports of well-known daemons (redis 6379, mlflow 5000, ...).
LOWEST = 10_000
ATTEMPTS = 64
# Not the `random` module's own generator: a process that seeded it (tests, the trainer) would
# pick the same ports as its siblings.
_pick = random.SystemRandom()


def _ephemeral_low() -> int:
    try:
        return int(EPHEMERAL_RANGE.read_text().split()[0])
    except (OSError, ValueError, IndexError):  # not Linux: fall back to the IANA range's start
        return 49_152


def _bindable(host: str, port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
        return True


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing on `host` is bound to now, below the ephemeral range where it can be
    (else one the kernel picks). `host` "" checks every interface (a rendezvous other nodes reach)."""
    high = _ephemeral_low()
    if high - LOWEST >= 1_000:
        for _ in range(ATTEMPTS):
            port = _pick.randrange(LOWEST, high)
            if _bindable(host, port):
                return port
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]
