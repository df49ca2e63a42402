"""Bytes of the experience buffer in Redis: its maxmemory on a memory node, the byte mark where
producers wait, and the most one encoded group can take. Read by the queue (payload/queue), the
buffer chart (k8s/charts/buffer.py), the environment's checks (estimate/checks.py) and the
routing-replay choice (estimate/layout.py)."""

from dataclasses import dataclass

from spec.model_shape import shape_of
from spec.units import GB

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


@dataclass(frozen=True)
class LateGroups:
    """The groups that can land after the buffer's byte mark: every one in flight when it is
    crossed, each at its worst (estimate/checks.py requires them to fit the headroom)."""

    workers: int
    worker_concurrency: int
    group_bytes: int
    maxmemory_bytes: int
    instance_type: str
    routed: bool

    @classmethod
    def of(cls, environment, routed: bool) -> "LateGroups":
        job, r, memory = environment.job, environment.job.rollout, environment.pools.memory
        _, shape = shape_of(job.model)
        per_token = shape.num_hidden_layers * shape.num_experts_per_tok if routed else 0
        return cls(r.workers, r.worker_concurrency,
                   worst_group_bytes(job.algorithm.group_size, job.batch.max_prompt_tokens, job.batch.max_response_tokens, per_token),
                   redis_maxmemory_bytes(memory.spec.memory_gib), memory.instance_type, routed)

    @property
    def bytes(self) -> int:
        return self.workers * self.worker_concurrency * self.group_bytes

    @property
    def headroom_bytes(self) -> float:
        return self.maxmemory_bytes * (1 - DEFAULT_HIGH_WATER_SHARE)

    @property
    def fit(self) -> bool:
        return self.bytes <= self.headroom_bytes

    def describe(self) -> str:
        return (f"{self.workers * self.worker_concurrency} groups in flight (workers {self.workers} x worker_concurrency "
                f"{self.worker_concurrency}) of up to {self.group_bytes / GB:,.2f} GB each"
                f"{' with routed experts' if self.routed else ''} can land after the buffer's byte mark: "
                f"{self.bytes / GB:,.0f} GB, {'within' if self.fit else 'more than'} the {self.headroom_bytes / GB:,.1f} GB "
                f"of Redis maxmemory ({self.maxmemory_bytes / GB:,.0f} GB on {self.instance_type}) above it")


def routing_replay_choice(environment) -> tuple[bool, str]:
    """rollout.return_routed_experts auto: on wherever Redis holds every group in flight with its
    routes past the byte mark (the trainer's own cost is small: bench/README.md, "Routing replay
    on the GPU"). (the choice, why)."""
    late = LateGroups.of(environment, routed=True)
    return late.fit, ("on: " if late.fit else "off: ") + late.describe()
