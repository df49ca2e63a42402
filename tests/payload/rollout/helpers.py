"""Processes for the rollout tests: the real `serve --engine local` and `rollout` commands."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import torch

from payload.common.ports import free_port

REPO = Path(__file__).resolve().parents[3]


def env() -> dict:
    # One thread per process: the suite shares two cores with everything else.
    return {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def save_tiny_model(path: Path, seed: int) -> Path:
    from payload.model import Qwen3MoeForCausalLM, save_pretrained, tiny_config

    torch.manual_seed(seed)
    save_pretrained(Qwen3MoeForCausalLM(tiny_config()), path)
    return path


class ServeProcess:
    def __init__(self, model_path: Path, *extra: str, port: int | None = None, log_path: Path | None = None) -> None:
        self.port = port or free_port()
        self.metrics_port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.command = [sys.executable, "-m", "payload", "serve", "--engine", "local", "--model-path", str(model_path),
                        "--host", "127.0.0.1", "--port", str(self.port), "--metrics-port", str(self.metrics_port),
                        *extra]
        self.log_path = log_path
        self.process: subprocess.Popen | None = None

    def start(self, wait: bool = True) -> "ServeProcess":
        out = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL
        self.process = subprocess.Popen(self.command, env=env(), cwd=REPO, stdout=out, stderr=subprocess.STDOUT)
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"serve exited with {self.process.returncode}")
            try:
                if httpx.get(f"http://127.0.0.1:{self.metrics_port}/readyz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("serve did not become ready")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)

    def stop(self) -> int | None:
        """SIGTERM, as the kubelet sends it; the exit code (None if it had to be killed)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                return self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()
                return None
        return None if self.process is None else self.process.returncode
