"""A queue from the URL a command is given (`--queue-url`, $RL_QUEUE_URL).

    redis://[[user]:password@]host:port/db   Redis Streams: the cluster's task queue and buffer
    local://127.0.0.1:port?authkey=...       the local launcher's in-memory queue, served to its
                                             processes over loopback (payload.local.shared_queue)

Both carry a secret (the Redis password, the manager's authkey). Every message that names a
queue URL names `redacted(url)`: pod logs are readable by more people than the secret is.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

from payload.queue.base import QueueError, RolloutQueue

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


def open_queue(url: str | None, namespace: str = "rl", **options) -> RolloutQueue:
    if not url:
        raise QueueError("no queue URL: pass --queue-url or set $RL_QUEUE_URL")
    if url.startswith("local://"):
        from payload.local.shared_queue import SharedQueue

        return SharedQueue.from_url(url)
    if not url.startswith(("redis://", "rediss://")):
        raise QueueError(f"queue url {redacted(url)!r}: expected redis://host:port/db")
    return RolloutQueue.Config(backend="redis", url=url, namespace=namespace, **options).build()
