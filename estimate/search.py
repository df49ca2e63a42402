"""`plan --model M --search-splits`: the train:rollout split of the environment's nodes,
and the groups in flight, that give the most tokens/s per GPU (NeMo-RL's count) with fewer
than 10% of the groups dropped stale.

    rows, best, shipped = search_splits(env, estimate, prompt_tokens)

Every candidate runs the planner's closed form (estimate.planner.predict) at each
max_staleness the planner may pick (throughput.choose_staleness). What is held fixed, and why:
- the trainer's response tokens/s a node: the shipped layout's. Compute and the EP all-to-all
  scale with the tokens a GPU trains, so the rate a node barely moves; recomputing it needs the
  packing simulation of every data-parallel width (seconds each). `verify` does that for the
  best split only: the shipped layout re-shaped over its T nodes (PP and EP kept, the widest
  FSDP shard up to the shipped one that divides a stage's ranks), its memory against the fit
  line of estimate.footprint, and the step again with that layout's own trainer rate;
- the engine layout, its batch and rate a node (they do not depend on the split);
- the publish pause (the trainer stall is under a second at both models; the servers' pause is
  their own transfer, load and re-prefill, not the split's).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from estimate.planner import _TIE
from estimate.throughput import Estimate, choose_staleness, loop_spec, trainer_estimate
from estimate.footprint import FIT_FRACTION
from spec.layout import TrainerLayout

IN_FLIGHT = (768, 1024, 1536, 2048, 3072, 4096)
MAX_DROPPED = 0.10


@dataclass(frozen=True)
class SplitChoice:
    train_nodes: int
    rollout_nodes: int
    groups_in_flight: int
    max_staleness: int
    prediction: object  # estimate.planner.Prediction
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
        if t % stages or spec.replicas(budget - t) < 1:  # whole stages only; a rollout replica left
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


def reshaped_layout(layout: TrainerLayout, nodes: int) -> TrainerLayout | None:
    """`layout` over `nodes` nodes: PP and EP kept, the widest FSDP shard up to the original's
    that is whole EP groups, divides a stage's ranks and divides (or is whole) nodes; None if
    the stages do not divide the nodes."""
    if nodes % layout.pipeline:
        return None
    g, ranks = layout.gpus_per_node, nodes // layout.pipeline * layout.gpus_per_node
    shards = [s for s in range(layout.expert_parallel, min(layout.shard, ranks) + 1, layout.expert_parallel)
              if ranks % s == 0 and (g % s == 0 or s % g == 0)]
    return replace(layout, nodes=nodes, shard=max(shards)) if shards else None


@dataclass(frozen=True)
class Verified:
    choice: SplitChoice  # the best split again, at its own layout's trainer rate
    layout: TrainerLayout | None
    memory_gb: float
    fits: bool
    trainer_tokens_per_s_per_node: float
    held_tokens_per_s_per_node: float  # what the search assumed: the shipped layout's


def verify(env, estimate: Estimate, best: SplitChoice, response_sigma: float = 0.8) -> Verified:
    """The best split with the trainer layout it needs, its memory and its own trainer rate."""
    layout = reshaped_layout(estimate.trainer.layout, best.train_nodes)
    if layout is None:
        return Verified(best, None, 0.0, False, 0.0, estimate.trainer_tokens_per_s_per_node)
    trainer = trainer_estimate(env, estimate.prompt_tokens, estimate.response_tokens_mean, estimate.assumptions, layout)
    rate = trainer.response_tokens / trainer.step_s / best.train_nodes
    spec = loop_spec(env, estimate, response_sigma)
    spec = spec.with_(rates=replace(spec.rates, trainer_tokens_per_s_per_node=rate),
                      train_gpu_multiple=layout.pipeline * layout.gpus_per_node, groups_in_flight=best.groups_in_flight)
    again = _choose(spec, best.train_nodes, best.rollout_nodes, estimate.prompt_tokens, MAX_DROPPED)
    fits = trainer.memory_gb <= FIT_FRACTION * env.pools.train.spec.gpu_memory_gb
    return Verified(again, layout, trainer.memory_gb, fits, rate, estimate.trainer_tokens_per_s_per_node)


def verified_best(env, estimate: Estimate, rows: list[SplitChoice], response_sigma: float = 0.8,
                  tries: int = 4) -> tuple[SplitChoice | None, list[Verified]]:
    """The best candidate whose trainer layout fits its nodes' memory: verify the best, and while
    it does not fit, drop its train node count and take the next best (at most `tries` times:
    each check simulates the step's packing). (the pick or None, every check made)."""
    checks = []
    shipped_train = env.pools.train.desired_size
    for _ in range(tries):
        best = _best(rows, shipped_train)
        if best is None:
            return None, checks
        checks.append(verify(env, estimate, best, response_sigma))
        if checks[-1].fits:
            return best, checks
        rows = [r for r in rows if r.train_nodes != best.train_nodes]
    return None, checks


def print_search(rows, best, shipped, env, out, checks: list[Verified] = ()) -> None:
    """`best`: the pick (verified_best's when `checks` are given)."""
    nodes = env.pools.train.desired_size + env.pools.rollout.desired_size
    print(f"  split search over {nodes} nodes (train:rollout @ groups in flight; max_staleness picked per "
          f"candidate; only candidates dropping < {MAX_DROPPED:.0%} stale; trainer rate held at the shipped layout's):",
          file=out)
    by_split: dict[tuple[int, int], SplitChoice] = {}
    for r in rows:
        key = (r.train_nodes, r.rollout_nodes)
        if key not in by_split or r.tokens_per_s_per_gpu > by_split[key].tokens_per_s_per_gpu:
            by_split[key] = r
    for r in sorted(by_split.values(), key=lambda r: -r.tokens_per_s_per_gpu)[:8]:
        print("    " + _row(r), file=out)
    print(f"    shipped {_row(shipped)}", file=out)
    gpu_gb = env.pools.train.spec.gpu_memory_gb
    for v in checks:
        if v.layout is None:
            print(f"  trainer check {v.choice.label}: the shipped layout's pipeline stages do not divide "
                  f"{v.choice.train_nodes} nodes", file=out)
            continue
        print(f"  trainer check {v.choice.label}: {v.layout.describe()}, {v.memory_gb:.0f} GB a GPU "
              f"({'fits' if v.fits else 'does NOT fit'} the {FIT_FRACTION * gpu_gb:.0f} GB line), "
              f"{v.trainer_tokens_per_s_per_node:,.0f} response tokens/s a node (held: {v.held_tokens_per_s_per_node:,.0f}); "
              f"at its own rate {v.choice.tokens_per_s_per_gpu:,.0f} tokens/s/GPU, dropped "
              f"{v.choice.prediction.stale_dropped_fraction:.1%}", file=out)
    if best is None:
        print(f"  no split drops under {MAX_DROPPED:.0%} of the groups stale with a trainer that fits", file=out)
        return
    final = next((v.choice for v in checks if v.fits and v.choice.label == best.label), best)
    print(f"  best: {final.label}, max_staleness {final.max_staleness}: {final.tokens_per_s_per_gpu:,.0f} tokens/s/GPU "
          f"against the shipped {shipped.label}'s {shipped.tokens_per_s_per_gpu:,.0f} "
          f"({final.tokens_per_s_per_gpu / shipped.tokens_per_s_per_gpu - 1:+.1%})", file=out)


def _row(r: SplitChoice) -> str:
    p = r.prediction
    return (f"{r.label}: max_staleness {r.max_staleness}, step {p.step_time_s:,.0f} s, dropped "
            f"{p.stale_dropped_fraction:.1%}, trainer idle {p.trainer_idle_fraction:.0%}, slots fed "
            f"{p.slots_fed:.0%}, bound {p.bound}, {r.tokens_per_s_per_gpu:,.0f} tokens/s/GPU")
