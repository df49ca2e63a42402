"""MLflow tracking against a real `mlflow server` on loopback (the cluster's command, the release
images.mlflow pins), read back with MLflow's own client: a run resumed after a restart is the same
run, with the steps of both processes; a server that is down costs one warning and no training; a
URI that cannot be a server is one line before anything starts."""

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from spec.job import JobConfigError, parse_job_config
from payload.train.tracking import (TAG_EXPORT, TAG_FINAL_EXPORT, TAG_RESTARTS, Tracker, TrackingConfigError,
                                    flatten)
from tests.mlflow_server.server import read_runs, started

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def mlflow_url(tmp_path_factory):
    with started(tmp_path_factory.mktemp("mlflow")) as (url, _):
        yield url


def job(checkpoints: Path, uri: str | None, experiment: str = "resume"):
    return parse_job_config({"checkpoint": {"directory": str(checkpoints)},
                             "tracking": {"uri": uri, "experiment": experiment}}, "test")


def eval_record(step: int, mean: float) -> dict:
    return {"kind": "eval", "step": step, "seconds": 1.5, "sources": {
        "gsm8k": {"prompts": 4, "mean_reward": mean, "pass@1": mean, "pass@4": 1.0},
        "all": {"prompts": 4, "mean_reward": mean, "pass@1": mean, "pass@4": 1.0}}}


def test_a_restarted_trainer_resumes_its_run_instead_of_starting_another(mlflow_url, tmp_path):
    config = job(tmp_path / "checkpoints", mlflow_url)
    params = flatten(config.model_dump(mode="json"))

    first = Tracker.Config.of(config).build()
    first.start(params)
    for step in (1, 2, 3):
        first.log_step(step, {"step": step, "loss": 1.0 / step, "mean_reward": 0.1 * step, "model": "Qwen3",
                              "wall_time": 1.7e9 + step})
    first.log_eval(eval_record(2, 0.25))
    first.log_export(2, "/fsx/checkpoints/hf/step-00000002")
    # The pod dies here (no finish): the run stays RUNNING on the server.

    second = Tracker.Config.of(config).build()
    second.start(params)
    assert second.resumed and second.run_id == first.run_id
    for step in (3, 4):  # the checkpoint held step 2: step 3 is trained again, then 4
        second.log_step(step, {"step": step, "loss": 1.0 / step, "mean_reward": 0.1 * step})
    second.log_eval(eval_record(4, 0.5))
    second.log_export(4, "/fsx/checkpoints/hf/step-00000004")
    second.finish("FINISHED")
    assert not first.off and not second.off

    [run] = read_runs(mlflow_url, "resume", ["loss", "eval/mean_reward", "eval/gsm8k/pass_at_4"])
    assert run["run_id"] == first.run_id and run["status"] == "FINISHED" and run["name"] == "checkpoints"
    assert [s for s, _ in run["history"]["loss"]] == [1, 2, 3, 3, 4]
    assert run["history"]["eval/mean_reward"] == [[2, 0.25], [4, 0.5]]
    assert run["history"]["eval/gsm8k/pass_at_4"] == [[2, 1.0], [4, 1.0]]
    assert run["metrics"]["mean_reward"] == pytest.approx(0.4)
    assert "model" not in run["metrics"] and "wall_time" not in run["metrics"]  # a string; MLflow's own timestamp
    assert run["params"]["algorithm.learning_rate"] == str(config.algorithm.learning_rate)
    assert run["params"]["checkpoint.directory"] == str(tmp_path / "checkpoints")
    assert run["tags"][TAG_EXPORT] == run["tags"][TAG_FINAL_EXPORT] == "/fsx/checkpoints/hf/step-00000004"
    assert run["tags"][TAG_RESTARTS] == "1"

    # --resume none: the checkpoints start over, and so does the run.
    fresh = Tracker.Config.of(config, resume=False).build()
    fresh.start(params)
    fresh.finish("FINISHED")
    assert fresh.run_id != first.run_id
    assert len(read_runs(mlflow_url, "resume", [])) == 2


def test_a_server_that_is_down_costs_one_warning_and_no_training(tmp_path, caplog):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = job(tmp_path / "checkpoints", f"http://127.0.0.1:{port}")
    tracker = Tracker.Config.of(config).build()
    with caplog.at_level(logging.WARNING, logger="payload.train.tracking"):
        tracker.start(flatten(config.model_dump(mode="json")))
        for step in range(1, 4):
            tracker.log_step(step, {"loss": 1.0})
        tracker.log_eval(eval_record(3, 0.5))
        tracker.log_export(3, "/fsx/x")
        tracker.finish("FINISHED")
    assert tracker.off
    [warning] = caplog.records
    assert "tracking is off" in warning.getMessage() and f"127.0.0.1:{port}" in warning.getMessage()


def test_a_uri_that_cannot_be_a_server_is_one_line(tmp_path):
    with pytest.raises(JobConfigError, match=r"^test: job.tracking.uri: 'file:/tmp/mlruns': expected an http\(s\)://"):
        job(tmp_path, "file:/tmp/mlruns")
    config = job(tmp_path, None)
    assert Tracker.Config.of(config, environ={}) is None  # nothing configured: no tracking
    with pytest.raises(TrackingConfigError, match=r"^MLFLOW_TRACKING_URI 'databricks': expected an http\(s\)://"):
        Tracker.Config.of(config, environ={"MLFLOW_TRACKING_URI": "databricks"})
    done = subprocess.run([sys.executable, "-m", "payload", "local", "--tracking-uri", "sqlite:///x.db"], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: --tracking-uri 'sqlite:///x.db': expected an http(s):// MLflow tracking server (e.g. mlflow server "
        "--host 127.0.0.1 --port 5000, then http://127.0.0.1:5000)"]
