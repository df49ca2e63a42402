"""The Python package inside the container: MoE policy, expert parallelism, GRPO trainer,
rollout servers and workers, the task queue and experience buffer."""
