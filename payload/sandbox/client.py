"""Where the `code` verifier and the code tool run programs: the sandbox pods (`RL_SANDBOX_URL`,
set by k8s/charts/sandbox.py on the pods that call them) or, without it, a local Jail."""

from __future__ import annotations

import os

import httpx

from payload.sandbox.jail import Jail, RunResult, SandboxError

SANDBOX_URL_ENV = "RL_SANDBOX_URL"


class SandboxClient:
    """The sandbox pool over HTTP. A transport error or a 5xx (a pod restarted by a program
    that killed its server, a jail that could not be built) raises SandboxError: the verifier
    then charges the group an attempt; it never turns into a made-up reward."""

    def __init__(self, url: str, timeout_s: float = 60.0) -> None:
        self.url = url.rstrip("/")
        self._http = httpx.Client(timeout=timeout_s)

    def run(self, source: str, stdin: bytes = b"") -> RunResult:
        try:
            response = self._http.post(f"{self.url}/run", json={"source": source, "stdin": stdin.decode()})
        except httpx.HTTPError as exc:
            raise SandboxError(f"sandbox {self.url}: {exc}") from exc
        if response.status_code != 200:
            raise SandboxError(f"sandbox {self.url}: HTTP {response.status_code}: {response.text[:200]}")
        body = response.json()
        return RunResult(int(body["exit_code"]), body["stdout"].encode(), body["stderr"].encode(), bool(body["timed_out"]),
                         bool(body["truncated"]))


def executor() -> SandboxClient | Jail:
    url = os.environ.get(SANDBOX_URL_ENV)
    return SandboxClient(url) if url else Jail.Config().build()
