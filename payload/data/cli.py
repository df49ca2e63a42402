"""`python -m payload feed`: the training set into the task queue (one replica per job), and
`python -m payload data check`: the same reading of the data, before anything starts.

    python -m payload feed --queue-url redis://buffer:6379/0 [--job-config job.yaml]
    python -m payload data check --env NAME | --job-config job.yaml [--tokenizer DIR] [--train F] [--eval F]

Reads `job.data` (the job config from --job-config, else $RL_JOB_CONFIG), checks every row,
then submits tasks as the trainer's progress allows; signals the end of the data through the
queue and then stays up (serving /metrics) until SIGTERM, so its Deployment never restarts a
finished feed. Bad input is one line on stderr, exit code 2, and nothing submitted.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

QUEUE_URL_ENV = "RL_QUEUE_URL"
METRICS_PORT_ENV = "RL_METRICS_PORT"
CACHE_DIR_ENV = "HF_DATASETS_CACHE"

log = logging.getLogger(__name__)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "feed",
        help="submit the training set's prompts as rollout tasks (the one task producer)",
        description="Read job.data, check every row, and submit tasks paced by the trainer; exactly once "
        "across restarts (the cursor lives in the queue).",
    )
    p.add_argument("--job-config", help="job config YAML (default: $RL_JOB_CONFIG or /etc/rl/job.yaml)")
    p.add_argument("--queue-url", default=os.environ.get(QUEUE_URL_ENV),
                   help=f"Redis URL of the task queue (default ${QUEUE_URL_ENV})")
    p.add_argument("--namespace", default="rl", help="key prefix of this job in Redis")
    p.add_argument("--cache-dir", default=os.environ.get(CACHE_DIR_ENV, "/tmp/datasets"),
                   help=f"where Parquet / JSON Lines files are converted to memory-mapped Arrow (default "
                   f"${CACHE_DIR_ENV}, else /tmp/datasets)")
    p.add_argument("--metrics-port", type=int, default=int(os.environ.get(METRICS_PORT_ENV, 9400)),
                   help=f"/metrics, /healthz, /readyz port (default ${METRICS_PORT_ENV}, else 9400)")
    p.add_argument("--exit-when-done", action="store_true",
                   help="exit 0 after signalling the end of the data (default: stay up until SIGTERM)")
    p.add_argument("--log-level", default="INFO")
    p.set_defaults(run=run)

    data = subparsers.add_parser("data", help="check a job's datasets before anything starts")
    checks = data.add_subparsers(dest="data_command", required=True, metavar="SUBCOMMAND")
    c = checks.add_parser(
        "check", help="read every row as the feeder would: counts, filtered rows, duplicates, overlap, labels, lengths",
        description="Read job.data's training and eval sets through the feeder's code with the model's tokenizer "
        "(no Redis, no GPU) and report rows, filtered rows by reason, duplicate prompts, eval prompts also in "
        "train, label coverage for the verifier and prompt-token percentiles. A file the job cannot use is one "
        "line and exit code 2; nothing is written.")
    where = c.add_mutually_exclusive_group()
    where.add_argument("--env", help="environment name (environments/NAME.yaml) or a YAML path: its job section")
    where.add_argument("--job-config", help="a job YAML (default: $RL_JOB_CONFIG or /etc/rl/job.yaml)")
    c.add_argument("--tokenizer", help="the model's tokenizer directory, for a job whose job.model.path is on FSx")
    c.add_argument("--train", help="a local copy of data.train (same split)")
    c.add_argument("--eval", help="a local copy of data.eval (same split)")
    c.add_argument("--json", action="store_true", help="the report as one JSON object")
    c.set_defaults(run=run_check)


def load_checked_job(env: str | None, job_config: str | None, tokenizer: str | None = None,
                     train: str | None = None, evaluation: str | None = None):
    """The job whose data is checked, with local overrides; raises DataError / JobConfigError."""
    from payload.data import DataError
    from spec.job import DataSource, load_job_config

    if env is not None:
        from estimate.checks import load_environment
        from spec.environment import EnvironmentFileError

        try:
            job = load_environment(env).job
        except EnvironmentFileError as exc:
            raise DataError(str(exc)) from None
    else:
        job = load_job_config(job_config)
    if job.data is None:
        raise DataError(f"{env or job_config or 'job config'}: job.data is not set (name the training set)")
    data = job.data
    updates = {}
    if train is not None:
        updates["train"] = DataSource(path=train, split=data.train.split)
    if evaluation is not None:
        updates["eval"] = DataSource(path=evaluation, split=data.eval.split if data.eval else None)
    job = job.model_copy(update={"data": data.model_copy(update=updates)})
    if tokenizer is not None:
        job = job.model_copy(update={"model": job.model.model_copy(update={"path": tokenizer})})
    return job


def run_check(args: argparse.Namespace) -> int:
    import json
    import tempfile

    from payload.data import DataError
    from payload.data.check import check_data
    from spec.job import JobConfigError

    try:
        job = load_checked_job(args.env, args.job_config, args.tokenizer, args.train, args.eval)
        # Parquet / JSON Lines are converted to Arrow to be read: into a folder removed afterwards.
        with tempfile.TemporaryDirectory(prefix="data-check-") as cache:
            report = check_data(job, cache)
    except (DataError, JobConfigError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report.as_dict()) if args.json else "\n".join(report.lines()))
    return 0


def run(args: argparse.Namespace) -> int:
    from prometheus_client import CollectorRegistry

    from payload.common.service import PortInUse, Service, configure_logging
    from payload.data import DataError
    from payload.data.feeder import Feeder, FeederMetrics, prepare_feed
    from spec.job import JobConfigError, load_job_config
    from payload.queue.base import QueueError
    from payload.queue.url import open_queue

    configure_logging("feeder", args.log_level)
    registry = CollectorRegistry()
    try:
        job = load_job_config(args.job_config)
        if job.data is None:
            raise DataError(f"{args.job_config or 'job config'}: job.data is not set (name the training set)")
    except (DataError, JobConfigError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    # Serving (healthy, not ready) while a large dataset is converted and checked.
    try:
        service = Service.Config(metrics_port=args.metrics_port, stall_timeout_s=900.0).build("feeder", registry).start()
    except PortInUse as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    queue = None
    try:
        try:
            feed = prepare_feed(job, args.cache_dir)
            queue = open_queue(args.queue_url, args.namespace,
                               high_water_groups=job.rollout.buffer_high_water_groups)
            metrics = FeederMetrics(registry)
            metrics.filtered.set(feed.filtered)
            feeder = Feeder.Config.of(job).build(feed.plan, feed.prompts, feed.dataset, queue, metrics)
            service.set_ready(True)
            feeder.run(service.stopping, beat=service.beat)
        except (DataError, QueueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        if not args.exit_when_done:
            # Finished: idle (healthy) until the job is torn down.
            while not service.stopping.wait(5.0):
                service.beat()
    finally:
        if queue is not None:
            queue.close()
        service.close()
    return 0
