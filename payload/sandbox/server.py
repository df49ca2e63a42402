"""The sandbox pods' HTTP server: one untrusted program at a time through a Jail.

    POST /run   {"source": str, "stdin": str = ""}  ->  {"exit_code", "timed_out", "truncated", "stdout", "stderr"}
    GET  /healthz

One program at a time per pod: the pool's width is its replica count, and `isolation=pod`
cleans up after a run by killing every other process of the pod's user and emptying the pod's
writable places, which is only safe when no other run is in flight. A request beyond the source limit is refused with 413.
"""

from __future__ import annotations

import threading

from fastapi import FastAPI
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from payload.sandbox.jail import Jail, SandboxError

# A program larger than this is not a model's answer; refuse it before it reaches a jail.
MAX_SOURCE_BYTES = 256 << 10


class RunRequest(BaseModel):
    source: str
    stdin: str = ""


def build_app(jail: Jail) -> FastAPI:
    app = FastAPI()
    one_at_a_time = threading.Lock()

    @app.get("/healthz")
    def healthz() -> dict:
        return {"ok": True}

    @app.post("/run")
    def run(request: RunRequest):  # sync: FastAPI runs it on a thread, the lock serialises runs
        if len(request.source.encode()) + len(request.stdin.encode()) > MAX_SOURCE_BYTES:
            return JSONResponse({"error": f"source+stdin over {MAX_SOURCE_BYTES} bytes"}, status_code=413)
        with one_at_a_time:
            try:
                return jail.run(request.source, request.stdin.encode()).to_json()
            except SandboxError as exc:
                return JSONResponse({"error": str(exc)}, status_code=503)

    return app
