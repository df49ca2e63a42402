"""`python -m payload plan` and `python -m payload simulate`: the train/rollout split, predicted or simulated.

    python -m payload plan --env p5en-48 --rollout-tokens-per-s 20000 --trainer-tokens-per-s 50000 --publish-s 15
    python -m payload plan --env default --from-metrics run/metrics.jsonl --measured-split 1:1
    python -m payload plan --env p5en-48 --model Qwen3-235B-A22B     # or a config.json path
    python -m payload simulate --env p5en-48 --from-metrics run/metrics.jsonl --split 16:32 --steps 40
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from spec.job import STALE_TOKENS


def _split(text: str) -> tuple[int, int]:
    try:
        train, rollout = (int(part) for part in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected TRAIN:ROLLOUT node counts, e.g. 16:32") from None
    return train, rollout


def _fraction(text: str) -> float:
    value = _positive(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a fraction in (0, 1]")
    return value


def _counts(text: str) -> tuple[int, ...]:
    try:
        counts = tuple(int(part) for part in text.split(","))
    except ValueError:
        counts = ()
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected whole numbers >= 1 separated by commas, e.g. 1536,2048")
    return counts


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number") from None
    if not value > 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number > 0")
    return value


def _inputs(p: argparse.ArgumentParser) -> None:
    p.add_argument("--env", default="default", help="environment name (environments/NAME.yaml) or a YAML path")
    rates = p.add_argument_group("measured rates (flags override what --from-metrics reads)")
    rates.add_argument("--from-metrics", metavar="FILE", help="a run's metrics JSONL or Prometheus text export")
    rates.add_argument("--measured-split", type=_split, metavar="T:R",
                       help="the nodes the measured run had (default: the environment's desired sizes)")
    rates.add_argument("--rollout-tokens-per-s", type=float, help="response tokens/s one rollout node decodes, slots full")
    rates.add_argument("--trainer-tokens-per-s", type=float, help="response tokens/s one trainer node trains")
    rates.add_argument("--publish-s", type=float, help="seconds one weight publish pauses the trainer and the servers "
                       "(default: measured, else modeled from the model and the hardware, estimate/costs.py)")
    rates.add_argument("--response-tokens-mean", type=float, help="mean response length (default: measured, "
                       "else half of batch.max_response_tokens)")
    rates.add_argument("--response-tokens-sigma", type=float, help="lognormal shape of response lengths (default 0.8)")
    rates.add_argument("--filtered-fraction", type=float, help="share of groups the equal-reward filter drops (default: measured, else 0)")
    rates.add_argument("--server-slots", type=int, default=256,
                       help="requests one SGLang server decodes at once (--max-running-requests)")
    spot = p.add_argument_group("spot reclaims of rollout nodes")
    spot.add_argument("--reclaims-per-node-hour", type=float, default=0.0)
    spot.add_argument("--replacement-s", type=float, default=600.0, help="reclaim until the new node serves")
    spot.add_argument("--notice-s", type=float, default=120.0, help="interruption notice")
    p.add_argument("--model", "--model-config", "--architecture", dest="model", metavar="NAME|CONFIG.json|FOLDER",
                   help="plan for this model instead of the job's, in every section (layout, memory, rates, publish, "
                   "checkpoint, export): a released model's name (spec/architectures: Qwen3-30B-A3B, Qwen3-235B-A22B), "
                   "a config.json, or a checkpoint folder; the layout the job leaves auto is chosen for it")
    p.add_argument("--split", type=_split, metavar="T:R", help="the split to compare (default: the environment's)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")


def register(subparsers) -> None:
    plan = subparsers.add_parser(
        "plan",
        help="recommend the train/rollout node split for a node budget",
        description="Predict step time, idle fractions and staleness of every split of the environment's "
        "train + rollout nodes, and recommend the fastest one inside the pools' limits.",
    )
    _inputs(plan)
    plan.add_argument("--reward-prefill-tokens-per-s", type=_positive, metavar="R",
                      help="prompt + response tokens/s one reward model replica scores (/classify, measured): "
                      "size the job's reward tier (job.rewards.model.replicas) for the recommended split's rollout")
    plan.add_argument("--stale-tokens", choices=STALE_TOKENS,
                      help="what becomes of tokens older than max_staleness (default the job's rollout.stale_tokens; "
                      "mask: a group decoded across publishes is kept while its newest tokens are fresh enough)")
    model = plan.add_argument_group("first-principles rates for --model (estimate/throughput.py)")
    model.add_argument("--train-mfu", type=_fraction, help="trainer model-FLOPs utilisation (default 0.357, bench/README.md); ranks the layouts too")
    model.add_argument("--peak-tflops", type=_positive, help="bf16 matmul peak a GPU (default: the pool's GPU's, spec/hardware.py); ranks the layouts too")
    model.add_argument("--hbm-efficiency", type=_fraction, help="one share of HBM bandwidth for every decode read (default: per kind, measured on an "
                       "H200 by bench/decode_bandwidth.py: KV 0.88, weights 0.38)")
    model.add_argument("--prompt-tokens", type=int, help="mean prompt tokens (default batch.max_prompt_tokens / 4)")
    model.add_argument("--search-splits", action="store_true",
                       help="also search every train:rollout split of the environment's nodes and the groups in "
                       "flight (--in-flight) for the most tokens/s/GPU with < 10%% dropped stale")
    model.add_argument("--in-flight", type=_counts, metavar="N,N,...",
                       help="groups in flight to try with --search-splits (default 768,1024,1536,2048,3072,4096)")
    model.add_argument("--pause-mode", choices=("retract", "in_place"),
                       help="SGLang pause_generation mode during a publish (default the job's rollout.pause_mode; retract: running requests re-prefill)")
    plan.set_defaults(run=run_plan)
    sim = subparsers.add_parser(
        "simulate",
        help="simulate one split (SimPy) next to the planner's prediction",
        description="Discrete-event simulation of the asynchronous loop for one split.",
    )
    _inputs(sim)
    sim.add_argument("--steps", type=int, default=40, help="optimizer steps to simulate")
    sim.add_argument("--warmup-steps", type=int, default=5, help="first steps left out of the figures")
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--hand-back", action=argparse.BooleanOptionalAction, default=True,
                     help="failed tasks return to the queue at once (else after rollout.visibility_timeout_s)")
    sim.set_defaults(run=run_simulate)


def _load(args: argparse.Namespace):
    """(environment, spec, measured or None, current split); raises the user-error types."""
    from estimate.checks import job_costs
    from estimate.loop import BalanceError, LoopSpec, Rates, Spot
    from dataclasses import replace

    from estimate.measure import check_provenance, read_metrics

    env = _environment(args)
    pools = env.pools
    measured = None
    values = {}
    if args.from_metrics:
        train, rollout = args.measured_split or (pools.train.desired_size, pools.rollout.desired_size)
        measured = read_metrics(args.from_metrics, train, rollout, env.job.algorithm.group_size)
        notes = check_provenance(measured, args.from_metrics, pools.train.spec.device, env.layout.model)
        measured = replace(measured, notes=notes + list(measured.notes))
        values = {k: v for k, v in vars(measured.rates).items()}
    for flag, key in (("rollout_tokens_per_s", "rollout_tokens_per_s_per_node"),
                      ("trainer_tokens_per_s", "trainer_tokens_per_s_per_node"), ("publish_s", "publish_s"),
                      ("response_tokens_mean", "response_tokens_mean"), ("response_tokens_sigma", "response_tokens_sigma"),
                      ("filtered_fraction", "filtered_fraction")):
        if getattr(args, flag) is not None:
            values[key] = getattr(args, flag)
    costs = job_costs(env)
    values.setdefault("publish_s", costs.publish.seconds)
    for key, flag in (("rollout_tokens_per_s_per_node", "--rollout-tokens-per-s"),
                      ("trainer_tokens_per_s_per_node", "--trainer-tokens-per-s")):
        if key not in values:
            raise BalanceError(f"{flag} is missing: give it, or --from-metrics with a run's metrics")
    spot = None
    if args.reclaims_per_node_hour:
        spot = Spot(args.reclaims_per_node_hour, args.replacement_s, args.notice_s,
                    getattr(args, "hand_back", True))
    spec = LoopSpec.from_environment(env, Rates(**values), server_slots=args.server_slots, spot=spot)
    current = args.split or (pools.train.desired_size, pools.rollout.desired_size)
    return env, spec, measured, current


def _environment(args: argparse.Namespace):
    """The environment, planned for --model where given (estimate.checks.load_environment), its
    job's rollout.stale_tokens replaced by --stale-tokens."""
    from estimate.checks import load_environment
    from estimate.loop import BalanceError
    from spec.model_shape import ARCHITECTURES

    if args.model and args.model not in ARCHITECTURES and not Path(args.model).exists():
        raise BalanceError(f"--model {args.model!r}: neither a released model ({', '.join(ARCHITECTURES)}) nor a "
                           "config.json or checkpoint folder here")
    figures = {"matmul_tflops": getattr(args, "peak_tflops", None), "train_mfu": getattr(args, "train_mfu", None)}
    env = load_environment(args.env, model=args.model, gpu_figures={k: v for k, v in figures.items() if v is not None})
    if getattr(args, "stale_tokens", None) is not None:  # the loop models read it from the job
        env = env.with_job("rollout", stale_tokens=args.stale_tokens)
    return env


def _user_errors():
    from spec.environment import EnvironmentFileError as EnvFileError
    from estimate.loop import BalanceError
    from spec.job import JobConfigError

    return BalanceError, EnvFileError, JobConfigError


def _print_footprint(args: argparse.Namespace) -> int:
    from estimate.footprint import job_footprint, print_footprint, print_layouts
    from spec.model_shape import ModelConfigError, shape_of

    try:
        env = _environment(args)
    except (*_user_errors(), ModelConfigError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    name, config = shape_of(env.job.model)
    if not _print_throughput(args, env):
        return 2
    layout, shape, fp = job_footprint(config, env)
    print_footprint(name, env, layout, shape, fp, sys.stdout)
    best = print_layouts(name, env, config, sys.stdout)
    if best is None:
        print(f"  nothing fits: {env.name}'s train pool is too small for {name}", file=sys.stdout)
    elif best != layout:
        print(f"  the job's layout for {name} ({layout.describe()}) is not the cheapest that fits: the sizes set in "
              f"job.parallel keep it from {best.describe()} (leave them auto to run it)", file=sys.stdout)
    else:
        print(f"  the job's layout for {name} is the one picked", file=sys.stdout)
    return 0


def _print_throughput(args: argparse.Namespace, env) -> bool:
    """The first-principles step and tokens/s/GPU of the job's model on `env` (estimate/throughput.py)."""
    from dataclasses import replace

    from estimate.planner import make_plan
    from estimate.throughput import Assumptions, choose_staleness, estimate_rates, loop_spec, print_estimate

    assumptions = Assumptions()
    # --peak-tflops and --train-mfu are the GPU pools' figures (_environment): the layout's too.
    for flag in ("hbm_efficiency", "prompt_tokens", "pause_mode"):
        if getattr(args, flag, None) is not None:
            assumptions = replace(assumptions, **{flag: getattr(args, flag)})
    try:
        estimate = estimate_rates(env, response_mean=args.response_tokens_mean,
                                  response_sigma=args.response_tokens_sigma or 0.8, a=assumptions)
        spec = loop_spec(env, estimate, args.response_tokens_sigma or 0.8)
        pools = env.pools
        split = spec.split(*(args.split or (pools.train.desired_size, pools.rollout.desired_size)))
    except _user_errors() as exc:
        print(f"error: {exc}", file=sys.stderr)
        return False
    rows, pick = choose_staleness(spec, split, estimate.prompt_tokens)
    print_estimate(estimate, env, rows, pick, sys.stdout, args.model)
    try:  # the split, at the picked staleness, within the pools' limits
        plan = make_plan(spec.with_(max_staleness=pick.max_staleness), sum(split_nodes(split)),
                         split_nodes(split), (pools.train.min_size, pools.train.max_size),
                         (pools.rollout.min_size, pools.rollout.max_size))
    except _user_errors() as exc:
        print(f"  split: {exc}", file=sys.stdout)
        return True
    if args.search_splits:
        from estimate.search import IN_FLIGHT, print_search, search_splits, verified_best

        sigma = args.response_tokens_sigma or 0.8
        rows, _, shipped = search_splits(env, estimate, args.in_flight or IN_FLIGHT, sigma)
        best, checks = verified_best(env, estimate, rows, sigma)
        print_search(rows, best, shipped, env, sys.stdout, checks)
    best = plan.recommended
    print(f"  split at max_staleness {pick.max_staleness}: {best.split.label} recommended ({best.step_time_s:,.0f} s a step, "
          f"bound {best.bound}; trainer multiples of {spec.min_train_nodes} node(s) for the layout's "
          f"{spec.train_gpu_multiple} GPUs)" + (f"; outside the pools' limits {plan.unconstrained.split.label} is faster"
                                                if plan.unconstrained else ""), file=sys.stdout)
    return True


def split_nodes(split) -> tuple[int, int]:
    return split.train_nodes, split.rollout_nodes


def run_plan(args: argparse.Namespace) -> int:
    from estimate.checks import job_costs
    from estimate.planner import make_plan, size_reward_tier
    from estimate.report import plan_json, print_costs, print_plan

    rates = (args.from_metrics, args.rollout_tokens_per_s, args.trainer_tokens_per_s, args.publish_s)
    if args.model and all(r is None for r in rates):
        return _print_footprint(args)
    try:
        env, spec, measured, current = _load(args)
        pools = env.pools
        # The job's own reward tier holds whole rollout nodes (cluster.gpu_pods.RewardLayout): the
        # split is of the nodes left to the trainer and the rollout servers.
        model = env.job.rewards.model
        reward_nodes = model.nodes(pools.rollout.spec.gpus) if env.job.rewards.serves_model else 0
        budget = pools.train.desired_size + pools.rollout.desired_size - reward_nodes
        held = f" less the reward tier's {reward_nodes}" if reward_nodes else ""
        if args.split and sum(args.split) != budget:
            raise _user_errors()[0](
                f"--split {args.split[0]}:{args.split[1]}: {sum(args.split)} nodes, the budget is {budget} "
                f"(pools.train.desired_size + pools.rollout.desired_size{held})"
            )
        if not args.split:
            current = (current[0], current[1] - reward_nodes)
        plan = make_plan(spec, budget, current, (pools.train.min_size, pools.train.max_size),
                         (max(pools.rollout.min_size - reward_nodes, 0), pools.rollout.max_size - reward_nodes))
        tier = None
        if args.reward_prefill_tokens_per_s:
            if model is None or model.url is not None:
                raise _user_errors()[0]("--reward-prefill-tokens-per-s sizes the job's own reward tier: "
                                        "job.rewards.model must be set, without a url")
            tier = size_reward_tier(plan.recommended, spec, args.reward_prefill_tokens_per_s,
                                    env.job.batch.max_prompt_tokens / 4, model.tensor_parallel_size,
                                    pools.rollout.spec.gpus)
    except _user_errors() as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    costs = job_costs(env)
    if args.json:
        reward = {"reward_nodes_held": reward_nodes, "reward_tier": tier.as_dict() if tier else None}
        print(json.dumps(plan_json(plan, spec, measured) | reward | {"data_movement": costs.as_dict()}, indent=2))
    else:
        print_plan(plan, spec, measured, env.name)
        if reward_nodes:
            print(f"- the reward tier holds {reward_nodes} rollout node(s) ({model.replicas} replicas x TP "
                  f"{model.tensor_parallel_size}); the split is of the other {budget}")
        if tier:
            rollout = plan.recommended.split.rollout_nodes
            print(f"- reward tier for the recommended split: {tier.scored_tokens_per_s:,.0f} prompt + response tokens/s "
                  f"to score (prompts of {env.job.batch.max_prompt_tokens / 4:,.0f} tokens assumed) -> "
                  f"job.rewards.model.replicas {tier.replicas} ({tier.nodes} node(s)): pools.rollout.desired_size "
                  f"{rollout + tier.nodes}" + ("" if tier.nodes == reward_nodes else
                                               "; the split changes with it: plan again after setting both"))
        print_costs(costs, env, env.layout.model)
    return _print_footprint(args) if args.model else 0


def run_simulate(args: argparse.Namespace) -> int:
    from estimate.planner import predict
    from estimate.report import print_simulation
    from estimate.simulator import Simulator

    try:
        env, spec, measured, current = _load(args)
        split = spec.split(*current)
        config = Simulator.Config(spec, split, steps=args.steps, warmup_steps=args.warmup_steps, seed=args.seed,
                                  visibility_timeout_s=env.job.rollout.visibility_timeout_s)
    except _user_errors() as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    result = config.build().run()
    prediction = predict(spec, split)
    if args.json:
        print(json.dumps({"simulated": vars(result), "predicted": prediction.as_dict()}, indent=2))
    else:
        print_simulation(result, prediction)
    return 0
