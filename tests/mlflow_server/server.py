"""A real MLflow tracking server on a free loopback port, started with the command the cluster's
tracking chart runs (payload.train.tracking.server_command), and the real MLflow client to read
runs back with.

Both come from the release images.mlflow pins, installed (--no-deps, pins in requirements.txt
beside this file) into .venv/tools/mlflow the first time and again whenever the pins change, by
whichever test needs it first: a fresh machine builds it, CI never skips it.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
from pathlib import Path

import httpx

from payload.common.ports import free_port

from payload.train.tracking import SERVER_ENV, server_command
from tests.tool_venv import tool_venv

HERE = Path(__file__).resolve().parent
PINS = HERE / "requirements.txt"


def tool_python() -> Path:
    return tool_venv("mlflow", PINS, no_deps=True) / "bin" / "python"


@contextlib.contextmanager
def started(directory: Path, timeout_s: float = 180.0):
    """(its URL, the command it runs): a sqlite store and a local artifact folder under `directory`."""
    python = tool_python()
    port = free_port()
    command = server_command(f"sqlite:///{directory / 'mlflow.db'}", str(directory / "artifacts"), "127.0.0.1", port,
                             1, ["localhost:*", "127.0.0.1:*"])
    # The venv's own `mlflow` console script (the image's is on its PATH).
    argv = [str(python.parent / command[0]), *command[1:]]
    log = open(directory / "mlflow-server.log", "wb")
    server = subprocess.Popen(argv, cwd=directory, env={**os.environ, **SERVER_ENV}, stdout=log,
                              stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"mlflow server exited {server.returncode}: "
                                   f"{(directory / 'mlflow-server.log').read_text()[-3000:]}")
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"mlflow server not healthy within {timeout_s:.0f} s")
            time.sleep(0.5)
        yield url, command
    finally:
        # Its uvicorn workers are in its session: stop them all.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, 15)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, 9)
            server.wait(10)
        log.close()


_READ = """
import json, sys
from mlflow import MlflowClient
url, experiment, keys = sys.argv[1], sys.argv[2], [k for k in sys.argv[3].split(",") if k]
client = MlflowClient(url)
found = client.get_experiment_by_name(experiment)
runs = [] if found is None else client.search_runs([found.experiment_id])
print(json.dumps([{
    "run_id": r.info.run_id, "status": r.info.status, "name": r.info.run_name,
    "params": r.data.params, "tags": r.data.tags, "metrics": r.data.metrics,
    "history": {k: [(m.step, m.value) for m in client.get_metric_history(r.info.run_id, k)] for k in keys},
} for r in runs]))
"""


def read_runs(url: str, experiment: str, metric_keys: list[str]) -> list[dict]:
    """Every run of `experiment`, read with MLflow's own client: params, tags, latest metrics and
    the step-by-step history of `metric_keys`."""
    done = subprocess.run([str(tool_python()), "-c", _READ, url, experiment, ",".join(metric_keys)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)
