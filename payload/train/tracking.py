"""MLflow experiment tracking for the trainer (rank 0): the job as parameters, every step's
metrics, the eval results and the HF exports, in one run per checkpoint lineage; each step's
sample generations (a few prompts, responses, rewards and verdicts) on the console and as a
JSON artifact; and, with `job.tracking.tensorboard`, TensorBoard event files beside MLflow
(tensorboardX writes them; `tensorboard --logdir <checkpoint.directory>/tensorboard`).

MLflow's REST API (/api/2.0/mlflow/...) over httpx, not the mlflow client: the calls are six
endpoints MLflow keeps stable across 2.x and 3.x, and the client (mlflow-skinny) would add about
twenty packages (databricks-sdk, opentelemetry, gitpython, ...) to the payload image and to every
CI venv for them. Nothing is uploaded: an HF export is hundreds of GB already on FSx (and in S3
through its data repository association), so the run records where it is.

Resumed, not duplicated: the run's id is written beside the checkpoints
(<checkpoint.directory>/mlflow-run.json) as soon as the run exists, so a restarted trainer
(`--resume auto`, a new pod, a whole-job restart) reopens the same run and goes on logging from
the step its checkpoint holds. `--resume none` starts a new run.

Tracking never stops training: the first failed request logs one warning and tracking is off for
the rest of the process (the next restart tries again). A URI that cannot be an MLflow server is
the user's mistake, reported as one line before anything starts.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from spec.job import JobConfig

log = logging.getLogger(__name__)

URI_ENV = "MLFLOW_TRACKING_URI"
TOKEN_ENV = "MLFLOW_TRACKING_TOKEN"
USERNAME_ENV, PASSWORD_ENV = "MLFLOW_TRACKING_USERNAME", "MLFLOW_TRACKING_PASSWORD"
RUN_FILE = "mlflow-run.json"
# Tags a run carries (read back by tests and by anyone comparing runs).
TAG_CHECKPOINTS = "rl.checkpoint_directory"
TAG_EXPORT = "rl.hf_export"
TAG_EXPORT_STEP = "rl.hf_export_step"
TAG_FINAL_EXPORT = "rl.final_hf_export"
TAG_RESTARTS = "rl.restarts"
# Each step's sample generations: an MLflow artifact per step under this folder.
SAMPLES_ARTIFACTS = "samples"
# TensorBoard event files, under the checkpoint directory (on FSx, exported to S3 with the checkpoints).
TENSORBOARD_DIR = "tensorboard"
# A sample's prompt and response as the console and the artifact show them: the end of the
# prompt (where the question is, after any system prompt) and the start and end of the response.
SAMPLE_TEXT_CHARS = 600
# MLflow's limits (mlflow/utils/validation.py): a param value, a batch's params and metrics.
_MAX_PARAM_VALUE = 6000
_MAX_PARAMS_PER_BATCH = 100
_MAX_METRICS_PER_BATCH = 1000
# What MLflow accepts in a metric or param name.
_NAME_UNSAFE = re.compile(r"[^\w./\- :]")


class TrackingConfigError(ValueError):
    """A tracking URI that cannot be an MLflow server: one line."""


def flatten(tree: dict, prefix: str = "") -> dict[str, str]:
    """The job as dotted parameters (`algorithm.learning_rate`); lists as JSON, None left out."""
    out: dict[str, str] = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            out |= flatten(value, f"{name}.")
        elif value is not None:
            text = value if isinstance(value, str) else json.dumps(value)
            out[_NAME_UNSAFE.sub("_", name)] = text[:_MAX_PARAM_VALUE]
    return out


def _numeric(record: dict) -> dict[str, float]:
    return {_NAME_UNSAFE.sub("_", k): float(v) for k, v in record.items()
            if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)}


class Tracker:
    @dataclass
    class Config:
        uri: str
        experiment: str
        run_name: str
        checkpoint_directory: str
        timeout_s: float = 10.0
        # False (--resume none): a new run even when the checkpoint directory names one.
        resume: bool = True

        @classmethod
        def of(cls, job: JobConfig, resume: bool = True, environ=os.environ) -> "Tracker.Config | None":
            """None when no tracking server is configured (tracking.uri, else $MLFLOW_TRACKING_URI)."""
            t = job.tracking
            uri = t.uri or environ.get(URI_ENV) or None
            if uri is None:
                return None
            if not uri.startswith(("http://", "https://")):
                # tracking.uri is checked with the job; this is the environment's.
                raise TrackingConfigError(f"{URI_ENV} {uri!r}: expected an http(s):// MLflow tracking server "
                                          "(unset it, or set job.tracking.uri)")
            directory = job.checkpoint.directory.rstrip("/")
            return cls(uri.rstrip("/"), t.experiment, t.run_name or Path(directory).name or "run", directory,
                       t.timeout_s, resume)

        def build(self) -> "Tracker":
            return Tracker(self)

    def __init__(self, config: Config) -> None:
        self.config = config
        headers = {}
        if token := os.environ.get(TOKEN_ENV):
            headers["Authorization"] = f"Bearer {token}"
        auth = None
        if os.environ.get(USERNAME_ENV):
            auth = httpx.BasicAuth(os.environ[USERNAME_ENV], os.environ.get(PASSWORD_ENV, ""))
        self._http = httpx.Client(base_url=f"{config.uri}/api/2.0/mlflow", headers=headers, auth=auth,
                                  timeout=config.timeout_s)
        self.run_id: str | None = None
        self.resumed = False
        self.off = False
        self._last_export: str | None = None
        # Where the run's artifacts go through the server's artifact proxy (`--serve-artifacts`);
        # None: the run's artifact root is not proxied (the server's own store), samples stay on the console.
        self._artifacts: str | None = None

    # -- requests ---------------------------------------------------------------------------------

    def _call(self, method: str, path: str, **kwargs) -> dict:
        response = self._http.request(method, path, **kwargs)
        if response.status_code >= 400:
            raise _ServerError(response)
        return response.json() if response.content else {}

    def _guarded(self, what: str, fn, *args) -> None:
        """Run one tracking action; the first failure warns once and turns tracking off."""
        if self.off or (self.run_id is None and what != "start"):
            return
        try:
            fn(*args)
        except (httpx.HTTPError, _ServerError, ValueError) as exc:
            self.off = True
            log.warning("MLflow tracking at %s failed (%s: %s); tracking is off for the rest of this trainer "
                        "process, training goes on", self.config.uri, what, exc)

    # -- the run ----------------------------------------------------------------------------------

    def start(self, params: dict[str, str]) -> None:
        """Reopen this checkpoint directory's run or create it, then log the job's parameters."""
        self._guarded("start", self._start, params)

    def _start(self, params: dict[str, str]) -> None:
        run_file = Path(self.config.checkpoint_directory) / RUN_FILE
        existing = self._recorded_run(run_file) if self.config.resume else None
        if existing is not None:
            self.run_id, self.resumed = existing["info"]["run_id"], True
            self._artifacts = _proxied_path(existing["info"].get("artifact_uri", ""))
            tags = {t["key"]: t["value"] for t in existing.get("data", {}).get("tags", [])}
            restarts = int(tags.get(TAG_RESTARTS, "0")) + 1
            self._call("POST", "/runs/update", json={"run_id": self.run_id, "status": "RUNNING"})
            self._call("POST", "/runs/set-tag", json={"run_id": self.run_id, "key": TAG_RESTARTS, "value": str(restarts)})
            logged = {p["key"]: p["value"] for p in existing.get("data", {}).get("params", [])}
            changed = sorted(k for k, v in params.items() if k in logged and logged[k] != v)
            if changed:
                # MLflow refuses to change a logged parameter: the run keeps the values it started with.
                log.warning("MLflow run %s: the job changed since the run started (%s); the run keeps its first values",
                            self.run_id, ", ".join(changed[:5]) + (" ..." if len(changed) > 5 else ""))
            params = {k: v for k, v in params.items() if k not in logged}
            log.info("MLflow: resumed run %s (restart %d) at %s", self.run_id, restarts, self.config.uri)
        else:
            experiment_id = self._experiment_id()
            run = self._call("POST", "/runs/create", json={
                "experiment_id": experiment_id, "run_name": self.config.run_name, "start_time": _now_ms(),
                "tags": [{"key": TAG_CHECKPOINTS, "value": self.config.checkpoint_directory},
                         {"key": "mlflow.runName", "value": self.config.run_name}]})
            self.run_id = run["run"]["info"]["run_id"]
            self._artifacts = _proxied_path(run["run"]["info"].get("artifact_uri", ""))
            # Written before anything else can fail: a restart from here on reopens this run.
            run_file.parent.mkdir(parents=True, exist_ok=True)
            run_file.write_text(json.dumps({"uri": self.config.uri, "experiment_id": experiment_id,
                                            "run_id": self.run_id}) + "\n")
            log.info("MLflow: run %s in experiment %r at %s", self.run_id, self.config.experiment, self.config.uri)
        items = [{"key": k, "value": v} for k, v in params.items()]
        for i in range(0, len(items), _MAX_PARAMS_PER_BATCH):
            self._call("POST", "/runs/log-batch", json={"run_id": self.run_id, "params": items[i:i + _MAX_PARAMS_PER_BATCH]})

    def _recorded_run(self, run_file: Path) -> dict | None:
        """The run this checkpoint directory's file names on this server, if it still exists."""
        try:
            recorded = json.loads(run_file.read_text())
        except (OSError, ValueError):
            return None
        if recorded.get("uri") != self.config.uri:
            return None
        try:
            run = self._call("GET", "/runs/get", params={"run_id": recorded["run_id"]})["run"]
        except _ServerError as exc:
            if exc.status == 404:  # deleted on the server: a new run
                return None
            raise
        return run if run["info"].get("lifecycle_stage") != "deleted" else None

    def _experiment_id(self) -> str:
        name = self.config.experiment
        for _ in range(2):
            try:
                return self._call("GET", "/experiments/get-by-name", params={"experiment_name": name})["experiment"][
                    "experiment_id"]
            except _ServerError as exc:
                if exc.status != 404:
                    raise
            try:
                return self._call("POST", "/experiments/create", json={"name": name})["experiment_id"]
            except _ServerError as exc:  # created by another run meanwhile: read it
                if exc.code != "RESOURCE_ALREADY_EXISTS":
                    raise
        raise ValueError(f"experiment {name!r} neither found nor created")

    def _metrics(self, step: int, values: dict[str, float]) -> None:
        now = _now_ms()
        items = [{"key": k, "value": v, "timestamp": now, "step": step} for k, v in values.items()]
        for i in range(0, len(items), _MAX_METRICS_PER_BATCH):
            self._call("POST", "/runs/log-batch", json={"run_id": self.run_id, "metrics": items[i:i + _MAX_METRICS_PER_BATCH]})

    def _tags(self, tags: dict[str, str]) -> None:
        self._call("POST", "/runs/log-batch", json={"run_id": self.run_id,
                                                    "tags": [{"key": k, "value": v} for k, v in tags.items()]})

    # -- what the trainer reports -----------------------------------------------------------------

    def log_step(self, step: int, record: dict) -> None:
        """A train_step record's numbers (loss terms, reward, throughput, staleness, ...)."""
        # The step is MLflow's step, the wall time its timestamp.
        values = _numeric({k: v for k, v in record.items() if k not in ("step", "wall_time")})
        self._guarded("step metrics", self._metrics, step, values)

    def log_eval(self, record: dict) -> None:
        """An eval record: eval/<metric> for the whole set, eval/<data source>/<metric> per source."""
        values: dict[str, float] = {}
        for source, summary in record["sources"].items():
            prefix = "eval/" if source == "all" else f"eval/{source}/"
            # pass@k: "@" is not allowed in an MLflow name.
            values |= {f"{prefix}{k.replace('@', '_at_')}": v for k, v in summary.items() if k != "prompts"}
        values["eval/seconds"] = record["seconds"]
        self._guarded("eval metrics", self._metrics, record["step"], _numeric(values))

    def log_samples(self, step: int, samples: list[dict]) -> None:
        """A step's sample generations as the artifact samples/step-<step>.json (MLflow's artifact
        view shows it), through the server's artifact proxy."""
        if not samples or self._artifacts is None:
            return
        body = json.dumps(samples, indent=1).encode()
        path = f"{self._artifacts}/{SAMPLES_ARTIFACTS}/step-{step:08d}.json"
        self._guarded("sample artifact", self._upload, path, body)

    def _upload(self, path: str, body: bytes) -> None:
        response = self._http.put(f"{self.config.uri}/api/2.0/mlflow-artifacts/artifacts/{path}", content=body,
                                  headers={"Content-Type": "application/json"})
        if response.status_code >= 400:
            raise _ServerError(response)

    def log_export(self, step: int, path: str) -> None:
        self._last_export = path
        self._guarded("export tag", self._tags, {TAG_EXPORT: path, TAG_EXPORT_STEP: str(step)})

    def finish(self, status: str) -> None:
        """FINISHED, KILLED (stopped by SIGTERM: a restart resumes it) or FAILED."""
        def end() -> None:
            if self._last_export is not None and status == "FINISHED":
                self._tags({TAG_FINAL_EXPORT: self._last_export})
            self._call("POST", "/runs/update", json={"run_id": self.run_id, "status": status, "end_time": _now_ms()})

        self._guarded("end of run", end)
        self._http.close()


class _ServerError(Exception):
    def __init__(self, response: httpx.Response) -> None:
        self.status = response.status_code
        try:
            body = response.json()
        except ValueError:
            body = {}
        self.code = body.get("error_code", "")
        super().__init__(f"HTTP {self.status} {self.code} {body.get('message', response.text[:200])}".strip())


def _now_ms() -> int:
    return int(time.time() * 1000)


def _proxied_path(artifact_uri: str) -> str | None:
    """The path under the server's /api/2.0/mlflow-artifacts/artifacts/ of a run's artifact root
    (`mlflow-artifacts:/<experiment>/<run>/artifacts`, what a server started with
    --serve-artifacts gives every run); None for a root the server does not proxy (s3://, file:)."""
    if artifact_uri.startswith("mlflow-artifacts:"):
        rest = artifact_uri.removeprefix("mlflow-artifacts:").lstrip("/")
        # mlflow-artifacts://host:port/path names a host first.
        return rest.split("/", 1)[1] if artifact_uri.startswith("mlflow-artifacts://") else rest
    anchor = "/api/2.0/mlflow-artifacts/artifacts/"
    return artifact_uri.split(anchor, 1)[1] if anchor in artifact_uri else None


# -- sample generations ------------------------------------------------------------------------------

def verdict(reward: float, finish_reason: str) -> str:
    """What a sample's reward says, in a word: a verifier's full score (1) is correct, 0 or less
    wrong, anything between partial (a weighted reward model, a shaped penalty); a response cut
    at max_response_tokens says so."""
    word = "correct" if reward >= 1.0 else "wrong" if reward <= 0.0 else "partial"
    return f"{word}, truncated" if finish_reason == "length" else word


def _clip(text: str, head: bool) -> str:
    text = " ".join(text.split())
    if len(text) <= SAMPLE_TEXT_CHARS:
        return text
    half = SAMPLE_TEXT_CHARS // 2
    return f"…{text[-SAMPLE_TEXT_CHARS:]}" if not head else f"{text[:half]} … {text[-half:]}"


def pick_samples(step: int, groups, count: int, decode) -> list[dict]:
    """A few of a step's generations: from the first groups, the best and the worst response of
    each (the pair GRPO's advantage contrasts), until `count`. `decode(token ids) -> str` gives
    the prompt's text (and a response's, when the engine sent none)."""
    picked: list[dict] = []
    for group in groups:
        if len(picked) >= count:
            break
        rewards = [float(s.reward) for s in group.samples]
        order = sorted(range(len(rewards)), key=lambda i: rewards[i], reverse=True)
        chosen = order[:1] + (order[-1:] if len(order) > 1 and rewards[order[-1]] != rewards[order[0]] else [])
        prompt = _clip(decode([int(t) for t in group.prompt_tokens_P]), head=False)
        for i in chosen[:count - len(picked)]:
            sample = group.samples[i]
            response = sample.text or decode([int(t) for t in sample.token_ids_T])
            picked.append({"step": step, "task": group.task_id, "data_source": group.data_source,
                           "verifier": group.verifier, "label": group.label, "prompt": prompt,
                           "response": _clip(response, head=True), "reward": rewards[i],
                           "group_mean_reward": sum(rewards) / len(rewards),
                           "verdict": verdict(rewards[i], sample.finish_reason),
                           "response_tokens": len(sample.token_ids_T)})
    return picked


def sample_line(sample: dict) -> str:
    """One console line: where it came from, what it scored, what was asked and answered."""
    source = f" {sample['data_source']}" if sample["data_source"] else ""
    return (f"step {sample['step']} sample{source} [{sample['verifier']}, label {sample['label']!r}] reward "
            f"{sample['reward']:.2f} ({sample['verdict']}; group mean {sample['group_mean_reward']:.2f}): "
            f"prompt {sample['prompt']!r} -> response {sample['response']!r}")


class EventFiles:
    """TensorBoard event files (tensorboardX's SummaryWriter) beside MLflow: every step's numbers
    as scalars train/<name>, the eval's as eval/..., the samples as a text table. Written on the
    trainer's rank 0 between steps, flushed each step; a write that fails turns them off with one
    warning, as tracking does."""

    def __init__(self, directory: str | Path) -> None:
        from tensorboardX import SummaryWriter

        self.directory = Path(directory)
        self._writer = SummaryWriter(logdir=str(self.directory), flush_secs=30)
        self.off = False

    def _guarded(self, what: str, fn, *args) -> None:
        if self.off:
            return
        try:
            fn(*args)
            self._writer.flush()
        except OSError as exc:
            self.off = True
            log.warning("TensorBoard event files in %s failed (%s: %s); they are off for the rest of this trainer "
                        "process, training goes on", self.directory, what, exc)

    def _scalars(self, prefix: str, step: int, values: dict[str, float]) -> None:
        for name, value in values.items():
            self._writer.add_scalar(f"{prefix}{name}", value, global_step=step)

    def log_step(self, step: int, record: dict) -> None:
        values = _numeric({k: v for k, v in record.items() if k not in ("step", "wall_time")})
        self._guarded("step scalars", self._scalars, "train/", step, values)

    def log_eval(self, record: dict) -> None:
        values: dict[str, float] = {}
        for source, summary in record["sources"].items():
            prefix = "" if source == "all" else f"{source}/"
            values |= {f"{prefix}{k.replace('@', '_at_')}": v for k, v in summary.items() if k != "prompts"}
        self._guarded("eval scalars", self._scalars, "eval/", record["step"], _numeric(values))

    def log_samples(self, step: int, samples: list[dict]) -> None:
        if not samples:
            return
        def cell(text) -> str:
            return str(text).replace("|", "\\|").replace("\n", " ")
        rows = ["| reward | verdict | label | prompt | response |", "|---|---|---|---|---|"]
        rows += [f"| {s['reward']:.2f} | {s['verdict']} | {cell(s['label'])} | {cell(s['prompt'])} | "
                 f"{cell(s['response'])} |" for s in samples]
        self._guarded("samples", self._writer.add_text, "samples", "\n".join(rows), step)

    def close(self) -> None:
        try:
            self._writer.close()
        except OSError:
            pass


# -- the tracking server ----------------------------------------------------------------------------

SERVER_PORT = 5000
# MLflow 3's job runner (huey) starts GenAI scorer jobs, which import pandas-based evaluation
# code; nothing here submits jobs, so the cluster's server and the tests' run without it.
SERVER_ENV = {"MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"}


def server_command(backend_store_uri: str, artifacts_destination: str, host: str, port: int, workers: int,
                   allowed_hosts: list[str]) -> list[str]:
    """`mlflow server` as the cluster runs it (k8s/charts/tracking.py) and the tests start it on
    loopback: artifacts proxied through the server (clients need no S3 access of their own), and
    only the Host headers it is reached by (MLflow 3's DNS-rebinding guard)."""
    return ["mlflow", "server", "--backend-store-uri", backend_store_uri, "--artifacts-destination",
            artifacts_destination, "--serve-artifacts", "--host", host, "--port", str(port), "--workers", str(workers),
            "--allowed-hosts", ",".join(allowed_hosts)]
