"""`python -m payload local`: the whole RL loop on this machine (what `make demo` runs)."""

from __future__ import annotations

import argparse
import signal
import sys


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "local",
        help="the whole RL loop on one machine (embedded engine, queue, workers, EP=2 trainer)",
        description="Run the embedded rollout engine, the queue and buffer, a rollout worker, a verifier and "
        "a 2-process expert-parallel GRPO trainer on loopback, on a generated arithmetic task or --data.",
    )
    d = _defaults()
    p.add_argument("--steps", type=int, default=d.steps, help=f"trainer steps (default {d.steps})")
    p.add_argument("--seed", type=int, default=d.seed, help="model init, task order and sampling seed")
    p.add_argument("--output", help="output folder (default out/local/run-<UTC time>)")
    p.add_argument("--model", help="a local Qwen3-MoE checkpoint directory (default: a generated tiny policy)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--job-config", help="a job YAML whose data: section (the cluster's: columns, nested label "
                       "paths, chat messages, system prompt, split, verifier) this run uses")
    where.add_argument("--env", help="an environment (environments/NAME.yaml or a path) whose job.data this run uses")
    p.add_argument("--data", help="the training set (Parquet, JSON Lines or a save_to_disk folder): replaces the "
                   "section's data.train; without a section, JSON Lines with prompt and answer fields, scored by "
                   "exact match (default: generated larger-of-two-digits problems, 20 held out for eval)")
    p.add_argument("--eval-data", help="the held-out eval set, never trained on (replaces data.eval)")
    p.add_argument("--redis", help="redis://host:port/db: queue and buffer on this Redis (default: in memory)")
    p.add_argument("--prompts-per-step", type=int, default=d.prompts_per_step)
    p.add_argument("--group-size", type=int, default=d.group_size, help="samples per prompt (GRPO group)")
    p.add_argument("--learning-rate", type=float, default=d.learning_rate)
    p.add_argument("--temperature", type=float, default=d.temperature, help="rollout sampling temperature")
    p.add_argument("--max-staleness", type=int, default=d.max_staleness,
                   help="policy versions rollouts may lag (0: on-policy and deterministic; 1: overlap with training)")
    p.add_argument("--reward", choices=("verifier", "model"), default=d.reward,
                   help="score with the data's verifier, or with a tiny reward model served on loopback through "
                   "SGLang's /classify route (`reward-serve`, the reward tier's command)")
    p.add_argument("--tracking-uri", help="http(s)://host:port of an MLflow tracking server to log the run to "
                   "(default: $MLFLOW_TRACKING_URI, else no tracking)")
    p.add_argument("--no-progress", dest="progress", action="store_false", help="no live progress bar")
    p.set_defaults(run=run)


def _defaults():
    from payload.local.launcher import Launcher

    return Launcher.Config()


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from payload.local.launcher import Launcher, LocalError
    from payload.local.report import summary_table

    console = Console()
    try:
        launcher = Launcher.Config(
            steps=args.steps, seed=args.seed, output=args.output, model=args.model, redis=args.redis,
            job_config=args.job_config, env=args.env, data=args.data, eval_data=args.eval_data,
            prompts_per_step=args.prompts_per_step, group_size=args.group_size, learning_rate=args.learning_rate,
            temperature=args.temperature, max_staleness=args.max_staleness, progress=args.progress,
            reward=args.reward,
            tracking_uri=args.tracking_uri,
        ).build()
        # The data check first: a file the job cannot use is one line, and nothing is written.
        for line in launcher.prepare():
            print(line)
    except LocalError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    interrupted = []

    def on_interrupt(_signum, _frame):
        interrupted.append(True)
        launcher.stop.set()

    signal.signal(signal.SIGINT, on_interrupt)
    signal.signal(signal.SIGTERM, on_interrupt)
    console.print(f"output folder: {launcher.output}")
    try:
        summary = launcher.run()
    except LocalError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    console.print(summary_table(summary))
    for name, path in (("metrics", launcher.metrics_jsonl), ("plot", launcher.output / "reward.png")):
        if path.is_file():
            console.print(f"{name}: {path}")
    return 130 if interrupted else 0
