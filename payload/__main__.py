"""`python -m payload <command>`: one CLI for every process the RL job runs.

Each command lives with the code it drives; a module listed here exposes
`register(subparsers)`, adding its parser(s) with `set_defaults(run=callable)`.
Heavy imports (torch, SGLang) stay inside the callables so `--help` is instant.
"""

from __future__ import annotations

import argparse
import importlib
import sys

COMMAND_MODULES = (
    "payload.rollout.cli",  # serve, rollout, verify
    "payload.rewards.cli",  # reward-serve (the reward model tier)
    "payload.train.cli",  # train
    "payload.data.cli",  # feed
    "payload.plan.cli",  # plan, simulate
    "payload.local.cli",  # local (the whole loop on one machine)
    "payload.accept.cli",  # accept-nccl, accept-deepep, accept-sglang (dist/acceptance/)
    "payload.sandbox.cli",  # sandbox (the untrusted-code pool's server)
    "payload.queue.cli",  # redis-access (the buffer's ACL users and TLS certificate)
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m payload", description=__doc__.splitlines()[0])
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and module_name.startswith(exc.name):
                continue  # that part of the payload is not in this build
            raise
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
