"""The demo's child processes: `python -m payload.local.roles {rollout,verify,train} SPEC.json`.

Each builds the same production object its cluster command builds (`RolloutWorker`,
`VerifyWorker`, `Trainer`), but on the queue the spec names: the launcher's shared memory
queue, or a Redis URL. They stop on SIGTERM like the cluster pods (payload.common.service),
and die with the launcher if it is killed outright (PR_SET_PDEATHSIG, set by the launcher).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def build_queue(spec: dict):
    from payload.queue.base import RolloutQueue

    if "redis" in spec:
        return RolloutQueue.Config(backend="redis", url=spec["redis"], namespace=spec["namespace"],
                                   high_water_groups=spec["high_water_groups"]).build()
    from payload.local.shared_queue import SharedQueue

    return SharedQueue(spec)


def _service(name: str):
    from payload.common.service import Service, configure_logging

    configure_logging(name)
    return Service.Config(metrics_port=0).build(name)


def rollout(spec: dict) -> int:
    from payload.rollout.client import SamplingParams, SGLangClient
    from payload.rollout.worker import RolloutWorker

    job = _job(spec)
    service = _service("rollout-worker")
    queue = build_queue(spec["queue"])
    client = SGLangClient.Config(url=spec["engine_url"], timeout_s=120.0).build()
    sampling = SamplingParams(temperature=job.rollout.temperature, top_p=job.rollout.top_p,
                              max_new_tokens=job.batch.max_response_tokens, stop_token_ids=spec["stop_token_ids"])
    worker = RolloutWorker(
        RolloutWorker.Config(name="local-rollout", concurrency=job.rollout.worker_concurrency, sampling=sampling,
                             inline_verifier=job.rollout.inline_verifier, drain_timeout_s=10.0),
        queue, client, on_progress=service.beat,
    )
    service.start()
    service.set_ready(True)
    try:
        worker.run(service.stopping)
    finally:
        client.close()
        service.close()
    return 0


def verify(spec: dict) -> int:
    from payload.rewards.worker import VerifyWorker

    service = _service("verifier")
    worker = VerifyWorker(VerifyWorker.Config(name="local-verifier", processes=1), build_queue(spec["queue"]),
                          on_progress=service.beat)
    service.start()
    service.set_ready(True)
    try:
        worker.run(service.stopping)
    finally:
        service.close()
    return 0


def train(spec: dict) -> int:
    import torch

    from payload.train.trainer import Trainer

    torch.manual_seed(spec["seed"])
    job = _job(spec)
    rank0 = spec["rank"] == 0
    config = Trainer.Config(job=job, rollout_servers=[spec["engine_url"]], publish_bucket_mb=64,
                            metrics_jsonl=spec["metrics_jsonl"], metrics_port=0, resume="none",
                            max_steps=spec["max_steps"], consumer="local-trainer")
    trainer = config.build(queue=build_queue(spec["queue"]) if rank0 else None)
    try:
        trainer.run()
    finally:
        trainer.close()
    return 0


def _job(spec: dict):
    from payload.job import load_job_config

    return load_job_config(spec["job"])


ROLES = {"rollout": rollout, "verify": verify, "train": train}


def main(argv: list[str]) -> int:
    role, spec_path = argv
    return ROLES[role](json.loads(Path(spec_path).read_text()))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
