"""`plan --model-config M --search-splits`: the train:rollout split of the environment's nodes,
and the groups in flight, that give the most tokens/s per GPU (NeMo-RL's count) with fewer
than 10% of the groups dropped stale.

    rows, best, shipped = search_splits(env, estimate, prompt_tokens)

Every candidate runs the planner's closed form (payload.balance.planner.predict) at each
max_staleness the planner may pick (throughput.choose_staleness). What is held fixed, and why:
- the trainer's response tokens/s a node: the shipped layout's, re-shaped over T nodes (PP
  kept, EP inside a node, FSDP over a stage's ranks). Compute and the EP all-to-all scale with
  the tokens a GPU trains, so the rate a node barely moves; recomputing it needs the packing
  simulation of every data-parallel width (seconds each). The memory of the re-shaped layout is
  not checked here: `plan --model-config M --split T:R` prints its footprint;
- the engine layout, its batch and rate a node (they do not depend on the split);
- the publish pause (the trainer stall is under a second at both models; the servers' pause is
  their own transfer, load and re-prefill, not the split's).
"""

from __future__ import annotations

from dataclasses import dataclass

from payload.balance.planner import _TIE
from payload.balance.throughput import Estimate, choose_staleness, loop_spec

IN_FLIGHT = (768, 1024, 1536, 2048, 3072, 4096)
MAX_DROPPED = 0.10


@dataclass(frozen=True)
class SplitChoice:
    train_nodes: int
    rollout_nodes: int
    groups_in_flight: int
    max_staleness: int
    prediction: object  # payload.balance.planner.Prediction
    tokens_per_s_per_gpu: float

    @property
    def label(self) -> str:
        return f"{self.train_nodes}:{self.rollout_nodes} @{self.groups_in_flight}"


def search_splits(env, estimate: Estimate, in_flight=IN_FLIGHT, response_sigma: float = 0.8,
                  max_dropped: float = MAX_DROPPED, train_nodes=None):
    """(every split x in-flight candidate dropping under `max_dropped`, the best of them or None,
    the environment's own split and in-flight). `train_nodes`: the counts to try (default every
    multiple of the trainer's pipeline stages that leaves a rollout replica)."""
    pools = env.pools
    budget = pools.train.desired_size + pools.rollout.desired_size
    stages = estimate.trainer.layout.pipeline
    spec = loop_spec(env, estimate, response_sigma).with_(train_gpu_multiple=stages * pools.train.spec.gpus)
    counts = train_nodes or range(stages, budget, stages)
    rows = []
    for t in counts:
        if spec.replicas(budget - t) < 1:
            continue
        for n in in_flight:
            choice = _choose(spec.with_(groups_in_flight=n), t, budget - t, estimate.prompt_tokens, max_dropped)
            if choice.prediction.stale_dropped_fraction < max_dropped:
                rows.append(choice)
    best = _best(rows, pools.train.desired_size)
    shipped = _choose(spec, pools.train.desired_size, pools.rollout.desired_size, estimate.prompt_tokens, max_dropped)
    return rows, best, shipped


def _best(rows: list[SplitChoice], shipped_train: int) -> SplitChoice | None:
    """The most tokens/s/GPU; among candidates within the planner's tie margin of it, the fewest
    stale drops (the least certain part of the model), then the smallest move from the shipped split."""
    if not rows:
        return None
    top = max(r.tokens_per_s_per_gpu for r in rows)
    close = [r for r in rows if r.tokens_per_s_per_gpu >= top * (1 - _TIE)]
    return min(close, key=lambda r: (round(r.prediction.stale_dropped_fraction, 3), abs(r.train_nodes - shipped_train)))


def _choose(spec, train: int, rollout: int, prompt_tokens: float, max_dropped: float) -> SplitChoice:
    _, pick = choose_staleness(spec, spec.split(train, rollout), prompt_tokens, max_dropped=max_dropped)
    return SplitChoice(train, rollout, spec.groups_in_flight, pick.max_staleness, pick.prediction, pick.tokens_per_s_per_gpu)


def print_search(rows, best, shipped, env, out) -> None:
    gpus = (env.pools.train.desired_size + env.pools.rollout.desired_size) * env.pools.train.spec.gpus
    print(f"  split search over {gpus // env.pools.train.spec.gpus} nodes (train:rollout @ groups in flight; "
          f"max_staleness picked per candidate; only candidates dropping < {MAX_DROPPED:.0%} stale):", file=out)
    by_split: dict[tuple[int, int], SplitChoice] = {}
    for r in rows:
        key = (r.train_nodes, r.rollout_nodes)
        if key not in by_split or r.tokens_per_s_per_gpu > by_split[key].tokens_per_s_per_gpu:
            by_split[key] = r
    for r in sorted(by_split.values(), key=lambda r: -r.tokens_per_s_per_gpu)[:8]:
        print("    " + _row(r) + ("  <- best" if r is best else ""), file=out)
    print(f"    shipped {_row(shipped)}", file=out)
    if best is None:
        print(f"  no split drops under {MAX_DROPPED:.0%} of the groups stale", file=out)
        return
    print(f"  best: {best.label}, max_staleness {best.max_staleness}: {best.tokens_per_s_per_gpu:,.0f} tokens/s/GPU "
          f"against the shipped {shipped.label}'s {shipped.tokens_per_s_per_gpu:,.0f} "
          f"({best.tokens_per_s_per_gpu / shipped.tokens_per_s_per_gpu - 1:+.1%})", file=out)


def _row(r: SplitChoice) -> str:
    p = r.prediction
    return (f"{r.label}: max_staleness {r.max_staleness}, step {p.step_time_s:,.0f} s, dropped "
            f"{p.stale_dropped_fraction:.1%}, trainer idle {p.trainer_idle_fraction:.0%}, slots fed "
            f"{p.replica_utilisation:.0%}, bound {p.bound}, {r.tokens_per_s_per_gpu:,.0f} tokens/s/GPU")
