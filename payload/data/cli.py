"""`python -m payload feed`: the training set into the task queue (one replica per job).

    python -m payload feed --queue-url redis://buffer:6379/0 [--job-config job.yaml]

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


def run(args: argparse.Namespace) -> int:
    from prometheus_client import CollectorRegistry

    from payload.common.service import PortInUse, Service, configure_logging
    from payload.data import DataError
    from payload.data.feeder import Feeder, FeederMetrics, prepare_feed
    from payload.job import JobConfigError, load_job_config
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
