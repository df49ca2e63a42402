"""A queue from the URL a command is given (`--queue-url`, $RL_QUEUE_URL).

    redis://[user[:password]@]host:port/db   Redis Streams: the cluster's task queue and buffer
    rediss://user@host:port/db?ssl_ca_certs=/path/ca.crt   the same over TLS (the cluster's)
    local://127.0.0.1:port?authkey=...   the local launcher's in-memory queue, served to its
                                         processes over loopback (payload.queue.shared)

On the cluster the URL names the role's ACL user and no password: the password is read from
the file $RL_QUEUE_PASSWORD_FILE names (the role's key of the mounted `rl-redis` Secret), so
it is in no URL, argument, environment variable or log line (payload/queue/access.py). A URL
may still carry a secret (a password typed on a command line, the local manager's authkey):
every message that names a queue URL names `redacted(url)`.
"""

from __future__ import annotations

import os
import re
import socket
from urllib.parse import urlsplit, urlunsplit

from payload.queue.base import QueueError, RolloutQueue

PASSWORD_FILE_ENV = "RL_QUEUE_PASSWORD_FILE"
_SECRET_QUERY = re.compile(r"(?i)\b(authkey|password|token)=[^&]*")


def redacted(url: str | None) -> str:
    """`url` with its password and secret query values replaced by `***` (never raises)."""
    if not url:
        return str(url)
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            userinfo, host = netloc.rsplit("@", 1)
            user = userinfo.split(":", 1)[0] if ":" in userinfo else ""
            netloc = f"{user}:***@{host}" if ":" in userinfo else f"***@{host}"
        query = _SECRET_QUERY.sub(lambda m: f"{m.group(1)}=***", parts.query)
        return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
    except ValueError:
        # Not parseable as a URL: nothing of it is safe to print.
        return "<unparseable url>"


def answers_plain_redis(host: str, port: int, timeout_s: float = 2.0) -> bool:
    """Whether host:port answers a plaintext PING with a RESP reply (+PONG, -NOAUTH, ...): a plain
    Redis. A TLS client's handshake there hangs until its timeout (Redis reads the ClientHello as
    an unfinished inline command), which alone says nothing about why."""
    try:
        with socket.create_connection((host, port), timeout=timeout_s) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16)[:1] in (b"+", b"-")
    except OSError:
        return False


def redis_credentials() -> dict[str, str]:
    """redis-py's `password` from $RL_QUEUE_PASSWORD_FILE, when set (a password in the URL wins)."""
    path = os.environ.get(PASSWORD_FILE_ENV)
    if not path:
        return {}
    try:
        password = open(path, encoding="utf-8").read().strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise QueueError(f"${PASSWORD_FILE_ENV} {path}: cannot read the Redis password: {exc.strerror or exc}") from None
    if not password:
        raise QueueError(f"${PASSWORD_FILE_ENV} {path}: the file is empty (expected the role's Redis password)")
    return {"password": password}


def open_queue(url: str | None, namespace: str = "rl", **options) -> RolloutQueue:
    if not url:
        raise QueueError("no queue URL: pass --queue-url or set $RL_QUEUE_URL")
    if url.startswith("local://"):
        from payload.queue.shared import SharedQueue

        return SharedQueue.from_url(url)
    if not url.startswith(("redis://", "rediss://")):
        raise QueueError(f"queue url {redacted(url)!r}: expected redis://host:port/db")
    return RolloutQueue.Config(backend="redis", url=url, namespace=namespace, **options).build()
