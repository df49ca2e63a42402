"""Item 5 of issue 30, through the real commands: a job file that is not UTF-8, a port already
taken (metrics, or the engine's), a wrong Redis password, rediss:// at a plain Redis. Each: one line on stderr naming the
problem, a non-zero exit within seconds, no traceback, and nothing written to the queue."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
import yaml

from tests.payload.queue.redis_server import started

REPO = Path(__file__).resolve().parents[3]
ENV = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
PASSWORD = "s3cret-Pa55word"


@pytest.fixture(scope="module")
def server():
    server = started(password=PASSWORD)
    yield server
    server.close()


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    folder = tmp_path_factory.mktemp("job")
    (folder / "train.jsonl").write_text('{"prompt": "1+1", "answer": "2"}\n')
    path = folder / "job.yaml"
    path.write_text(yaml.safe_dump({"rollout": {"inline_verifier": False},
                                    "data": {"train": str(folder / "train.jsonl"), "verifier": "exact_match",
                                             "columns": {"prompt": "prompt", "label": "answer"}}}))
    return path


@pytest.fixture
def taken_port():
    with socket.socket() as s:
        s.bind(("0.0.0.0", 0))
        s.listen()
        yield s.getsockname()[1]


def payload(*args: str, timeout: float = 60) -> tuple[subprocess.CompletedProcess, float]:
    started_at = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "payload", *args], cwd=REPO, env=ENV, capture_output=True, text=True,
                          timeout=timeout)
    return done, time.monotonic() - started_at


def one_line_error(done: subprocess.CompletedProcess) -> str:
    assert done.returncode != 0
    output = done.stdout + done.stderr
    assert "Traceback" not in output, output
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, output
    return errors[0]


def keys(server) -> list:
    client = redis.Redis(port=server.port, password=PASSWORD)
    try:
        return client.keys("*")
    finally:
        client.close()


def test_a_job_file_that_is_not_utf8(tmp_path, server):
    path = tmp_path / "job.yaml"
    path.write_bytes("# pr\u00e9cision\nrollout: {}\n".encode("latin-1"))
    for command in ("feed", "verify"):
        done, _ = payload(command, "--job-config", str(path), "--queue-url", server.url, "--metrics-port", "0")
        assert one_line_error(done) == f"error: {path}: not UTF-8 text (byte 0xe9 at offset 4)"
    assert keys(server) == []


@pytest.mark.parametrize("command", ["feed", "verify", "rollout"])
def test_a_metrics_port_in_use(command, job, server, taken_port):
    extra = ["--server-url", "http://127.0.0.1:1"] if command == "rollout" else []
    done, seconds = payload(command, "--job-config", str(job), "--queue-url", server.url, "--metrics-port",
                            str(taken_port), *extra)
    line = one_line_error(done)
    assert line.startswith(f"error: --metrics-port {taken_port}: cannot listen on 0.0.0.0:{taken_port}"), line
    assert "choose another port" in line and PASSWORD not in line
    assert seconds < 30
    assert keys(server) == []


def test_the_engine_port_in_use(tmp_path, taken_port):
    from tests.payload.rollout.helpers import save_tiny_model

    model = save_tiny_model(tmp_path / "model", seed=0)
    done, seconds = payload("serve", "--engine", "local", "--model-path", str(model), "--host", "127.0.0.1",
                            "--port", str(taken_port), "--metrics-port", "0", timeout=120)
    line = one_line_error(done)
    assert line.startswith(f"error: --port {taken_port}: cannot listen on 127.0.0.1:{taken_port}"), line
    assert seconds < 60  # before: the supervisor waited forever for a server whose thread had died


@pytest.mark.parametrize("command", ["verify", "rollout"])
def test_a_wrong_redis_password(command, job, server):
    wrong = server.url.replace(PASSWORD, "wrong-password")
    extra = ["--server-url", "http://127.0.0.1:1"] if command == "rollout" else []
    done, seconds = payload(command, "--job-config", str(job), "--queue-url", wrong, "--metrics-port", "0", *extra)
    line = one_line_error(done)
    assert f"queue url redis://:***@127.0.0.1:{server.port}/0: Redis refused the credentials" in line, line
    assert "wrong-password" not in done.stdout + done.stderr and PASSWORD not in done.stdout + done.stderr
    assert seconds < 30  # before: 60 s of retries, then "cannot reach"
    assert keys(server) == []


def test_rediss_at_a_plain_redis(job, server):
    """Issue 49 item 7b: before, redis-py's handshake TimeoutError escaped as a 72-line traceback."""
    tls = server.url.replace("redis://", "rediss://")
    done, seconds = payload("verify", "--job-config", str(job), "--queue-url", tls, "--metrics-port", "0")
    line = one_line_error(done)
    assert (f"queue url rediss://:***@127.0.0.1:{server.port}/0: rediss:// (TLS) but 127.0.0.1:{server.port} answers "
            "plain Redis: use redis://, or the port that serves TLS") in line, line
    assert PASSWORD not in done.stdout + done.stderr
    assert seconds < 30  # one handshake timeout, not connect_timeout_s of retries


@pytest.mark.slow
def test_the_trainer_and_the_local_demo_never_print_the_password(tmp_path, job, server):
    """Item 3: the other commands' error paths that name the queue URL."""
    from tests.payload.rollout.helpers import save_tiny_model

    model = save_tiny_model(tmp_path / "model", seed=0)
    train_job = tmp_path / "train.yaml"
    train_job.write_text(yaml.safe_dump({"model": {"path": str(model), "dtype": "float32", "activation_checkpointing": False},
                                         "parallel": {"expert_parallel_size": 1, "ep_backend": "local"},
                                         "checkpoint": {"directory": str(tmp_path / "ckpt")}}))
    wrong = server.url.replace(PASSWORD, "wrong-password")
    done, _ = payload("train", "--job-config", str(train_job), "--queue-url", wrong, "--metrics-port", "0", timeout=120)
    assert "Redis refused the credentials" in one_line_error(done)
    assert "wrong-password" not in done.stdout + done.stderr
    done, _ = payload("train", "--job-config", str(train_job), "--queue-url", f"http://:{PASSWORD}@127.0.0.1:1/0",
                      "--metrics-port", "0", timeout=120)
    assert "expected redis://host:port/db" in one_line_error(done) and PASSWORD not in done.stdout + done.stderr
    done, _ = payload("local", "--no-progress", "--steps", "1", "--redis", wrong, "--output", str(tmp_path / "run"),
                      timeout=120)
    assert f"--redis redis://:***@127.0.0.1:{server.port}/0: " in one_line_error(done)
    assert "wrong-password" not in done.stdout + done.stderr
    assert keys(server) == []
