"""payload.common.ports: the ports handed to servers lie below the kernel's ephemeral range,
where no outbound connection can take them between the check and the server's bind."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from payload.common.ports import LOWEST, _bindable, _ephemeral_low, free_port

REPO = Path(__file__).resolve().parents[3]


def test_a_free_port_is_below_the_ephemeral_range_and_a_server_binds_it():
    low = _ephemeral_low()
    for host in ("127.0.0.1", ""):
        port = free_port(host)
        assert LOWEST <= port < low, (port, low)
        with socket.socket() as server:
            server.bind((host, port))
            server.listen()


def test_a_port_a_server_or_a_client_holds_is_not_free():
    with socket.socket() as server, socket.socket() as client:
        port = free_port()
        server.bind(("127.0.0.1", port))
        server.listen()
        assert not _bindable("127.0.0.1", port) and not _bindable("", port)
        client.connect(("127.0.0.1", port))  # a client's own local port (ephemeral) is taken too
        assert not _bindable("127.0.0.1", client.getsockname()[1])


def test_processes_that_seed_random_alike_still_pick_different_ports():
    # Test processes and trainers seed `random`; siblings must not pick the same ports.
    code = "import random; random.seed(0); from payload.common.ports import free_port; print([free_port() for _ in range(4)])"
    picks = [subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True).stdout
             for _ in range(2)]
    assert picks[0] != picks[1], picks
