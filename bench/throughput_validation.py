"""The first-principles GRPO loop (estimate/throughput.py) in closed form against the
discrete-event simulator, both models, at 48 and 125 p5en nodes.

    python bench/throughput_validation.py [--steps 20] [--seed 0]

Rates come from `plan --model`'s model (trainer FLOPs at the measured MFU plus the
communication the layout cannot hide; the decode roofline of the engine layout it picks), the
staleness from its pick; at 125 nodes the job's batch, groups in flight and buffer are scaled
by 125 / 48. The simulator (estimate.simulator) runs `--steps` steps after a 5-step
warm-up. Target (issue #26): step time within 10%.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from estimate.checks import load_environment  # noqa: E402
from estimate.planner import predict  # noqa: E402
from estimate.simulator import Simulator  # noqa: E402
from estimate.throughput import scaled_case  # noqa: E402

CASES = [("Qwen3-30B-A3B", 48, 16), ("Qwen3-235B-A22B", 48, 16), ("Qwen3-30B-A3B", 125, 40), ("Qwen3-235B-A22B", 125, 40)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print("| model | nodes | split | max_staleness | step s sim / plan | Δ | stale dropped sim / plan | "
          "response tokens/s sim / plan | sim wall s |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for model, nodes, train in CASES:
        env = load_environment("p5en-48", model=model)  # its layout resolved for that model
        spec, split, pick = scaled_case(env, nodes, train)
        plan = predict(spec, split)
        started = time.time()
        sim = Simulator.Config(spec, split, steps=args.steps, warmup_steps=5, seed=args.seed).build().run()
        print(f"| {model} | {nodes} | {split.label} | {spec.max_staleness} | {sim.step_time_s:,.1f} / {plan.step_time_s:,.1f} "
              f"| {plan.step_time_s / sim.step_time_s - 1:+.1%} | {sim.stale_dropped_fraction:.1%} / "
              f"{plan.stale_dropped_fraction:.1%} | {sim.trained_tokens_per_s:,.0f} / {plan.trained_tokens_per_s:,.0f} "
              f"| {time.time() - started:.0f} |", flush=True)


if __name__ == "__main__":
    main()
