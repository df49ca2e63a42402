"""Bytes of the experience buffer in Redis: its maxmemory on a memory node, the byte mark where
producers wait, and the most one encoded group can take. Read by the queue (payload/queue), the
buffer chart (k8s/charts/buffer.py) and the environment's checks (estimate/checks.py)."""

# Of Redis's maxmemory, what the buffer may fill before producers wait; the rest is headroom
# for the groups being generated when the mark is crossed (estimate/checks.py checks it).
DEFAULT_HIGH_WATER_SHARE = 0.8


def redis_maxmemory_bytes(memory_gib: float) -> int:
    """The buffer's Redis maxmemory on a memory node of `memory_gib` (the chart's setting,
    k8s/charts/buffer.py): 60% of the node for the container, half of that for the data so the
    fork that rewrites the append-only file has room for copy-on-write pages."""
    limit_gib = int(memory_gib * 0.6)
    return int(limit_gib * 1024 * 0.5) * 2**20


def worst_group_bytes(group_size: int, prompt_tokens: int, response_tokens: int, routed_bytes_per_token: int) -> int:
    """The most one encoded group can take (payload/queue/experience.py): the prompt once; per
    sample 4-byte token ids and 4-byte logprobs, and with routing replay one byte per expert id
    for every prompt and response position."""
    positions = prompt_tokens + response_tokens
    return prompt_tokens * 4 + group_size * (response_tokens * 8 + positions * routed_bytes_per_token)
