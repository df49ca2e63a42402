"""`python -m payload sandbox`: a sandbox pod's server (k8s/charts/sandbox.py starts it)."""

from __future__ import annotations

import argparse
import sys


def register(subparsers) -> None:
    sandbox = subparsers.add_parser("sandbox", help="serve untrusted-code runs (a sandbox pod)",
                                    description="Run untrusted Python programs in a jail, one at a time, over HTTP.")
    sandbox.add_argument("--host", default="0.0.0.0")
    sandbox.add_argument("--port", type=int, default=8090)
    sandbox.add_argument("--isolation", choices=("namespaces", "pod"), default="namespaces",
                         help="namespaces: unshare net/pid/mount (local); pod: the pod spec and runtime are the boundary")
    sandbox.add_argument("--python", default="/usr/bin/python3", help="the programs' interpreter")
    sandbox.add_argument("--scratch", action="append", default=[], metavar="PATH",
                         help="pod: a place programs can write, reset after each run (a directory emptied, a file "
                              "truncated); the first, a directory the server has to itself, holds each run's directory")
    sandbox.add_argument("--wall-s", type=float, default=10.0)
    sandbox.add_argument("--cpu-s", type=int, default=5)
    sandbox.add_argument("--memory-mib", type=int, default=512)
    sandbox.add_argument("--processes", type=int, default=16)
    sandbox.set_defaults(run=run_sandbox)


def run_sandbox(args: argparse.Namespace) -> int:
    import uvicorn

    from payload.sandbox.jail import Jail, Limits
    from payload.sandbox.server import build_app

    try:
        limits = Limits(wall_s=args.wall_s, cpu_s=args.cpu_s, memory_bytes=args.memory_mib << 20, processes=args.processes)
        jail = Jail.Config(isolation=args.isolation, limits=limits, python=args.python, scratch=tuple(args.scratch)).build()
    except ValueError as exc:
        print(f"sandbox: {exc}", file=sys.stderr)
        return 2
    uvicorn.run(build_app(jail), host=args.host, port=args.port, log_level="warning")
    return 0
