"""A queue from the URL a command is given (`--queue-url`, $RL_QUEUE_URL).

    redis://[:password@]host:port/db     Redis Streams: the cluster's task queue and buffer
    local://127.0.0.1:port?authkey=...   the local launcher's in-memory queue, served to its
                                         processes over loopback (payload.local.shared_queue)
"""

from __future__ import annotations

from payload.queue.base import QueueError, RolloutQueue


def open_queue(url: str | None, namespace: str = "rl", **options) -> RolloutQueue:
    if not url:
        raise QueueError("no queue URL: pass --queue-url or set $RL_QUEUE_URL")
    if url.startswith("local://"):
        from payload.local.shared_queue import SharedQueue

        return SharedQueue.from_url(url)
    if not url.startswith(("redis://", "rediss://")):
        raise QueueError(f"queue url {url!r}: expected redis://host:port/db")
    return RolloutQueue.Config(backend="redis", url=url, namespace=namespace, **options).build()
