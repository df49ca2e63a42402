"""SGLang's native HTTP API, the subset the RL loop uses, served by the embedded engine.

Routes and field names follow sglang/srt/entrypoints/http_server.py and
sglang/srt/managers/io_struct.py (v0.5.x), so the rollout worker's client and the trainer's
weight publisher (payload.sync) talk to this server and to SGLang alike:

    POST /generate                      GenerateReqInput: input_ids (one prompt or a batch),
                                        sampling_params, return_logprob, return_routed_experts
    GET  /health, /health_generate      liveness; the latter runs a one-token generation
    GET  /model_info, /get_model_info   model_path, weight_version, is_generation
    GET  /get_weight_version
    POST /pause_generation {mode}       abort | retract | in_place
    POST /continue_generation
    POST /flush_cache                   the engine keeps no cache across requests: always succeeds
    POST /init_weights_update_group     master_address, master_port, rank_offset, world_size, group_name, backend
    POST /destroy_weights_update_group  group_name
    POST /update_weights_from_distributed  names, dtypes, shapes, group_name, flush_cache,
                                        abort_all_requests, weight_version
    POST /update_weights_from_disk      model_path, abort_all_requests, weight_version

Weight-update routes answer {"success", "message"} (HTTP 400 with success false on failure),
as SGLang does; /generate answers {"error": {"message"}} with HTTP 400 for a bad request.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import uuid

import anyio
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from payload.rollout.engine import Completion, Engine, EngineError, SamplingOptions

log = logging.getLogger(__name__)


def _error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "code": status}}, status_code=status)


def _result(success: bool, message: str, **extra) -> JSONResponse:
    return JSONResponse({"success": success, "message": message, **extra}, status_code=200 if success else 400)


async def _json(request: Request) -> dict:
    try:
        body = await request.json()
    except ValueError:
        raise EngineError("the request body is not JSON") from None
    if not isinstance(body, dict):
        raise EngineError("the request body must be a JSON object")
    return body


def build_app(engine: Engine) -> FastAPI:
    app = FastAPI(title="payload embedded rollout engine")
    # Updates are applied one at a time, in arrival order (the publisher sends buckets in order).
    update_lock = asyncio.Lock()

    def render(completion: Completion, return_logprob: bool) -> dict:
        meta = {
            "id": uuid.uuid4().hex,
            "finish_reason": completion.finish_reason,
            "prompt_tokens": completion.prompt_tokens,
            "completion_tokens": len(completion.output_ids),
            "cached_tokens": 0,
            "weight_version": completion.weight_version,
            "weight_versions": completion.weight_versions,
        }
        if return_logprob:
            meta["output_token_logprobs"] = [[lp, t, None] for lp, t in zip(completion.logprobs, completion.output_ids)]
        if completion.routed_experts is not None:
            meta["routed_experts"] = base64.b64encode(completion.routed_experts.astype("<i4").tobytes()).decode()
        return {"text": engine.tokenizer.decode(completion.output_ids), "output_ids": completion.output_ids, "meta_info": meta}

    @app.post("/generate")
    async def generate(request: Request):
        try:
            body = await _json(request)
            if body.get("stream"):
                raise EngineError("stream: streaming is not supported by the embedded engine")
            input_ids = body.get("input_ids")
            if input_ids is None:
                raise EngineError("input_ids is required (the embedded engine does not tokenize text)")
            single = bool(input_ids) and isinstance(input_ids[0], int)
            batch = [input_ids] if single else input_ids
            if not all(isinstance(p, list) and all(isinstance(t, int) for t in p) for p in batch):
                raise EngineError("input_ids must be a list of token ids or a list of such lists")
            params = body.get("sampling_params") or {}
            start = body.get("logprob_start_len", -1)
            if single and isinstance(params, dict) and params.get("max_new_tokens") == 0 and \
                    body.get("return_logprob") and isinstance(start, int) and start >= 0:
                # A prefill-only scoring request (the publish probe, payload/sync/probe.py).
                values, version = await asyncio.to_thread(engine.score, input_ids, start)
                meta = {"id": uuid.uuid4().hex, "finish_reason": {"type": "length", "length": 0},
                        "prompt_tokens": len(input_ids), "completion_tokens": 0, "cached_tokens": 0,
                        "weight_version": version, "output_token_logprobs": [],
                        "input_token_logprobs": [[v, t, None] for v, t in zip(values, input_ids[start:])]}
                return {"text": "", "output_ids": [], "meta_info": meta}
            if isinstance(params, list):
                if len(params) != len(batch):
                    raise EngineError(f"sampling_params: {len(params)} entries for {len(batch)} prompts")
                options = [SamplingOptions.from_sglang(p) for p in params]
            else:
                options = [SamplingOptions.from_sglang(params)] * len(batch)
            routed = bool(body.get("return_routed_experts", False))
            futures = engine.submit(batch, options, return_routed_experts=routed)
        except EngineError as exc:
            return _error(str(exc))
        completions = await asyncio.gather(*(asyncio.wrap_future(f) for f in futures))
        rendered = [render(c, bool(body.get("return_logprob", False))) for c in completions]
        return rendered[0] if single else rendered

    @app.get("/health")
    async def health():
        return Response(status_code=200)

    @app.get("/health_generate")
    async def health_generate():
        [future] = engine.submit([[0]], [SamplingOptions(max_new_tokens=1, temperature=0)])
        await asyncio.wait_for(asyncio.wrap_future(future), timeout=60)
        return Response(status_code=200)

    def model_info() -> dict:
        return {
            "model_path": engine.model_path,
            "tokenizer_path": engine.model_path,
            "is_generation": True,
            "weight_version": engine.weight_version,
        }

    app.get("/model_info")(model_info)
    app.get("/get_model_info")(model_info)

    @app.get("/get_weight_version")
    async def get_weight_version():
        return {"weight_version": engine.weight_version}

    @app.post("/pause_generation")
    async def pause_generation(request: Request):
        try:
            body = await _json(request)
            # Off the event loop: it waits for the running batch's step to end.
            await asyncio.to_thread(engine.pause, body.get("mode", "abort"))
        except EngineError as exc:
            return _error(str(exc))
        return {"message": "Generation paused successfully.", "status": "ok"}

    @app.post("/continue_generation")
    async def continue_generation():
        engine.resume()
        return {"message": "Generation continued successfully.", "status": "ok"}

    @app.api_route("/flush_cache", methods=["GET", "POST"])
    async def flush_cache():
        return Response("Cache flushed.\n", status_code=200)

    async def weights_call(request: Request, run, ok_message: str):
        try:
            body = await _json(request)
            async with update_lock:
                if body.get("abort_all_requests"):
                    engine.abort_all()
                await anyio.to_thread.run_sync(run, body)
        except EngineError as exc:
            return _result(False, str(exc))
        except (KeyError, TypeError) as exc:
            return _result(False, f"bad request: missing or malformed field {exc}")
        except Exception as exc:  # noqa: BLE001 - the trainer reads the message
            log.exception("weight update failed")
            return _result(False, f"{type(exc).__name__}: {exc}")
        return _result(True, ok_message)

    @app.post("/init_weights_update_group")
    async def init_weights_update_group(request: Request):
        def run(body):
            engine.init_weights_update_group(
                master_address=body["master_address"], master_port=int(body["master_port"]),
                rank_offset=int(body["rank_offset"]), world_size=int(body["world_size"]),
                group_name=body.get("group_name", "weight_update_group"), backend=body.get("backend", "nccl"),
            )

        return await weights_call(request, run, "Succeeded to initialize custom process group.")

    @app.post("/destroy_weights_update_group")
    async def destroy_weights_update_group(request: Request):
        return await weights_call(
            request, lambda body: engine.destroy_weights_update_group(body.get("group_name", "weight_update_group")),
            "Succeeded to destroy custom process group.",
        )

    # SGLang 0.5.23 loads distributed updates only inside a begin/end_weight_update session.
    session = {"open": False}

    @app.post("/begin_weight_update")
    async def begin_weight_update():
        if session["open"]:
            return _result(False, "a weight-update session is already open; call end_weight_update() first")
        session["open"] = True
        return _result(True, "Success")

    @app.post("/end_weight_update")
    async def end_weight_update():
        if not session["open"]:
            return _result(False, "no weight-update session is open; call begin_weight_update() first")
        session["open"] = False
        return _result(True, "Success")

    @app.post("/update_weights_from_distributed")
    async def update_weights_from_distributed(request: Request):
        def run(body):
            if not session["open"]:
                raise EngineError("update_weights_from_distributed must run between begin_weight_update() and end_weight_update()")
            engine.update_from_distributed(
                names=list(body["names"]), dtypes=list(body["dtypes"]), shapes=[list(s) for s in body["shapes"]],
                group_name=body.get("group_name", "weight_update_group"), weight_version=body.get("weight_version"),
                load_format=body.get("load_format"),
            )

        return await weights_call(request, run, "Succeeded to update parameter online.")

    @app.post("/update_weights_from_disk")
    async def update_weights_from_disk(request: Request):
        return await weights_call(
            request, lambda body: engine.load_from_disk(body["model_path"], body.get("weight_version")),
            "Succeeded to update model weights.",
        )

    return app
