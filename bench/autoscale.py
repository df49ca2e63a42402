"""The rollout scaling rule (estimate.autoscale) against the fixed split, in the simulator.

    python bench/autoscale.py [--train 8] [--steps 20] [--reclaims 0.2] [--seed 0] [--replica-gpus 8]

p5en-48's job at the rates of bench/balance_validation.py, max_staleness 4 and 1024 groups in
flight, rollout pool on spot (Poisson reclaims per node-hour, 120 s notice, 600 s replacement).
Both runs start from the same split and seed; the autoscaled one evaluates the rule every 60 s,
drains a replica (no new groups, in-flight ones finish) before releasing its node and boots one
in 600 s. GPU-hours are the rollout nodes held over the measured steps (after the 5-step warm-up).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from balance_validation import RATES  # noqa: E402

from estimate.checks import load_environment  # noqa: E402
from estimate.autoscale import RolloutScaler, compare  # noqa: E402
from estimate.loop import LoopSpec, Spot  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=int, default=8)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--reclaims", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=0)
    # The scenario bench/README.md records: TP8 replicas, one a node, all 1024 groups' requests
    # in their slots. p5en-48 now ships TP4 (two a node): 1024 groups keep its 80 replicas 80%
    # fed and the split becomes rollout-bound, so there is nothing for the rule to give back.
    parser.add_argument("--replica-gpus", type=int, default=8)
    args = parser.parse_args()
    base = LoopSpec.from_environment(load_environment("p5en-48"), RATES)
    spec = base.with_(groups_in_flight=1024, train_gpu_multiple=8, max_staleness=4,
                      spot=Spot(reclaims_per_node_hour=args.reclaims), replica_gpus=args.replica_gpus)
    split = spec.split(args.train, 48 - args.train)
    started = time.perf_counter()
    runs = compare(spec, split, RolloutScaler(min_replicas=1, max_replicas=split.replicas), steps=args.steps + 5,
                   seed=args.seed)
    print(f"split {split.label}, {args.reclaims} reclaims/node-hour, {args.steps} steps after warm-up\n")
    print("| run | step s | trainer idle | stale dropped | rollout GPU-hours | trained tokens | GPU-h per M tokens | reclaims |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in runs:
        print(f"| {r.label} | {r.step_time_s:.1f} | {r.trainer_idle_fraction:.1%} | {r.stale_dropped_fraction:.1%} "
              f"| {r.gpu_hours:.1f} | {r.trained_tokens / 1e6:.0f} M | {r.gpu_hours_per_million_tokens:.3f} | {r.reclaims} |")
    print(f"\n{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
