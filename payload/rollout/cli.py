"""`serve`, `rollout` and `verify`: the rollout side's processes.

    python -m payload serve --engine sglang        # SGLang with this job's layout (rollout pool)
    python -m payload serve --engine local --model-path DIR   # the embedded engine (CPU / laptop)
    python -m payload rollout --server-url URL --queue-url redis://...
    python -m payload verify --queue-url redis://...

Settings come from the job config (--job-config, else $RL_JOB_CONFIG, else the defaults);
flags override it. Every command serves /metrics, /healthz and /readyz on --metrics-port,
logs JSON lines, and stops gracefully on SIGTERM.
"""

from __future__ import annotations

import argparse
import os
import sys

# Set by the k8s charts (k8s/pods.py, k8s/charts/workers.py).
QUEUE_URL_ENV = "RL_QUEUE_URL"
SERVER_URL_ENV = "RL_ROUTER_URL"
METRICS_PORT_ENV = "RL_METRICS_PORT"
NAME_ENV = "POD_NAME"


class CliError(Exception):
    """A bad flag or setting: printed as one line, exit code 2."""


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--job-config", help="job config YAML (default: $RL_JOB_CONFIG, else built-in defaults)")
    parser.add_argument("--metrics-port", type=int, default=int(os.environ.get(METRICS_PORT_ENV, 9400)),
                        help=f"/metrics, /healthz, /readyz port (default ${METRICS_PORT_ENV}, else 9400)")
    parser.add_argument("--stall-timeout-s", type=float, default=600.0,
                        help="/healthz fails after this long without progress (default 600)")
    parser.add_argument("--log-level", default="INFO")


def _queue_args(parser: argparse.ArgumentParser, required: bool) -> None:
    parser.add_argument("--queue-url", default=os.environ.get(QUEUE_URL_ENV),
                        help=f"Redis URL of the task queue and buffer (default ${QUEUE_URL_ENV})"
                        + ("" if required else "; for catching up to the newest exported weights"))
    parser.add_argument("--namespace", default="rl", help="key prefix of this job in Redis")


def register(subparsers) -> None:
    serve = subparsers.add_parser("serve", help="run a rollout server (SGLang or the embedded engine)",
                                  description="Run a rollout server and keep it on the newest policy weights.")
    serve.add_argument("--engine", choices=("sglang", "local"), default="sglang")
    serve.add_argument("--model-path", help="checkpoint directory (default: job model.path)")
    serve.add_argument("--host", default="0.0.0.0")
    serve.add_argument("--port", type=int, default=30000)
    serve.add_argument("--device", default="cpu", help="local engine: torch device")
    serve.add_argument("--dtype", choices=("float32", "bfloat16"), default="float32", help="local engine: weights dtype")
    serve.add_argument("--max-batch-size", type=int, default=64, help="local engine: sequences per batch")
    serve.add_argument("--seed", type=int, default=0, help="local engine: sampling seed")
    serve.add_argument("--poll-s", type=float, default=30.0, help="seconds between health probes and catch-up checks")
    serve.add_argument("sglang_args", nargs="*", metavar="-- SGLANG_ARGS",
                       help="after `--`: sglang.launch_server's arguments as given (default: built from the job "
                       "config); --model-path and --weight-version are replaced when a newer export exists")
    _queue_args(serve, required=False)
    _common(serve)
    serve.set_defaults(run=run_serve)

    rollout = subparsers.add_parser("rollout", help="run a rollout worker",
                                    description="Pull tasks, generate their groups, score them, write them to the buffer.")
    rollout.add_argument("--server-url", default=os.environ.get(SERVER_URL_ENV),
                         help=f"router or rollout server URL (default ${SERVER_URL_ENV})")
    rollout.add_argument("--name", default=os.environ.get(NAME_ENV),
                         help=f"consumer name (default ${NAME_ENV}, else the hostname)")
    rollout.add_argument("--concurrency", type=int, help="tasks in flight (default: job rollout.worker_concurrency)")
    rollout.add_argument("--max-new-tokens", type=int, help="default: job batch.max_response_tokens")
    rollout.add_argument("--stop-token-id", type=int, action="append", default=[], help="extra stop token (repeatable)")
    rollout.add_argument("--visibility-timeout-s", type=float, help="default: job rollout.visibility_timeout_s")
    rollout.add_argument("--max-deliveries", type=int, help="default: job rollout.max_deliveries")
    rollout.add_argument("--drain-timeout-s", type=float, default=90.0,
                         help="after SIGTERM, in-flight tasks get this long before they are handed back")
    rollout.add_argument("--request-timeout-s", type=float, default=900.0)
    rollout.add_argument("--max-attempts", type=int, default=5, help="generation attempts before the task is handed back")
    verifier = rollout.add_mutually_exclusive_group()
    verifier.add_argument("--inline-verifier", dest="inline_verifier", action="store_true", default=None)
    verifier.add_argument("--no-inline-verifier", dest="inline_verifier", action="store_false",
                          help="leave scoring to `verify` workers (default: job rollout.inline_verifier)")
    rollout.add_argument("--verifier-processes", type=int, default=1)
    _queue_args(rollout, required=True)
    _common(rollout)
    rollout.set_defaults(run=run_rollout)

    verify = subparsers.add_parser("verify", help="run a verifier worker",
                                   description="Score groups that rollout workers left unverified.")
    verify.add_argument("--name", default=os.environ.get(NAME_ENV),
                        help=f"consumer name (default ${NAME_ENV}, else the hostname)")
    verify.add_argument("--processes", type=int, default=2, help="verifier processes")
    verify.add_argument("--visibility-timeout-s", type=float, help="default: job rollout.visibility_timeout_s")
    verify.add_argument("--max-deliveries", type=int, help="default: job rollout.max_deliveries")
    _queue_args(verify, required=True)
    _common(verify)
    verify.set_defaults(run=run_verify)


# -- shared set-up --------------------------------------------------------------------------------


def _job(args):
    from spec.job import JOB_CONFIG_ENV, JobConfig, load_job_config

    path = args.job_config or os.environ.get(JOB_CONFIG_ENV)
    return load_job_config(path) if path else JobConfig()


def _positive(name: str, value) -> None:
    if value is not None and value <= 0:
        raise CliError(f"{name}={value}: must be positive")


def _queue(args, job, required: bool):
    from payload.queue.base import RolloutQueue

    if not args.queue_url:
        if required:
            raise CliError(f"--queue-url is required (or set ${QUEUE_URL_ENV})")
        return None
    if args.queue_url.startswith("local://"):  # the local launcher's in-memory queue
        from payload.queue.url import open_queue

        return open_queue(args.queue_url)
    return RolloutQueue.Config(
        backend="redis",
        url=args.queue_url,
        namespace=args.namespace,
        visibility_timeout_s=getattr(args, "visibility_timeout_s", None) or job.rollout.visibility_timeout_s,
        max_deliveries=getattr(args, "max_deliveries", None) or job.rollout.max_deliveries,
        high_water_groups=job.rollout.buffer_high_water_groups,
    ).build()


def _reward_url(job) -> str | None:
    """The reward model's address when job.rewards weighs one: its shared url, else the job's own
    reward servers' ($RL_REWARD_URL, set by the chart and the local launcher)."""
    from payload.rewards.model import REWARD_URL_ENV

    rewards = job.rewards
    if not rewards.uses_model:
        return None
    url = rewards.model.url or os.environ.get(REWARD_URL_ENV)
    if not url:
        raise CliError(f"job.rewards weighs a reward model: set rewards.model.url, or ${REWARD_URL_ENV} to the job's "
                       "reward servers")
    return url


def _service(args, name: str):
    from payload.common.service import Service, bound_socket, configure_logging

    configure_logging(name, args.log_level)
    config = Service.Config(metrics_port=args.metrics_port, stall_timeout_s=args.stall_timeout_s)
    if config.metrics_port:  # taken: fail now, before the queue is opened (it creates its streams)
        bound_socket(config.metrics_host, config.metrics_port, "--metrics-port").close()
    return config.build(name)


def _user_errors() -> tuple[type[Exception], ...]:
    """Error types meaning "bad input": those of the modules this command has imported (so a
    worker that never loads a model never imports torch for its error class)."""
    from payload.common.service import PortInUse
    from spec.job import JobConfigError
    from payload.queue.base import QueueError
    from payload.rewards.base import VerifierError

    errors = [CliError, JobConfigError, QueueError, VerifierError, PortInUse]
    for module, name in (("spec.model_shape", "ModelConfigError"), ("payload.rollout.engine", "EngineError"),
                         ("payload.rollout.chat", "ChatTemplateError"),
                         ("payload.common.efa", "EfaError")):
        if module in sys.modules:
            errors.append(getattr(sys.modules[module], name))
    return tuple(errors)


def _guarded(run):
    """Turn the payload's user-facing errors into one line on stderr and exit code 2."""

    def wrapper(args) -> int:
        try:
            return run(args)
        except Exception as exc:
            if not isinstance(exc, _user_errors()):
                raise
            print(f"error: {exc}", file=sys.stderr)
            return 2

    return wrapper


# -- commands -------------------------------------------------------------------------------------


@_guarded
def run_serve(args) -> int:
    import subprocess
    import tempfile

    from payload.common.efa import enforce_if_required
    from payload.rollout.serve import (
        SGLANG_ENV,
        LocalServer,
        Supervisor,
        flag_value,
        launch_start_weights,
        passthrough_args,
        replica_nodes,
        sglang_command,
        share_sglang_metrics,
        stop_sglang,
    )

    _positive("--max-batch-size", args.max_batch_size)
    _positive("--poll-s", args.poll_s)
    job = _job(args)
    service = _service(args, f"serve-{args.engine}")
    queue = _queue(args, job, required=False)
    if args.engine == "local" and args.sglang_args:
        raise CliError("arguments after `--` are for --engine sglang")
    if args.engine == "local" and job.rollout.precision == "fp8":
        raise CliError("job.rollout.precision fp8 needs --engine sglang (the embedded engine serves the trainer's dtype)")
    base_path = args.model_path or flag_value(args.sglang_args, "--model-path") or job.rollout_model_path
    nodes, node_rank = replica_nodes(args.sglang_args)
    model_path, version = launch_start_weights(base_path, queue, nodes=nodes)
    if args.engine == "local":
        from spec.model_shape import Qwen3MoeConfig

        Qwen3MoeConfig.from_pretrained(model_path)  # a wrong path fails here, as one line
    service.start()
    url = f"http://127.0.0.1:{args.port}"
    process = local = None
    if args.engine == "sglang":
        enforce_if_required()  # pins NCCL_NET before SGLang creates any NCCL communicator
        if args.sglang_args:
            command = [sys.executable, "-m", "sglang.launch_server",
                       *passthrough_args(args.sglang_args, model_path=model_path, weight_version=version)]
            args.port = int(flag_value(args.sglang_args, "--port") or 30000)
            url = f"http://127.0.0.1:{args.port}"
        else:
            command = sglang_command(job, model_path=model_path, host=args.host, port=args.port,
                                     weight_version=version)
        metrics_env = share_sglang_metrics(service.registry, tempfile.mkdtemp(prefix="sglang-metrics-"))
        process = subprocess.Popen(command, env={**os.environ, **SGLANG_ENV, **metrics_env})
    else:
        from payload.rollout.engine import Engine

        engine = Engine.Config(model_path=model_path, dtype=args.dtype, device=args.device,
                               max_batch_size=args.max_batch_size, seed=args.seed, weight_version=version).build()
        local = LocalServer(engine, args.host, args.port).start()
    supervisor = Supervisor(Supervisor.Config(url=url, poll_s=args.poll_s, follower=node_rank > 0), service, queue,
                            process)
    try:
        return supervisor.run()
    finally:
        supervisor.close()
        if process is not None:
            stop_sglang(process, url)  # the pod's grace period to drain (payload/rollout/serve.py)
        if local is not None:
            local.stop()
        service.close()


@_guarded
def run_rollout(args) -> int:
    import socket

    from payload.rollout.client import SamplingParams, SGLangClient
    from payload.rollout.worker import RolloutWorker

    if not args.server_url:
        raise CliError(f"--server-url is required (or set ${SERVER_URL_ENV})")
    for name in ("concurrency", "max_new_tokens", "visibility_timeout_s", "max_deliveries", "drain_timeout_s",
                 "request_timeout_s", "max_attempts", "verifier_processes"):
        _positive("--" + name.replace("_", "-"), getattr(args, name))
    job = _job(args)
    reward_url = _reward_url(job)  # before the queue opens: a missing address is one line
    inline = job.rollout.inline_verifier if args.inline_verifier is None else args.inline_verifier
    from payload.queue.access import worker_user_error

    # A user Redis would refuse every verified group: one line now, not tasks dead-lettered later.
    if args.queue_url and (problem := worker_user_error(args.queue_url, job, inline)):
        raise CliError(problem)
    routed_shape = routed_layers = None
    if job.rollout.routes_replayed:
        from payload.model import Qwen3MoeConfig

        model = Qwen3MoeConfig.from_pretrained(job.model.path)
        routed_shape = (model.num_hidden_layers, model.num_experts_per_tok)
        routed_layers = tuple(model.moe_layer_ids)
    chat = None
    if job.data is not None and (job.data.environment or job.data.environments):
        from payload.rollout.chat import ChatTurns

        # A job with environments: a missing tokenizer or template fails here, in one line.
        chat = ChatTurns.from_pretrained(job.model.path, dict(job.data.chat_template_kwargs))
    service = _service(args, "rollout-worker")
    queue = _queue(args, job, required=True)
    client = SGLangClient.Config(
        url=args.server_url, timeout_s=args.request_timeout_s, max_attempts=args.max_attempts,
        return_routed_experts=job.rollout.routes_replayed, routed_experts_shape=routed_shape, routed_experts_layers=routed_layers,
    ).build()
    sampling = SamplingParams(
        temperature=job.rollout.temperature, top_p=job.rollout.top_p,
        max_new_tokens=args.max_new_tokens or job.batch.max_response_tokens, stop_token_ids=args.stop_token_id,
    )
    from payload.rollout.episode import EpisodeRunner

    worker = RolloutWorker(
        RolloutWorker.Config(
            name=args.name or socket.gethostname(), concurrency=args.concurrency or job.rollout.worker_concurrency,
            sampling=sampling, inline_verifier=inline, verifier_processes=args.verifier_processes,
            rewards=job.rewards, reward_url=reward_url,
            drain_timeout_s=args.drain_timeout_s,
            # Multi-turn tasks frame the tools' replies with the policy's own chat template.
            chat_tokenizer_path=job.model.path,
            chat_template_kwargs=dict(job.data.chat_template_kwargs) if job.data else {},
            episode=EpisodeRunner.Config(max_turns=job.rollout.max_turns,
                                         max_response_tokens=args.max_new_tokens or job.batch.max_response_tokens),
        ),
        queue, client, on_progress=service.beat, chat=chat,
    )
    service.start()
    service.set_ready(True)
    try:
        worker.run(service.stopping)
    finally:
        client.close()
        queue.close()
        service.close()
    return 0


@_guarded
def run_verify(args) -> int:
    import socket

    from payload.rewards.worker import VerifyWorker

    _positive("--processes", args.processes)
    job = _job(args)
    reward_url = _reward_url(job)  # before the queue opens: a missing address is one line
    service = _service(args, "verifier")
    queue = _queue(args, job, required=True)
    worker = VerifyWorker(VerifyWorker.Config(name=args.name or socket.gethostname(), processes=args.processes,
                                              rewards=job.rewards, reward_url=reward_url),
                          queue, on_progress=service.beat)
    service.start()
    service.set_ready(True)
    try:
        worker.run(service.stopping)
    finally:
        queue.close()
        service.close()
    return 0
