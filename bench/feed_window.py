"""The shipped 30B loop with and without the feeder's window, in the discrete-event simulator.

    python bench/feed_window.py [--steps 24] [--seed 0]

The dataset feeder (payload/data/feeder.py) submits a task only while the positions submitted
stay within (policy version + 1 + max_staleness) × prompts_per_step plus what was lost: at most
(1 + max_staleness) batches are ever outstanding (issued, not yet trained or dropped), and each
publish releases one more batch of tasks. `plan`'s closed form and its simulator check
(tests/estimate/test_waves.py, test_stale_tokens_mask.py) run the loop with an unlimited feed,
where the groups in flight are re-claimed the moment they land and, reaching the cap, run in
lock-step waves. `Simulator.Config.feed_window_groups` is the feeder's rule; this prints both, on
p5en-48's 16:32 with the first-principles rates of `plan --model Qwen3-30B-A3B`.
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
    print("| pause | stale_tokens | in flight / mark | feed | step s | dropped | masked | slots fed | tokens/s/GPU | plan (no window) |")
    print("|---|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for pause, stale_tokens, in_flight, mark in CASES:
        estimate = estimate_rates(env, a=Assumptions(pause_mode=pause))
        spec = loop_spec(env, estimate).with_(stale_tokens=stale_tokens, groups_in_flight=in_flight,
                                              high_water_groups=mark)
        split = spec.split(16, 32)
        plan = all_tokens_per_s_per_gpu(predict(spec, split), spec, estimate.prompt_tokens)
        for window in (None, (1 + spec.max_staleness) * spec.prompts_per_step):
            sim = Simulator.Config(spec, split, steps=args.steps, warmup_steps=args.steps // 3, seed=args.seed,
                                   feed_window_groups=window).build().run()
            rate = all_tokens_per_s_per_gpu(sim, spec, estimate.prompt_tokens, split)
            print(f"| {pause} | {stale_tokens} | {in_flight} / {mark} | {'unlimited' if window is None else window} | "
                  f"{sim.step_time_s:.0f} | {sim.stale_dropped_fraction:.1%} | {sim.stale_masked_fraction:.1%} | "
                  f"{1 - sim.rollout_idle_fraction:.0%} | {rate:,.0f} | {plan:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
