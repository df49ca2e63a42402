"""The acceptance commands dist/acceptance/ runs, with the same command lines, on this machine:
all-reduce under torchrun (gloo here, NCCL on the cluster) and the SGLang smoke test against the
embedded engine, which serves the same HTTP API and weight-update group."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.payload.rollout.helpers import REPO, ServeProcess, env, save_tiny_model


def torchrun(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", "-m", "payload",
                           "accept-nccl", *args], env=env(), cwd=REPO, capture_output=True, text=True, timeout=180)


def test_all_reduce_reports_bus_bandwidth_per_size():
    result = torchrun("--sizes-mb", "1,2", "--iters", "2")
    assert result.returncode == 0, result.stderr[-2000:]
    lines = [line for line in result.stdout.splitlines() if "bus bandwidth" in line]
    assert [line.split()[0] for line in lines] == ["1", "2"]
    assert all(float(line.split()[-2]) > 0 for line in lines)


def test_all_reduce_below_the_floor_fails_with_one_line():
    result = torchrun("--sizes-mb", "1", "--iters", "1", "--min-busbw-gbs", "1000000")
    assert result.returncode != 0
    assert "error: bus bandwidth" in result.stderr and "is below 1000000.0 GB/s" in result.stderr


@pytest.fixture
def served(tmp_path):
    process = ServeProcess(save_tiny_model(tmp_path / "model", seed=3)).start()
    yield process
    process.stop()


def test_sglang_smoke_generates_publishes_and_sees_the_new_version(served):
    result = subprocess.run([sys.executable, "-m", "payload", "accept-sglang", "--url", served.url, "--backend", "gloo",
                             "--ranks-per-server", "1", "--dtype", "float32"],
                            env=env(), cwd=REPO, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "generate: 8 tokens at weight version 0" in result.stdout
    assert "version check: /model_info and responses report 1" in result.stdout
