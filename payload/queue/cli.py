"""`python -m payload redis-access`: the Redis buffer's users, passwords and TLS material.

    python -m payload redis-access --out redis-access/
    kubectl -n rl create secret generic rl-redis --from-file=redis-access/

Writes one password file per role, the ACL file Redis loads and the server's certificate
(payload/queue/access.py says who may do what); nothing is printed. Refuses a directory that
already has files, so a live Secret's passwords are never overwritten by mistake.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

# The buffer's Service in the workload namespace (k8s/pods.py; a test holds them equal).
DEFAULT_SERVICE_HOST = "buffer.rl.svc"


def register(subparsers) -> None:
    p = subparsers.add_parser("redis-access", help="write the Redis buffer's ACL users, passwords and TLS certificate")
    p.add_argument("--out", required=True, type=Path, help="a new or empty directory (becomes the rl-redis Secret)")
    p.add_argument("--namespace", default="rl", help="the job's key prefix in Redis (as given to feed/rollout/train)")
    p.add_argument("--service-host", default=DEFAULT_SERVICE_HOST, help="the buffer's DNS name the clients use")
    p.add_argument("--days", type=int, default=365, help="certificate lifetime in days")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from payload.queue.access import ROLES, write_access

    def fail(message: str) -> int:
        print(f"error: {message}", file=sys.stderr)
        return 2

    if args.days <= 0:
        return fail(f"--days {args.days}: must be positive")
    if args.out.exists() and (not args.out.is_dir() or any(args.out.iterdir())):
        return fail(f"--out {args.out}: exists and is not an empty directory (remove it to issue new passwords)")
    if shutil.which("openssl") is None:
        return fail("openssl is not installed: it issues the buffer's TLS certificate")
    write_access(args.out, args.namespace, args.service_host, args.days)
    print(f"wrote users for {', '.join(ROLES)} and the TLS certificate of {args.service_host} to {args.out}/")
    return 0
