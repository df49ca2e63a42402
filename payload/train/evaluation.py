"""Held-out evaluation: the eval set rolled out on the current policy, scored, recorded.

    evaluator = Evaluator.Config.of(job, servers, metrics_jsonl).build(registry, stop_token_ids)
    evaluator.run(0)                          # before the first step (job eval.before_training)
    evaluator.after_step(step, final=False)   # every eval.interval_steps: in the background

Rank 0 of the trainer sends each eval prompt to the rollout servers the trainer publishes to
(round robin, SGLang's /generate: greedy at temperature 0, or n samples), scores the responses
with the same verifiers the verify workers use (payload.rewards, in a worker process), and
writes one `{"kind": "eval", ...}` line to the metrics JSONL and Prometheus gauges per data
source: mean reward, pass@1 (the mean of per-prompt success rates) and, with n > 1, pass@n.

Eval never touches the task queue or the buffer, so nothing of it can be trained on. It runs
in a thread while training continues: a training step waits for it only at the end of the
run (the final evaluation) and before the first step. Weights published while an evaluation
runs change the policy under it; the record lists the weight versions its responses came from.

Sizes: an eval set is small (hundreds to a few thousand prompts); its rows are read once from
the memory-mapped dataset and kept as token arrays (~8 KB a prompt).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
from prometheus_client import CollectorRegistry, Gauge

from spec import signals
from payload.data.prompts import Prompt
from spec.job import JobConfig
from payload.queue.experience import ExperienceGroup, Sample

log = logging.getLogger(__name__)

# A reward at or above this counts as solved for pass@k (verifiers score 0 or 1).
SOLVED = 1.0


class Evaluator:
    @dataclass
    class Config:
        job: JobConfig
        servers: list[str]
        metrics_jsonl: str | None = None
        cache_dir: str = field(default_factory=lambda: os.environ.get("HF_DATASETS_CACHE", "/tmp/datasets"))
        # Requests in flight across the servers.
        concurrency: int = 16

        @classmethod
        def of(cls, job: JobConfig, servers: list[str], metrics_jsonl: str | None) -> "Evaluator.Config | None":
            """None when the job asks for no evaluation."""
            if not (job.eval.interval_steps or job.eval.before_training):
                return None
            if not servers:
                raise ValueError("eval.interval_steps / eval.before_training need rollout servers to evaluate on "
                                 "(--rollout-servers)")
            return cls(job, list(servers), metrics_jsonl)

        def build(self, registry: CollectorRegistry, stop_token_ids: list[int],
                  stop: threading.Event | None = None, on_record: Callable[[dict], None] | None = None) -> "Evaluator":
            return Evaluator(self, registry, stop_token_ids, stop or threading.Event(), on_record)

    def __init__(self, config: Config, registry: CollectorRegistry, stop_token_ids: list[int],
                 stop: threading.Event, on_record: Callable[[dict], None] | None = None) -> None:
        from payload.data.prompts import PromptBuilder
        from payload.data.source import open_dataset
        from payload.rewards.pool import RewardPool
        from payload.rollout.client import SamplingParams, SGLangClient

        job = config.job
        self.config, self.stop = config, stop
        # Each record also goes here (the trainer's MLflow run).
        self.on_record = on_record
        builder = PromptBuilder.Config.of(job).build()
        dataset = open_dataset(job.data.eval, config.cache_dir)
        scan = builder.scan(dataset, limit=job.eval.max_prompts)
        self.prompts: list[Prompt] = [builder.prompt(dataset, row) for row in scan.kept]
        log.info("eval set %s: %d prompts (%d longer than max_prompt_tokens left out)", dataset.path,
                 len(self.prompts), scan.filtered)
        self.sampling = SamplingParams(temperature=job.eval.temperature, top_p=1.0 if job.eval.temperature == 0
                                       else job.rollout.top_p, max_new_tokens=job.batch.max_response_tokens,
                                       stop_token_ids=list(stop_token_ids))
        self.clients = [SGLangClient.Config(url=url).build() for url in config.servers]
        # The servers that serve the newest version: a server a publish left out is held
        # paused (payload/sync/publisher.py) and would never answer an eval prompt.
        self.serving = list(self.clients)
        self.rewards = RewardPool.Config(processes=1).build()
        self.mean_reward = Gauge(signals.EVAL_MEAN_REWARD, "Eval set mean reward, by data source", ["data_source"],
                                 registry=registry)
        self.pass_at_1 = Gauge(signals.EVAL_PASS_AT_1, "Eval set pass@1, by data source", ["data_source"],
                               registry=registry)
        self.pass_at_k = Gauge(signals.EVAL_PASS_AT_K, "Eval set pass@k (k = eval.samples_per_prompt), by data source",
                               ["data_source"], registry=registry)
        self.step = Gauge(signals.EVAL_STEP, "Policy step of the newest evaluation", registry=registry)
        self._thread: threading.Thread | None = None
        self.records: list[dict] = []

    # -- when -----------------------------------------------------------------------------------

    def after_step(self, step: int, final: bool) -> None:
        """Start the evaluation this step is due for; at the end of the run, wait for it."""
        interval = self.config.job.eval.interval_steps
        due = bool(interval) and step % interval == 0
        if final:
            self.wait()
            if interval:  # the trained policy's result, whatever the step
                self.run(step)
            return
        if not due:
            return
        if self._thread is not None and self._thread.is_alive():
            log.warning("eval of an earlier step still running: step %d not evaluated", step)
            return
        self._thread = threading.Thread(target=self.run, args=(step,), name="eval", daemon=True)
        self._thread.start()

    def serve_from(self, urls: list[str]) -> None:
        """Evaluate on these servers from now on (the ones the last publish reached)."""
        serving = [c for c in self.clients if c.url in {u.rstrip("/") for u in urls}]
        if serving:
            self.serving = serving

    def wait(self) -> None:
        if self._thread is not None:
            self._thread.join()

    # -- what -----------------------------------------------------------------------------------

    def _group(self, index: int, prompt: Prompt) -> tuple[ExperienceGroup, set[str]]:
        serving = self.serving
        client = serving[index % len(serving)]
        generations = client.generate(prompt.tokens_P, self.config.job.eval.samples_per_prompt, self.sampling, self.stop)
        samples = [Sample(g.token_ids_T, g.logprobs_T, g.finish_reason, g.text) for g in generations]
        group = ExperienceGroup(f"eval-r{prompt.row}", f"eval-r{prompt.row}", 0, prompt.tokens_P, samples,
                                label=prompt.label, verifier=prompt.verifier)
        return self.rewards.score_group(group), {g.weight_version for g in generations}

    def run(self, step: int) -> dict | None:
        """Evaluate now (in the caller's thread); the record, or None if the servers failed."""
        from payload.rollout.client import GenerationError

        started = time.monotonic()
        workers = min(self.config.concurrency, len(self.prompts))
        try:
            with ThreadPoolExecutor(workers, thread_name_prefix="eval") as pool:
                results = list(pool.map(self._group, range(len(self.prompts)), self.prompts))
        except GenerationError as exc:
            log.error("eval of step %d failed: %s", step, exc)
            return None
        by_source: dict[str, list[np.ndarray]] = defaultdict(list)
        versions: set[str] = set()
        for prompt, (group, seen) in zip(self.prompts, results):
            by_source[prompt.data_source].append(group.rewards_G)
            versions |= seen
        record = {"kind": "eval", "step": step, "wall_time": time.time(), "seconds": time.monotonic() - started,
                  "prompts": len(self.prompts), "samples_per_prompt": self.config.job.eval.samples_per_prompt,
                  "weight_versions": sorted(versions), "sources": {}}
        every = [r for rewards in by_source.values() for r in rewards]
        for source, rewards in [*sorted(by_source.items()), ("all", every)]:
            summary = _summarize(rewards)
            record["sources"][source] = summary
            self.mean_reward.labels(source).set(summary["mean_reward"])
            self.pass_at_1.labels(source).set(summary["pass@1"])
            self.pass_at_k.labels(source).set(summary[f"pass@{self.config.job.eval.samples_per_prompt}"])
        record |= {k: v for k, v in record["sources"]["all"].items() if k != "prompts"}
        self.step.set(step)
        self.records.append(record)
        log.info("eval at step %d: mean reward %.3f, pass@1 %.3f", step, record["mean_reward"], record["pass@1"],
                 extra={"eval": record["sources"]})
        if self.config.metrics_jsonl is not None:
            with open(self.config.metrics_jsonl, "a") as f:
                f.write(json.dumps(record, separators=(",", ":")) + "\n")
        if self.on_record is not None:
            self.on_record(record)
        return record

    def close(self, wait: bool = True) -> None:
        """wait=False: an eval still out is left (a daemon thread) rather than waited for, as
        when the servers it asks are held paused by a failed publish and would never answer."""
        self.stop.set()
        if wait:
            self.wait()
        for client in self.clients:
            client.close()
        self.rewards.close()


def _summarize(rewards: list[np.ndarray]) -> dict:
    """Mean reward, pass@1 (mean per-prompt success rate) and pass@k (k = samples per prompt)."""
    k = len(rewards[0])
    solved = [r >= SOLVED for r in rewards]
    return {"prompts": len(rewards), "mean_reward": float(np.mean([r.mean() for r in rewards])),
            "pass@1": float(np.mean([s.mean() for s in solved])), f"pass@{k}": float(np.mean([s.any() for s in solved]))}
