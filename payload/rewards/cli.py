"""`python -m payload reward-serve`: one replica of the job's reward tier (job.rewards.model).

    --engine sglang -- SGLANG_ARGS   SGLang's server with the chart's arguments (it becomes the
                                     process: SGLang drains on SIGTERM itself, and the pod probes
                                     its /health)
    --engine local                   the tiny reward model (payload/rewards/model_server.py) behind
                                     the same /classify route, for `payload local --reward model`
"""

from __future__ import annotations

import argparse
import os
import sys


class CliError(Exception):
    """Bad input: one line, exit code 2."""


def register(subparsers) -> None:
    p = subparsers.add_parser("reward-serve", help="run a reward model server (SGLang, or the tiny local one)",
                              description=__doc__.splitlines()[0])
    p.add_argument("--engine", choices=("sglang", "local"), default="sglang")
    p.add_argument("--job-config", help="job config YAML (default: $RL_JOB_CONFIG, else built-in defaults)")
    p.add_argument("--model-path", help="checkpoint directory (default: job rewards.model.path)")
    p.add_argument("--host", default="0.0.0.0")
    p.add_argument("--port", type=int, default=30000)
    p.add_argument("--score-token-id", type=int, default=0,
                   help="local engine: the LM head row that is the one-label score head")
    p.add_argument("sglang_args", nargs="*", metavar="-- SGLANG_ARGS", help="--engine sglang: SGLang's own arguments")
    p.set_defaults(run=run)


def _job(args):
    from spec.job import JOB_CONFIG_ENV, JobConfig, load_job_config

    path = args.job_config or os.environ.get(JOB_CONFIG_ENV)
    return load_job_config(path) if path else JobConfig()


def run(args: argparse.Namespace) -> int:
    from payload.common.service import PortInUse
    from spec.job import JobConfigError

    try:
        return _run(args)
    except (CliError, JobConfigError, PortInUse, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    job = _job(args)
    if args.engine == "sglang":
        from payload.rollout.sglang_args import reward_server_args

        sglang = args.sglang_args or reward_server_args(job, host=args.host, port=args.port)
        os.execv(sys.executable, [sys.executable, "-m", "sglang.launch_server", *sglang])
    if args.sglang_args:
        raise CliError("arguments after `--` are for --engine sglang")
    if job.rewards.model is not None and job.rewards.model.kind == "judge":
        raise CliError("job.rewards.model.kind judge needs --engine sglang (the local reward server is a scalar model)")
    path = args.model_path or (job.rewards.model.path if job.rewards.model else None)
    if path is None:
        raise CliError("--model-path is required (or job rewards.model.path)")
    import signal
    import threading

    import uvicorn

    from payload.common.service import bound_socket
    from spec.model_shape import ModelConfigError
    from payload.rewards.model_server import TinyRewardModel, build_app

    try:
        model = TinyRewardModel(path, args.score_token_id)
    except ModelConfigError as exc:
        raise CliError(f"--model-path {path}: {exc}") from None
    # Bound in the main thread (a taken port is one line); uvicorn serves on a thread, and SIGTERM
    # here lets it finish the calls in flight, then exits 0 (uvicorn.run would re-raise the signal).
    sock = bound_socket(args.host, args.port, "--port")
    server = uvicorn.Server(uvicorn.Config(build_app(model), host=args.host, port=args.port, log_level="warning",
                                           access_log=False))
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="http", daemon=True)
    thread.start()
    while not stop.wait(0.5):
        if not thread.is_alive():
            return 1
    server.should_exit = True
    thread.join(30)
    return 0
