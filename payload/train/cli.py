"""`python -m payload train`: the policy trainer (one process per GPU, under torchrun)."""

from __future__ import annotations

import argparse
import os
import sys

# What the trainer chart sets (k8s/pods.py); flags override.
QUEUE_URL_ENV = "RL_QUEUE_URL"
ROLLOUT_SERVERS_ENV = "RL_ROLLOUT_SERVERS"
METRICS_PORT_ENV = "RL_METRICS_PORT"


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "train",
        help="the GRPO policy trainer (run under torchrun)",
        description="Consume experience from the buffer, train the MoE policy (FSDP2 + expert parallel), "
        "publish weights to the rollout servers, checkpoint.",
    )
    p.add_argument("--job-config", help="job config YAML (default: $RL_JOB_CONFIG or /etc/rl/job.yaml)")
    p.add_argument("--queue-url", default=os.environ.get(QUEUE_URL_ENV, "redis://localhost:6379/0"),
                   help=f"experience buffer: redis://host:port/db, local://... (the local launcher's), or 'memory' "
                   "(an empty in-process buffer); "
                   f"default ${QUEUE_URL_ENV}")
    p.add_argument("--namespace", default="rl", help="queue key prefix (one RL job per namespace)")
    p.add_argument("--consumer", default="trainer", help="buffer consumer name (keep it across restarts)")
    p.add_argument("--rollout-servers", default=os.environ.get(ROLLOUT_SERVERS_ENV, ""),
                   help=f"comma-separated SGLang server URLs to publish weights to (none: no publishing); "
                   f"default ${ROLLOUT_SERVERS_ENV}")
    p.add_argument("--publish-probe-interval", type=int, default=5,
                   help="wait for every N-th publish and check the servers' logprobs against the trainer's (1: every "
                   "publish, none behind the next step)")
    p.add_argument("--resume", default="auto", help="'auto' (newest complete checkpoint), 'none', or a checkpoint path")
    p.add_argument("--max-steps", type=int, default=None, help="stop after this many optimizer steps (default: job data.total_steps, else "
                   "at the end of the data)")
    p.add_argument("--metrics-jsonl", default=None, help="append one JSON line per step here (rank 0)")
    p.add_argument("--metrics-port", type=int, default=os.environ.get(METRICS_PORT_ENV, "9400"),
                   help=f"Prometheus /metrics and /healthz port (0: any); default ${METRICS_PORT_ENV} or 9400")
    p.add_argument("--stall-timeout-s", type=float, default=900.0,
                   help="/healthz fails when one phase (waiting for experience, a collective) lasts this long")
    p.add_argument("--publish-timeout-s", type=float, default=None,
                   help="the weight fan-out groups' timeout (estimate/costs.py Timeouts.publish_s); "
                        "default: derived from the publish's bucket timeout")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from payload.common.efa import EfaError, enforce_if_required
    from payload.common.service import configure_logging
    from payload import ep
    from payload.ep import EPConfigError
    from spec.job import JobConfigError, load_job_config
    from payload.model import ModelConfigError
    from payload.queue.base import QueueError, RolloutQueue
    from payload.train.parallel import ParallelConfigError, job_layout
    from spec.layout import LayoutError
    from payload.train.trainer import PublishStalled, Trainer, TrainerConfigError

    configure_logging("trainer")
    try:
        enforce_if_required()  # before torch.distributed creates a communicator
    except EfaError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    from payload.data import DataError

    from payload.common.service import PortInUse

    from payload.train.deadline import DeadlineError  # RL_STOP_AT (a Capacity Block's end)

    user_errors = (JobConfigError, LayoutError, ParallelConfigError, ModelConfigError, EPConfigError, QueueError, TrainerConfigError,
                   DataError, PortInUse, DeadlineError)
    try:
        if args.max_steps is not None and args.max_steps < 1:
            raise TrainerConfigError(f"--max-steps {args.max_steps}: must be at least 1")
        if args.publish_probe_interval < 1:
            raise TrainerConfigError(f"--publish-probe-interval {args.publish_probe_interval}: must be at least 1")
        job = load_job_config(args.job_config)
        # DeepEP's import checks the NCCL libraries mapped: before any communicator maps its plugin.
        # It needs only the EP size: the job's, or (an unrendered job's auto) the trainer's own choice.
        ep_size = job.parallel.expert_parallel_size
        ep.preflight(ep.Config.for_job(job), job_layout(job).layout.expert_parallel if ep_size == "auto" else ep_size)
        shared = None
        if args.queue_url.startswith("local://"):
            from payload.queue.url import open_queue

            queue = RolloutQueue.Config(backend="memory")  # rank 0 is handed the launcher's queue instead
            shared = open_queue(args.queue_url) if int(os.environ.get("RANK", "0")) == 0 else None
        elif args.queue_url == "memory":
            queue = RolloutQueue.Config(backend="memory", high_water_groups=job.rollout.buffer_high_water_groups)
        elif args.queue_url.startswith(("redis://", "rediss://")):
            queue = RolloutQueue.Config(backend="redis", url=args.queue_url, namespace=args.namespace,
                                        high_water_groups=job.rollout.buffer_high_water_groups)
        else:
            from payload.queue.url import redacted

            raise TrainerConfigError(f"--queue-url {redacted(args.queue_url)!r}: expected redis://host:port/db or 'memory'")
        config = Trainer.Config(
            job=job,
            queue=queue,
            rollout_servers=[u for u in args.rollout_servers.split(",") if u],
            publish_probe_interval=args.publish_probe_interval,
            metrics_jsonl=args.metrics_jsonl,
            metrics_port=args.metrics_port,
            stall_timeout_s=args.stall_timeout_s,
            publish_timeout_s=args.publish_timeout_s,
            resume=args.resume,
            # data.total_steps ends the run where the data does not (the feeder repeats it).
            max_steps=args.max_steps if args.max_steps is not None else job.data and job.data.total_steps,
            consumer=args.consumer,
        )
        trainer = config.build(queue=shared)
    except user_errors as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    stalled = None
    try:
        trainer.run()
    except PublishStalled as exc:
        stalled = exc
    except QueueError as exc:  # QueueUnavailable: Redis gone longer than the outage bound
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        trainer.close()
    if stalled is not None:
        print(f"error: {stalled}", file=sys.stderr)
        # Checkpointed and closed; an eval request may still wait on a server the failed
        # publishes left paused (up to its HTTP timeout, in a pool thread the interpreter
        # would join at exit): end the process now rather than hold the pod on it.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)
    return 0
