"""The shipped 30B loop with the dataset feeder's window and with an unlimited feed: `plan`'s
closed form beside the discrete-event simulator.

    python bench/feed_window.py [--steps 24] [--seed 0]

The dataset feeder (payload/data/feeder.py) submits a task only while the positions submitted
stay within (policy version + 1 + max_staleness) × prompts_per_step plus what was lost: at most
(1 + max_staleness) batches are ever outstanding (issued, not yet trained or dropped), and each
publish releases one more batch of tasks. Both loop models run that rule by default
(LoopSpec.feed_window); `feed_window=False` is an unlimited feed, where the groups in flight are
re-claimed the moment they land and, reaching the cap, run in lock-step waves. This prints both,
on p5en-48's 16:32 with the first-principles rates of `plan --model Qwen3-30B-A3B`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from estimate.checks import load_environment  # noqa: E402
from estimate.planner import predict  # noqa: E402
from estimate.simulator import Simulator  # noqa: E402
from estimate.throughput import Assumptions, all_tokens_per_s_per_gpu, estimate_rates, loop_spec  # noqa: E402

# (pause mode, rollout.stale_tokens, groups in flight, buffer high-water mark): the job before and
# after it masked stale tokens, then more groups in flight.
CASES = [("retract", "drop_group", 1536, 1024), ("retract", "mask", 1536, 1024), ("in_place", "mask", 1536, 1024),
         ("retract", "drop_group", 2048, 1024), ("in_place", "mask", 2048, 1024), ("in_place", "mask", 2560, 2560)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=24)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    env = load_environment("p5en-48", model="Qwen3-30B-A3B")
    print("| pause | stale_tokens | in flight / mark | feed | plan: step, dropped, masked, slots fed, tokens/s/GPU "
          "| simulator: the same |")
    print("|---|---|---:|---|---:|---:|")
    for pause, stale_tokens, in_flight, mark in CASES:
        estimate = estimate_rates(env, a=Assumptions(pause_mode=pause))
        base = loop_spec(env, estimate).with_(stale_tokens=stale_tokens, groups_in_flight=in_flight,
                                              high_water_groups=mark)
        split = base.split(16, 32)
        for window in (False, True):
            spec = base.with_(feed_window=window)
            cells = []
            for result in (predict(spec, split),
                           Simulator.Config(spec, split, steps=args.steps, warmup_steps=args.steps // 3,
                                            seed=args.seed).build().run()):
                rate = all_tokens_per_s_per_gpu(result, spec, estimate.prompt_tokens, split)
                cells.append(f"{result.step_time_s:.0f} s, {result.stale_dropped_fraction:.1%}, "
                             f"{result.stale_masked_fraction:.1%}, {1 - result.rollout_idle_fraction:.0%}, {rate:,.0f}")
            print(f"| {pause} | {stale_tokens} | {in_flight} / {mark} | {'window' if window else 'unlimited'} | "
                  f"{cells[0]} | {cells[1]} |", flush=True)

if __name__ == "__main__":
    main()
