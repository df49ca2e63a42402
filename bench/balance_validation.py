"""The planner against the simulator over grids of train:rollout splits, at 48 and 125 p5en nodes.

    python bench/balance_validation.py [--steps 30] [--seed 0] [--only 48]

For each split the SimPy model (estimate.simulator: every request, replica, buffer entry
and publish) runs `--steps` optimizer steps after a 5-step warm-up; the planner
(estimate.planner, closed form) predicts the same figures. Target (issue #8): step time
within 10%, trainer and rollout idle fractions within 10 points of the simulated ones.

Rates are assumptions for Qwen3-30B-A3B on p5en.48xlarge (8 × H200), not measurements: rollout
20,000 response tokens/s per node with 256 requests running per SGLang server; trainer 50,000
response tokens/s per node (22% MFU as bench/train_step.py measured, at ~20 GFLOP per token and
1000-token prompts); weight publish 15 s; responses lognormal, mean 4000, sigma 0.8, cut at
16384. `python -m payload plan --from-metrics` replaces them with a run's own.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from estimate.checks import load_environment  # noqa: E402
from estimate.loop import LoopSpec, Rates  # noqa: E402
from estimate.planner import predict  # noqa: E402
from estimate.simulator import Simulator  # noqa: E402

RATES = Rates(rollout_tokens_per_s_per_node=20_000, trainer_tokens_per_s_per_node=50_000, publish_s=15.0,
              response_tokens_mean=4000, response_tokens_sigma=0.8)

# name: (nodes, spec changes from the p5en-48 job, train node counts)
GRIDS = {
    # The seed's job; 2048 groups in flight (e.g. 32 workers × 64) to keep 32 servers' slots full,
    # a trainer mesh of one node so every split is a valid one.
    "48 nodes, max_staleness 2": (48, dict(groups_in_flight=2048, train_gpu_multiple=8), [8, 12, 16, 20, 24, 28, 32]),
    "48 nodes, max_staleness 4": (48, dict(groups_in_flight=2048, train_gpu_multiple=8, max_staleness=4),
                                  [8, 12, 16, 20, 24, 28, 32]),
    # ~1000 GPUs: batch and groups in flight scaled with the cluster.
    "125 nodes, max_staleness 2": (125, dict(groups_in_flight=6144, train_gpu_multiple=8, prompts_per_step=1024,
                                             high_water_groups=8192), [20, 30, 40, 50, 60, 70]),
    "125 nodes, max_staleness 4": (125, dict(groups_in_flight=6144, train_gpu_multiple=8, prompts_per_step=1024,
                                             high_water_groups=8192, max_staleness=4), [15, 25, 35, 50, 70]),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", help="run the grids whose name starts with this")
    args = parser.parse_args()
    base = LoopSpec.from_environment(load_environment("p5en-48"), RATES)
    worst = {"step": 0.0, "trainer idle": 0.0, "rollout idle": 0.0}
    for name, (nodes, changes, trains) in GRIDS.items():
        if args.only and not name.startswith(args.only):
            continue
        spec = base.with_(**changes)
        print(f"\n### {name}: {spec.prompts_per_step} prompts × {spec.group_size}, high water "
              f"{spec.high_water_groups}, {spec.groups_in_flight} groups in flight\n")
        print("| split | step s sim / plan | Δ | trainer idle sim / plan | rollout idle sim / plan "
              "| staleness sim / plan | stale dropped sim / plan | bound | sim wall s |")
        print("|---|---:|---:|---:|---:|---:|---:|---|---:|")
        for train in trains:
            split = spec.split(train, nodes - train)
            started = time.perf_counter()
            sim = Simulator.Config(spec, split, steps=args.steps + 5, warmup_steps=5, seed=args.seed).build().run()
            wall = time.perf_counter() - started
            plan = predict(spec, split)
            errors = {
                "step": abs(plan.step_time_s / sim.step_time_s - 1),
                "trainer idle": abs(plan.trainer_idle_fraction - sim.trainer_idle_fraction),
                "rollout idle": abs(plan.rollout_idle_fraction - sim.rollout_idle_fraction),
            }
            for key, value in errors.items():
                worst[key] = max(worst[key], value)
            print(f"| {split.label} | {sim.step_time_s:.1f} / {plan.step_time_s:.1f} | {plan.step_time_s / sim.step_time_s - 1:+.1%} "
                  f"| {sim.trainer_idle_fraction:.1%} / {plan.trainer_idle_fraction:.1%} "
                  f"| {sim.rollout_idle_fraction:.1%} / {plan.rollout_idle_fraction:.1%} "
                  f"| {sim.staleness_mean:.2f} / {plan.staleness_mean:.2f} "
                  f"| {sim.stale_dropped_fraction:.1%} / {plan.stale_dropped_fraction:.1%} | {plan.bound} | {wall:.0f} |",
                  flush=True)
    print(f"\nworst: step time {worst['step']:.1%}, trainer idle {worst['trainer idle'] * 100:.1f} points, "
          f"rollout idle {worst['rollout idle'] * 100:.1f} points")
    met = worst["step"] <= 0.10 and worst["trainer idle"] <= 0.10 and worst["rollout idle"] <= 0.10
    print("target (step within 10%, idle fractions within 10 points):", "met" if met else "NOT met")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
