"""The whole RL loop on one machine, on loopback: what `make demo` runs.

    launcher = Launcher.Config(steps=100, seed=0).build()
    summary = launcher.run()         # progress bar, then summary table, plot and metrics JSONL

Processes (each in its own process group, so Ctrl-C reaches only the launcher, which then
stops them in order; each also dies with the launcher if it is killed outright). Each is a
command the manifests in dist/ run, with this machine's addresses and sizes (a test holds
the two against each other); the queue URL is `local://` for the memory backend:

    launcher     the queue (memory backend, served to the others; or --redis), progress bar, report
    feed         `python -m payload feed`: the dataset (the generated problems' train.jsonl, or
                 --data) into the task queue, paced by the trainer
    serve        `python -m payload serve --engine local`: the embedded engine, SGLang's HTTP API
    rollout      `python -m payload rollout`: task → G samples from the engine → VERIFY stage
    verify       `python -m payload verify`: exact-match rewards → buffer
    reward-serve with --reward model: `python -m payload reward-serve --engine local`, a tiny
                 Bradley-Terry reward model (a second random tiny Qwen3-MoE, its score head one LM
                 head row) behind SGLang's /classify route, standing in for the reward tier's
                 SGLang; the verifier scores every sample with it alone (job.rewards: verifier 0,
                 model 1), so the policy learns what the reward model prefers
    train ×2     `python -m payload train` with torchrun's environment: FSDP2 + expert parallel
                 (EP = 2, all_to_all over gloo); rank 0 publishes the weights to the engine after
                 every step and evaluates the held-out set before the first and after the last

A rollout worker, verifier or feeder that dies (kill -9, OOM) is started again with the same
command, as its Deployment's pod would be (at most MAX_RESTARTS times each, then the run fails
with its log): the task it held is reclaimed after the job's visibility timeout (short here:
a group takes well under a second) and finished once; the feeder resumes at the queue's cursor.
The engine and the trainers are not restarted (their state is the run's; the cluster restarts
them from the policy pointer and the checkpoint).

The loop is deterministic under `--seed` (two runs of a seed write the same rewards, step by
step, and the same eval figures): the tasks of step s are submitted once step s - 1 -
max_staleness is trained (payload.data.feeder's pacing), the rollout worker has one slot
(groups reach the engine one at a time, in order), so every step sees the same groups generated
by the same weights. The held-out eval must not disturb that: it is greedy (it draws nothing
from the engine's one seeded sampling stream), and the rollout worker starts only once the eval
before training is written (else step 1's groups and eval prompts share engine batches in an
order set by timing; that is why two seed-0 runs used to differ). With --max-staleness 1 rollouts of the next step overlap
training (the cluster's asynchronous mode); the groups of a step then depend on timing.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path

import httpx
import numpy as np

from payload.common.ports import free_port
from payload.local.task import MAX_POSITIONS as TOY_MAX_POSITIONS
from payload.local.task import write_policy, write_problems
from payload.queue.url import redacted
from spec.config_errors import hub_download
from spec.signals import current_records

log = logging.getLogger(__name__)

REPO = Path(__file__).resolve().parents[2]
_PR_SET_PDEATHSIG = 1
# Set in the environment of every process a run starts (to find them: /proc/*/environ).
RUN_ENV = "RL_LOCAL_RUN"
# Processes started again when they die, like the cluster's Deployments, and how often.
RESTARTED = ("rollout", "verify", "feed")
MAX_RESTARTS = 3
# A task whose worker died is handed out again after this (a local group takes < 1 s).
VISIBILITY_TIMEOUT_S = 10.0
# --reward: the data's verifier alone, or a served reward model alone (job.rewards weights).
REWARDS = ("verifier", "model")


class LocalError(Exception):
    """A bad setting or a part of the loop that failed: one line, exit code 2."""


def processes_of_run(output: Path) -> list[int]:
    """Live processes started for the run writing to `output` (Linux: /proc/PID/environ)."""
    marker = f"{RUN_ENV}={output}".encode()
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                environ = (entry / "environ").read_bytes()
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:  # exited meanwhile, or not ours to read
                continue
            if state != "Z" and marker in environ.split(b"\0"):
                pids.append(int(entry.name))
    return pids


def _has_chat_template(model_path: Path) -> bool:
    """Whether the model's tokenizer ships a chat template (then prompts go through it)."""
    if (model_path / "chat_template.jinja").is_file():
        return True
    config = model_path / "tokenizer_config.json"
    return config.is_file() and bool(json.loads(config.read_text()).get("chat_template"))


def _die_with_parent() -> None:
    # Runs in the child between fork and exec: SIGTERM when the launcher dies, even by SIGKILL.
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


@dataclass
class Child:
    name: str
    command: list[str]
    log_path: Path
    env: dict = field(default_factory=dict)
    process: subprocess.Popen | None = None

    def start(self) -> "Child":
        env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", **self.env}
        with open(self.log_path, "ab") as out:
            self.process = subprocess.Popen(self.command, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, process_group=0, preexec_fn=_die_with_parent)
        return self

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def terminate(self) -> None:
        if self.alive():
            self.process.terminate()

    def wait(self, timeout_s: float) -> int | None:
        if self.process is None:
            return None
        try:
            return self.process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            log.warning("%s did not stop within %.0f s: killed", self.name, timeout_s)
            self.process.kill()
            return self.process.wait(10)

    def tail(self, lines: int = 15) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


class Launcher:
    @dataclass
    class Config:
        steps: int = 100
        seed: int = 0
        # Where the run's files go; default out/local/run-<UTC time>.
        output: str | None = None
        # A Qwen3-MoE checkpoint directory (with its tokenizer); default: a generated tiny one.
        model: str | None = None
        # redis://host:port/db: the queue and buffer on a real Redis; default: the memory backend.
        redis: str | None = None
        # The cluster's data section: a job YAML or an environment (name or file) whose `job.data`
        # (columns, nested label paths, chat messages, system prompt, split, verifier) is used as
        # it is; `data` / `eval_data` replace its train / eval paths. Without a section, `data` is a
        # JSON Lines set with `prompt` and `answer` fields (exact match). Default: the generated
        # larger-digit problems ("max 3 7="), 20 distinct-digit pairs held out.
        job_config: str | None = None
        env: str | None = None
        data: str | None = None
        eval_data: str | None = None
        prompts_per_step: int = 16
        group_size: int = 8
        learning_rate: float = 3e-3
        temperature: float = 1.0
        max_staleness: int = 0
        # Seconds any one step may take before the run is declared stuck.
        step_timeout_s: float = 120.0
        progress: bool = True
        # How samples are scored: the data's verifier, or a served reward model (`reward-serve`).
        reward: str = "verifier"
        # An MLflow tracking server the trainer logs the run to (default: $MLFLOW_TRACKING_URI, else none).
        tracking_uri: str | None = None

        def __post_init__(self) -> None:
            for name in ("steps", "prompts_per_step", "group_size", "step_timeout_s"):
                if getattr(self, name) <= 0:
                    raise LocalError(f"--{name.replace('_', '-')} {getattr(self, name)}: must be positive")
            if self.group_size < 2:
                raise LocalError(f"--group-size {self.group_size}: GRPO needs at least 2 samples per prompt")
            if self.learning_rate <= 0:
                raise LocalError(f"--learning-rate {self.learning_rate}: must be positive")
            if self.temperature <= 0:
                raise LocalError(f"--temperature {self.temperature}: must be positive (GRPO needs sampled groups)")
            if self.reward not in REWARDS:
                raise LocalError(f"--reward {self.reward!r}: expected one of {', '.join(REWARDS)}")
            if self.max_staleness < 0:
                raise LocalError(f"--max-staleness {self.max_staleness}: must be 0 or more")
            if self.redis is not None and not self.redis.startswith(("redis://", "rediss://")):
                raise LocalError(f"--redis {redacted(self.redis)!r}: expected redis://host:port/db")
            if self.model is not None and not (Path(self.model) / "config.json").is_file():
                download = hub_download(self.model) if not Path(self.model).exists() else None
                hint = f"; a Hugging Face Hub id? download it first ({download}) and pass that folder" if download else ""
                raise LocalError(f"--model {self.model}: not a checkpoint directory (no config.json){hint}")
            uri = self.tracking_uri or os.environ.get("MLFLOW_TRACKING_URI")
            if uri and not uri.startswith(("http://", "https://")):
                where = "--tracking-uri" if self.tracking_uri else "MLFLOW_TRACKING_URI"
                raise LocalError(f"{where} {uri!r}: expected an http(s):// MLflow tracking server (e.g. mlflow server "
                                 "--host 127.0.0.1 --port 5000, then http://127.0.0.1:5000)")
            if self.job_config is not None and self.env is not None:
                raise LocalError("--job-config and --env both given: the data section comes from one of them")
            if self.eval_data is not None and self.data is None and self.job_config is None and self.env is None:
                raise LocalError("--eval-data needs --data (the generated problems come with their own eval split)")

        def build(self) -> "Launcher":
            return Launcher(self)

    def __init__(self, config: Config) -> None:
        self.config = config
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        self.output = Path(config.output or REPO / "out" / "local" / f"run-{stamp}").resolve()
        self.metrics_jsonl = self.output / "metrics.jsonl"
        self.children: list[Child] = []
        self.restarts: dict[str, int] = {}
        self.stop = threading.Event()
        self.records: list[dict] = []  # the trainer's train_step records
        self.evals: list[dict] = []  # its eval records (held-out set, before and after training)
        self.warnings: list[str] = []  # said once, on the console and in the summary
        self._lines_read = 0
        self.engine_version: str | None = None
        self.ports: dict[str, int] = {}
        self.namespace = "rl"
        self.job_path = self.output / "job.yaml"
        self.toy = config.model is None
        self.data_report: dict | None = None
        # Set by prepare(): the model's context, and the data's paths (None: the generated problems).
        self._max_positions: int | None = None
        self._data_paths: tuple[Path | None, Path | None] | None = None

    # -- set-up ------------------------------------------------------------------------------

    def _data_section(self) -> dict | None:
        """The user's `job.data` (from --job-config / --env), its paths replaced by --data / --eval-data."""
        from payload.data import DataError
        from payload.data.cli import load_checked_job
        from spec.job import JobConfigError

        c = self.config
        if c.job_config is None and c.env is None:
            return None
        try:
            job = load_checked_job(c.env, c.job_config, train=c.data, evaluation=c.eval_data)
        except (DataError, JobConfigError) as exc:
            raise LocalError(str(exc)) from None
        return job.data.model_dump(mode="json", exclude={"epochs", "total_steps"})

    def job(self, model_path: Path, max_positions: int, toy: bool, train: Path | None = None,
            eval_set: Path | None = None):
        """The job this run writes for its processes: the cluster's job shape with one machine's
        sizes, and the user's data section as it is. The generated toy model's limits (a
        character tokenizer, no chat template, one-token answers, 63-token prompts) apply to it
        only; a --model checkpoint takes the job's response length and its own context."""
        from spec.job import BatchSection, JobConfigError, parse_job_config

        c = self.config
        data = self._data_section()
        if data is None:
            data = {"train": str(train), "eval": None if eval_set is None else str(eval_set),
                    "columns": {"prompt": "prompt", "label": "answer"}, "verifier": "exact_match",
                    "chat_template": _has_chat_template(model_path)}
        elif toy:
            if data["columns"].get("messages"):
                raise LocalError(f"data.columns.messages {data['columns']['messages']!r}: the generated toy model has "
                                 "no chat template; pass --model with a chat-template checkpoint for chat data")
            # The toy model's limit only: a --model is held to the section as the cluster is.
            data["chat_template"] = False
        data |= {"total_steps": c.steps, "seed": c.seed}
        response_tokens = 1 if toy else BatchSection().max_response_tokens
        response_tokens = min(response_tokens, max_positions // 2)
        has_eval = data.get("eval") is not None
        try:
            return parse_job_config({
                "model": {"path": str(model_path), "dtype": "float32", "activation_checkpointing": False},
                "parallel": {"expert_parallel_size": 2, "data_parallel_shard_size": 2, "ep_backend": "all_to_all",
                             "rollout_tensor_parallel_size": 1, "rollout_expert_parallel_size": 1},
                "algorithm": {"group_size": c.group_size, "learning_rate": c.learning_rate,
                              # Every group trains (all-equal groups add nothing but keep steps in lock-step
                              # with the feeder, which submits exactly one step's tasks at a time).
                              "filter_equal_reward_groups": False, "max_grad_norm": 1.0},
                "batch": {"prompts_per_step": c.prompts_per_step, "micro_batch_size": c.prompts_per_step * c.group_size,
                          "max_prompt_tokens": max_positions - response_tokens, "max_response_tokens": response_tokens},
                "rollout": {"temperature": c.temperature, "max_staleness": c.max_staleness, "inline_verifier": False,
                            # One slot: groups reach the engine one at a time, so its sampling stream (one
                            # seeded generator) and the buffer's order depend on --seed only.
                            "worker_concurrency": 1, "buffer_high_water_groups": 4 * c.prompts_per_step,
                            "visibility_timeout_s": VISIBILITY_TIMEOUT_S,
                            # Routing replay, as the shipped small environments decide it (auto:
                            # their Redis holds the routes): the engine returns every token's
                            # experts, the workers store them, the trainer replays them.
                            "return_routed_experts": True,
                            # The toy model's weights fill a few buckets of this (a 4 GiB one
                            # would be allocated whole on the CPU of both ranks).
                            "publish_bucket_mb": 64},
                # The held-out set before the first step and after the last, greedy (one answer a
                # prompt: the policy's accuracy). Greedy, so its figure is the same on every run of
                # a seed whatever order its concurrent requests reach the engine in, and it draws
                # nothing from the engine's sampling stream, which stays the rollouts' alone.
                "eval": {"interval_steps": c.steps if has_eval else 0, "before_training": has_eval,
                         "temperature": 0.0, "samples_per_prompt": 1},
                # The trained policy as a Hugging Face checkpoint at the end (checkpoints/hf/step-N),
                # the export the MLflow run names as final.
                "checkpoint": {"directory": str(self.output / "checkpoints"), "interval_steps": c.steps,
                               "export_interval_steps": c.steps, "keep_last": 1},
                "data": data,
                "rewards": self._rewards(),
                # The run's name is the output folder's; the in-cluster server is the cluster's only.
                "tracking": {"uri": c.tracking_uri, "server": False, "run_name": self.output.name},
            }, "the local job")
        except JobConfigError as exc:
            raise LocalError(str(exc)) from None

    def _rewards(self) -> dict:
        """job.rewards: with --reward model, the tiny reward model written with the run, alone."""
        if self.config.reward == "verifier":
            return {}
        return {"model": {"path": str(self.output / "reward-model"), "timeout_s": 60},
                "default": {"verifier": 0.0, "model": 1.0}}

    def check_data(self, job, toy: bool) -> list[str]:
        """The data check (`python -m payload data check`) before anything starts: LocalError with
        one line if a file cannot be used; else the report's lines."""
        import tempfile

        from payload.data import DataError
        from payload.data.check import check_data

        try:
            with tempfile.TemporaryDirectory(prefix="data-check-") as cache:
                report = check_data(job, cache)
        except DataError as exc:
            message = str(exc)
            if toy and "longer than batch.max_prompt_tokens" in message:
                message += (f" (the generated toy model's limit: a {TOY_MAX_POSITIONS}-character context; "
                            "pass --model for your own data)")
            raise LocalError(message) from None
        self.data_report = report.as_dict()
        lines = report.lines()
        if toy:
            lines.append("note: the generated toy model reads only the characters 0-9 + = m a x and space and "
                         "answers with one token (others become '?'); these limits are the toy model's: pass "
                         "--model for your own")
        return lines

    def _write_job(self, job) -> Path:
        import yaml

        path = self.output / "job.yaml"
        path.write_text(yaml.safe_dump(job.model_dump(mode="json"), sort_keys=False))
        return path

    def _queue(self):
        """(queue, its --queue-url and --namespace for the commands)."""
        from payload.queue.base import QueueError, RolloutQueue

        high_water = 4 * self.config.prompts_per_step
        if self.config.redis:
            # A fresh namespace per run: task ids repeat across runs and would be refused as duplicates.
            namespace = f"local-{uuid.uuid4().hex[:12]}"
            config = RolloutQueue.Config(backend="redis", url=self.config.redis, namespace=namespace,
                                         high_water_groups=high_water, connect_timeout_s=5.0)
            try:
                queue = config.build()
            except QueueError as exc:
                raise LocalError(f"--redis {redacted(self.config.redis)}: {exc}") from None
            self.namespace = namespace
            return queue, ["--queue-url", self.config.redis, "--namespace", namespace]
        from payload.queue.shared import QueueServer

        config = RolloutQueue.Config(backend="memory", high_water_groups=high_water,
                                     visibility_timeout_s=VISIBILITY_TIMEOUT_S)
        queue = config.build()
        self._server = QueueServer(queue).start()
        self.ports["queue"] = self._server.address[1]
        return queue, ["--queue-url", self._server.url(config), "--namespace", self.namespace]

    def _spawn(self, name: str, command: list[str], **env: str) -> Child:
        # Inherited by grandchildren too (the verifier's pool): marks every process of this run.
        env[RUN_ENV] = str(self.output)
        child = Child(name, command, self.output / "logs" / f"{name}.log", env).start()
        self.children.append(child)
        return child

    def _payload(self, name: str, *args: str, **env: str) -> Child:
        """`python -m payload ARGS`: the command a container of dist/ runs (RL_JOB_CONFIG is the
        job's ConfigMap there, the run's job.yaml here)."""
        return self._spawn(name, [sys.executable, "-m", "payload", *args], RL_JOB_CONFIG=str(self.job_path), **env)

    def _wait_ready(self, child: Child, what: str, url: str, timeout_s: float = 600.0) -> None:
        """Until `url` answers 200. A server that dies is seen at once (alive()); the bound only
        catches a hung one: a loaded 2-core machine took over 120 s to start the engine (import
        torch, build the model)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and not self.stop.is_set():
            if not child.alive():
                raise LocalError(f"the {what} exited with {child.process.returncode}:\n{child.tail()}")
            try:
                if httpx.get(url, timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        if not self.stop.is_set():
            raise LocalError(f"the {what} was not ready within {timeout_s:.0f} s:\n{child.tail()}")

    # -- the run -----------------------------------------------------------------------------

    def prepare(self) -> list[str]:
        """The job and the data check, before anything is written; the check's report lines."""
        import tempfile

        from payload.local.task import write_tokenizer
        from payload.model import ModelConfigError, Qwen3MoeConfig

        c = self.config
        self.toy = c.model is None
        if self.toy:
            max_positions = TOY_MAX_POSITIONS
        else:
            model_path = Path(c.model).resolve()
            try:
                model = Qwen3MoeConfig.from_pretrained(model_path)
            except ModelConfigError as exc:
                raise LocalError(f"--model {model_path}: {exc}") from None
            if model.num_experts % 2:
                raise LocalError(f"--model {model_path}: {model.num_experts} experts cannot be split over EP = 2")
            max_positions = model.max_position_embeddings
        self._max_positions = max_positions
        if c.data is None and self._data_section() is None:
            self._data_paths = None  # the generated problems: written with the run
            return []
        with tempfile.TemporaryDirectory(prefix="toy-tokenizer-") as scratch:
            if self.toy:
                model_path = Path(scratch)
                write_tokenizer(model_path)
            train = Path(c.data).resolve() if c.data else None
            eval_set = Path(c.eval_data).resolve() if c.eval_data else None
            job = self.job(model_path, max_positions, self.toy, train, eval_set)
            lines = self.check_data(job, self.toy)
        self._data_paths = (train, eval_set)
        return lines

    def run(self) -> dict:
        """The run; on LocalError, what it wrote is removed first (logs kept where a process wrote any)."""
        existed = self.output.exists()
        try:
            return self._run()
        except LocalError:
            self._remove_written(created=not existed)
            raise

    def _remove_written(self, created: bool) -> None:
        """A failed run leaves no half-made output: the generated model and data, job.yaml, the
        checkpoints, metrics and caches go; the processes' logs stay (the error names them) unless
        none was written, and the folder goes too when this run created it and nothing is left."""
        logs = self.output / "logs"
        for name in ("model", "reward-model", "data", "checkpoints", "cache", "job.yaml", "data-check.json",
                     "metrics.jsonl", "summary.json", "reward.png"):
            path = self.output / name
            if name == "model" and self.config.model or name == "data" and self._data_paths:
                continue  # never generated here: the user's own
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            elif path.exists():
                path.unlink()
        if logs.is_dir() and not any(f.stat().st_size for f in logs.iterdir() if f.is_file()):
            shutil.rmtree(logs, ignore_errors=True)
        if created and self.output.is_dir() and not any(self.output.iterdir()):
            self.output.rmdir()

    def _run(self) -> dict:
        c = self.config
        if self._max_positions is None:
            self.prepare()
        (self.output / "logs").mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        model_path = Path(c.model).resolve() if c.model else write_policy(self.output / "model", c.seed)
        train, eval_set = self._data_paths or write_problems(self.output / "data", c.seed)
        job = self.job(model_path, self._max_positions, self.toy, train, eval_set)
        self.job_path = self._write_job(job)
        if self.data_report is not None:
            (self.output / "data-check.json").write_text(json.dumps(self.data_report, indent=1))
        queue, queue_args = self._queue()
        try:
            # Every process is a command of dist/ (k8s/charts/), with addresses and sizes for one
            # machine; the embedded engine stands in for SGLang (`serve --engine local`).
            engine_port, engine_metrics, master_port = free_port(), free_port(), free_port()
            engine_url = f"http://127.0.0.1:{engine_port}"
            self.ports |= {"engine": engine_port, "engine_metrics": engine_metrics, "trainer_master": master_port}
            engine = self._payload(
                "serve", "serve", "--engine", "local", "--model-path", str(model_path), "--host", "127.0.0.1",
                "--port", str(engine_port), "--metrics-port", str(engine_metrics), "--seed", str(c.seed),
                "--poll-s", "3600", "--max-batch-size", str(c.group_size))
            reward_env = self._reward_server(c) if c.reward == "model" else {}
            self._payload("verify", "verify", *queue_args, "--name", "local-verifier", "--processes", "1",
                          "--metrics-port", "0", **reward_env)
            self._payload("feed", "feed", *queue_args, "--cache-dir", str(self.output / "cache"), "--metrics-port", "0")
            # torchrun's environment for two ranks on this machine (the JobSet runs torchrun).
            trainers = [
                self._payload(f"train-{rank}", "train", *queue_args, "--rollout-servers", engine_url,
                              "--metrics-jsonl", str(self.metrics_jsonl),
                              "--metrics-port", "0", "--max-steps", str(c.steps),
                              RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE="2", MASTER_ADDR="127.0.0.1",
                              MASTER_PORT=str(master_port), POD_IP="127.0.0.1")
                for rank in range(2)
            ]
            self._wait_ready(engine, "engine", f"http://127.0.0.1:{engine_metrics}/readyz")
            # The rollout worker starts once the eval before training is done: a step-1 group
            # sharing an engine batch with eval prompts would be sampled from a timing-dependent
            # batch, and the run would not repeat itself under --seed.
            self._wait_eval_before_training(job, trainers)
            if not self.stop.is_set():  # not started for a run stopped (Ctrl-C) before training
                self._payload("rollout", "rollout", *queue_args, "--server-url", engine_url, "--name",
                              "local-rollout", "--drain-timeout-s", "10", "--request-timeout-s", "120",
                              "--metrics-port", "0", **reward_env)
            self._loop(queue, trainers, started)
            if not self.stop.is_set():
                self.engine_version = httpx.get(f"{engine_url}/get_weight_version", timeout=10).json()["weight_version"]
        finally:
            self._shutdown()
        summary = self._summary(queue, time.monotonic() - started)
        queue.close()
        return summary

    def _reward_server(self, c) -> dict[str, str]:
        """Start the reward tier's stand-in and wait until it is healthy; the environment
        that points the scorers at it (RL_REWARD_URL, as the chart sets it)."""
        from payload.rewards.model import REWARD_URL_ENV

        write_policy(self.output / "reward-model", c.seed + 1)
        port = free_port()
        self.ports["reward"] = port
        url = f"http://127.0.0.1:{port}"
        child = self._payload("reward-serve", "reward-serve", "--engine", "local", "--model-path",
                              str(self.output / "reward-model"), "--host", "127.0.0.1", "--port", str(port))
        self._wait_ready(child, "reward server", f"{url}/health")
        return {REWARD_URL_ENV: url}

    def _wait_eval_before_training(self, job, trainers: list[Child], timeout_s: float = 600.0) -> None:
        """Until the trainer has written its step-0 eval record (when the job has an eval set). The
        bound only catches a hang: a trainer that dies is seen at once, and on a loaded 2-core
        machine the trainers' start-up alone can take minutes (import torch, gloo, the model)."""
        if not (job.data.eval and job.eval.before_training):
            return
        deadline = time.monotonic() + timeout_s
        while not self.evals and not self.stop.is_set():
            self._read_records()
            for t in trainers:
                if not t.alive():
                    raise LocalError(f"{t.name} exited with {t.process.returncode} before training "
                                     f"(log {t.log_path}):\n{t.tail()}")
            if time.monotonic() > deadline:
                raise LocalError(f"no eval before training within {timeout_s:.0f} s; logs in {self.output / 'logs'}")
            self.stop.wait(0.1)

    def _loop(self, queue, trainers: list[Child], started: float) -> None:
        from payload.local.report import ProgressView, zero_reward_warning

        c = self.config
        view = ProgressView(c.steps, enabled=c.progress)
        step_started = time.monotonic()
        with view:
            while not self.stop.is_set():
                done = self._read_records()
                if done:
                    step_started = max(step_started, self.records[-1]["_seen"])
                if not self.warnings and (warning := zero_reward_warning(self.records)):
                    self.warnings.append(warning)
                    log.warning("warning: %s", warning)
                view.update(self.records, queue.stats(), time.monotonic() - started)
                if not any(t.alive() for t in trainers):
                    failed = [t for t in trainers if t.process.returncode != 0]
                    if failed or done < c.steps:
                        t = (failed or trainers)[0]
                        raise LocalError(f"{t.name} exited with {t.process.returncode} after {done} steps "
                                         f"(log {t.log_path}):\n{t.tail()}")
                    return
                for child in self.children:
                    if child not in trainers and not child.alive():
                        self._restart_or_fail(child)
                if time.monotonic() - step_started > c.step_timeout_s:
                    raise LocalError(f"step {done + 1} took more than {c.step_timeout_s:.0f} s; logs in {self.output / 'logs'}")
                self.stop.wait(0.1)

    def _restart_or_fail(self, child: Child) -> None:
        code = child.process.returncode
        if child.name not in RESTARTED or self.restarts.get(child.name, 0) >= MAX_RESTARTS:
            raise LocalError(f"{child.name} exited with {code} (log {child.log_path}):\n{child.tail()}")
        self.restarts[child.name] = self.restarts.get(child.name, 0) + 1
        log.warning("%s exited with %s: started again (%d of %d)", child.name, code, self.restarts[child.name],
                    MAX_RESTARTS)
        child.start()

    def _read_records(self) -> int:
        if self.metrics_jsonl.is_file():
            lines = self.metrics_jsonl.read_text().splitlines()
            complete = [line for line in lines[self._lines_read:] if line.endswith("}")]
            self._lines_read += len(complete)
            for line in complete:
                record = json.loads(line) | {"_seen": time.monotonic()}
                kept = self.evals if record.get("kind") == "eval" else self.records
                # A restarted trainer replays steps: their new records supersede the old ones.
                kept[:] = current_records([*kept, record])
        return len(self.records)

    def _shutdown(self) -> None:
        """Trainers first (they checkpoint on SIGTERM), then the workers, the engine last."""
        # Stage by stage: a trainer stopped mid-step still publishes its weights to the engine
        # and checkpoints, so the engine must outlive it (all at once, it retried a dead engine
        # until it was killed, step's groups acknowledged but never trained).
        for stage in ("train", "feed", "rollout", "verify", "serve", "reward"):
            children = [ch for ch in self.children if ch.name.split("-")[0] == stage]
            for child in children:
                child.terminate()
            for child in children:
                child.wait(60.0)
        self._reap_grandchildren()

    def _reap_grandchildren(self, grace_s: float = 10.0) -> None:
        """Processes the children started (the verifier's pool) that outlived them: they finish
        on their own within moments of their parent; whatever is left after `grace_s` is killed."""
        deadline = time.monotonic() + grace_s
        while (left := processes_of_run(self.output)) and time.monotonic() < deadline:
            time.sleep(0.1)
        for pid in left:
            log.warning("process %d of this run outlived its parent: killed", pid)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    # -- the result ----------------------------------------------------------------------------

    def _eval_shortcut(self) -> float | None:
        from payload.local.task import shortcut_share

        held_out = self.output / "data" / "eval.jsonl"
        if self._data_paths is not None or not held_out.is_file():
            return None
        return shortcut_share([json.loads(line) for line in held_out.read_text().splitlines()])

    def _summary(self, queue, wall_s: float) -> dict:
        from payload.local.report import write_plot

        c = self.config
        self._read_records()
        stats = queue.stats()
        run_file = self.output / "checkpoints" / "mlflow-run.json"
        rewards = [r["mean_reward"] for r in self.records]
        tokens = sum(r["tokens"] for r in self.records)
        tail = rewards[-3:]
        summary = {
            "output": str(self.output),
            "steps": len(self.records),
            "seed": c.seed,
            "baseline_reward": rewards[0] if rewards else None,
            "final_reward": float(np.mean(tail)) if tail else None,
            "best_reward": max(rewards) if rewards else None,
            # Mean reward on the held-out problems, by the policy of step 0 and of the last step.
            "eval_before": next((e["mean_reward"] for e in self.evals if e["step"] == 0), None),
            "eval_after": next((e["mean_reward"] for e in self.evals if e["step"] == len(self.records) > 0), None),
            # The generated problems only: the best held-out reward without comparing the digits
            # (always one answer, or always copying one digit); None for --data and sections.
            "eval_shortcut": self._eval_shortcut(),
            "rewards": rewards,
            "wall_s": wall_s,
            "trained_tokens": tokens,
            "tokens_per_s": tokens / wall_s if wall_s > 0 else 0.0,
            "policy_version": self.records[-1]["policy_version"] if self.records else 0,
            "engine_version": self.engine_version,
            "tasks_submitted": cursor.position if (cursor := queue.feed_cursor()) else 0,
            "groups_trained": sum(r["groups"] for r in self.records),
            "groups_dropped_stale": sum(r["groups_dropped_stale"] for r in self.records),
            "queue_left": asdict(stats),
            # Redacted: a --redis URL may carry its password.
            "children": {ch.name: {"pid": ch.process.pid, "exit_code": ch.process.returncode,
                                   "command": [redacted(a) if "://" in a else a for a in ch.command]}
                         for ch in self.children if ch.process is not None},
            "restarts": dict(self.restarts),
            # The data check's report (rows, filtered by reason, duplicates, overlap, labels); None
            # for the generated problems.
            "data_check": self.data_report,
            # The trainer's MLflow run ({uri, experiment_id, run_id}), when one was tracked.
            "mlflow_run": json.loads(run_file.read_text()) if run_file.is_file() else None,
            "warnings": list(self.warnings),
            "namespace": self.namespace,
            "ports": self.ports,
            "config": asdict(c) | {"redis": c.redis and redacted(c.redis)},
        }
        if rewards:
            write_plot(self.records, self.output / "reward.png", self.evals, summary["eval_shortcut"])
        (self.output / "summary.json").write_text(json.dumps(summary, indent=1))
        return summary
