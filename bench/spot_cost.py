"""What spot costs: training throughput against the rollout nodes' reclaim rate, with and without
tasks handed back, for the asynchronous loop and for a synchronous one.

    python bench/spot_cost.py [--steps 60] [--seeds 2] [--plot bench/spot_cost.png]

The seed's 16:32 split of p5en-48 (rates as in bench/balance_validation.py, rollout pool on
spot, replacement node serving 600 s after a reclaim, 120 s notice during which the router
sends the replica nothing new). Four simulated loops:

- asynchronous (the payload's p5en-48 job: max_staleness 4, stale tokens masked, the dataset
  feeder's window of 1 + max_staleness batches), tasks of a reclaimed server handed back at
  once / re-delivered after the 600 s visibility timeout;
- synchronous (max_staleness 0, the trainer issues one batch of prompts per step and waits
  for all of it), same two ways;

and the planner's prediction for the asynchronous loop. Throughput is trained tokens/s relative
to the same loop without reclaims; the mean of `--seeds` runs per point.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.balance_validation import RATES  # noqa: E402
from estimate.checks import load_environment  # noqa: E402
from estimate.loop import LoopSpec, Spot  # noqa: E402
from estimate.planner import predict  # noqa: E402
from estimate.simulator import Simulator  # noqa: E402

RECLAIMS_PER_NODE_HOUR = [0.0, 0.05, 0.1, 0.2, 0.35, 0.5]
SPLIT = (16, 32)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--plot", default=str(Path(__file__).resolve().parent / "spot_cost.png"))
    args = parser.parse_args()
    env = load_environment("p5en-48")
    base = LoopSpec.from_environment(env, RATES).with_(groups_in_flight=2048, train_gpu_multiple=8)
    visibility = env.job.rollout.visibility_timeout_s
    loops = {
        "asynchronous": (base, None),
        "synchronous": (base.with_(max_staleness=0), base.prompts_per_step),
    }
    curves: dict[str, list[float]] = {}
    print("| reclaims / node-hour | rollout nodes serving | " + " | ".join(
        f"{loop}, {mode}" for loop in loops for mode in ("hand-back", "timeout")) + " | planner, asynchronous |")
    print("|" + "---:|" * 7)
    baseline: dict[str, float] = {}
    for rate in RECLAIMS_PER_NODE_HOUR:
        row = []
        for loop, (spec, window) in loops.items():
            for hand_back in (True, False):
                spot = Spot(rate, replacement_s=600, notice_s=120, hand_back=hand_back) if rate else None
                s = spec.with_(spot=spot)
                runs = [Simulator.Config(s, s.split(*SPLIT), steps=args.steps + 5, warmup_steps=5, seed=seed,
                                         feed_window_groups=window, visibility_timeout_s=visibility).build().run()
                        for seed in range(args.seeds)]
                tokens = sum(r.trained_tokens_per_s for r in runs) / len(runs)
                baseline.setdefault(loop, tokens)
                key = f"{loop}, {'hand-back' if hand_back else 'timeout'}"
                curves.setdefault(key, []).append(tokens / baseline[loop])
                row.append(f"{tokens / baseline[loop]:.2f} ({tokens / 1e3:.0f}k)")
        spot = Spot(rate, replacement_s=600, notice_s=120) if rate else None
        planned = predict(base.with_(spot=spot), base.split(*SPLIT)).trained_tokens_per_s
        planned_0 = predict(base, base.split(*SPLIT)).trained_tokens_per_s
        curves.setdefault("planner, asynchronous", []).append(planned / planned_0)
        serving = 1 / (1 + rate / 3600 * (600 + 120))
        curves.setdefault("rollout nodes serving", []).append(serving)
        print(f"| {rate:g} | {serving:.2f} | " + " | ".join(row) + f" | {planned / planned_0:.2f} |", flush=True)
    plot(curves, args.plot)
    print(f"\nplot: {args.plot}")
    return 0


def plot(curves: dict[str, list[float]], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.5), dpi=120)
    styles = {
        "asynchronous, hand-back": dict(color="tab:blue", marker="o"),
        "asynchronous, timeout": dict(color="tab:blue", marker="x", linestyle="--"),
        "synchronous, hand-back": dict(color="tab:red", marker="o"),
        "synchronous, timeout": dict(color="tab:red", marker="x", linestyle="--"),
        "planner, asynchronous": dict(color="black", linestyle=":"),
        "rollout nodes serving": dict(color="gray", linestyle="-.", linewidth=1),
    }
    for name, values in curves.items():
        ax.plot(RECLAIMS_PER_NODE_HOUR, values, label=name, **styles[name])
    ax.set_xlabel("spot reclaims per rollout node-hour")
    ax.set_ylabel("trained tokens/s, relative to no reclaims")
    ax.set_ylim(0, 1.05)
    ax.grid(alpha=0.3)
    ax.set_title(f"p5en-48 {SPLIT[0]}:{SPLIT[1]}: what spot reclaims cost (simulated)")
    ax.legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    fig.savefig(path)


if __name__ == "__main__":
    sys.exit(main())
