"""A receiver with SGLang's weight-update semantics, served over real HTTP, for the publisher tests.

It does what SGLang 0.5.23 does on its side (sglang/srt/managers/scheduler_components/
weight_updater.py, model_runner_components/weight_updater.py, weight_sync/tensor_bucket.py): join
the group with the rank it is given; refuse an update outside a begin/end_weight_update session
(and a second begin); allocate every tensor of a bucket and receive them by broadcast from rank 0
in `names` order, or, with load_format "flattened_bucket", allocate one uint8 tensor of all their
bytes, receive it in one broadcast and view the tensors at their byte offsets (an offset not
aligned to its dtype is refused); then load them one by one (a name it does not know fails the
call *after* the earlier names are loaded: SGLang has no transaction). Weights live in a dict; GET
/debug/weights returns them as safetensors bytes so the test can compare.

Weight versions as sglang 0.5.23 handles them (srt/managers/tokenizer_control_mixin.py
`update_weights_from_distributed`, srt/managers/tokenizer_manager.py `update_weights_from_disk`,
`pause_generation`): a weight update moves the served version only when it succeeded *and*
carried a `weight_version`, whether or not generation is paused (a paused server skips the
update lock, nothing else); pause and continue never touch it. /model_info and every
/generate response's meta_info report it. (0.5.6 dropped the version while paused; the
publisher always pauses, so that release would fail these tests.)
Every request body is kept for GET /debug/requests: the contract tests check them against
the release's own request classes. POST /debug/fault {"bucket": N, "how": "exit" | "hang"} makes
the N-th bucket from then on (1-based) kill the process or hang forever inside its receive,
before joining the broadcast: a member that dies or wedges mid-publish; {"how": "slow",
"seconds": S} makes it join S seconds late, as a member whose NCCL communicator is being
created inside its first broadcast (SGLang 0.5.23 creates it lazily).

Running requests and the cache flush, as 0.5.23's scheduler has them (scheduler.py
`pause_generation`, `flush_cache`; weight_updater.py `flush_cache_after_weight_update`): a
`retract` pause moves running requests back to the waiting queue (their KV freed), an `in_place`
pause only sets the paused flag, so they stay running with their KV. An update with flush_cache
true then loads the weights but fails ("Weights were updated, but the cache was not flushed")
while a request is running, which the tokenizer side reports as success false without moving the
version. POST /debug/hold {"hold": true} keeps a /generate that started running from finishing
until {"hold": false}: a request in flight across a publish (GET /debug/running counts them).

    python sglang_protocol_server.py PORT INITIAL.safetensors
"""

import asyncio
import json
import os
import sys
import threading

import torch
import torch.distributed as dist
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from safetensors.torch import load, load_file, save

from payload.sync.group import destroy_weights_update_group, init_weights_update_group

torch.set_num_threads(1)
app = FastAPI()
state = {"weights": {}, "version": "default", "groups": {}, "events": [], "session": False, "paused": False,
         "requests": [], "fault": None, "pause_mode": None, "running": 0, "hold": False}
lock = threading.Lock()


def ok(message="ok"):
    return JSONResponse({"success": True, "message": message})


def fail(message):
    return JSONResponse({"success": False, "message": message}, status_code=400)


def updated(body, message="ok"):
    """SGLang's rule: the version moves with a successful update that names one."""
    if body.get("weight_version") is not None:
        state["version"] = body["weight_version"]
        message += f" Weight version updated to {body['weight_version']}."
    return message


@app.middleware("http")
async def record(request: Request, call_next):
    if request.method == "POST" and not request.url.path.startswith("/debug/"):
        raw = await request.body()
        state["requests"].append({"route": request.url.path, "body": json.loads(raw) if raw else {}})
    return await call_next(request)


@app.post("/init_weights_update_group")
async def init_group(request: Request):
    body = await request.json()
    # The rendezvous blocks until the trainer arrives: off the event loop.
    import anyio

    def join():
        return init_weights_update_group(backend=body["backend"], master_address=body["master_address"],
                                         master_port=body["master_port"], rank=body["rank_offset"],
                                         world_size=body["world_size"], group_name=body["group_name"])

    state["groups"][body["group_name"]] = await anyio.to_thread.run_sync(join)
    state["events"].append("init")
    return ok()


@app.post("/destroy_weights_update_group")
async def destroy_group(request: Request):
    body = await request.json()
    group = state["groups"].pop(body["group_name"], None)
    if group is None:
        return fail(f"no group {body['group_name']}")
    destroy_weights_update_group(group)
    return ok()


@app.post("/update_weights_from_distributed")
async def update_from_distributed(request: Request):
    body = await request.json()
    import anyio

    if not state["session"]:
        return fail("update_weights_from_distributed must run between begin_weight_update() and end_weight_update()")

    def receive():
        fault = state["fault"]
        if fault is not None:
            fault["bucket"] -= 1
            if fault["bucket"] == 0 and fault["how"] == "exit":
                os._exit(9)
            if fault["bucket"] == 0 and fault["how"] == "slow":
                threading.Event().wait(fault["seconds"])  # e.g. NCCL creating a communicator
            elif fault["bucket"] == 0:
                threading.Event().wait()
        group = state["groups"][body["group_name"]]
        if body.get("load_format") == "flattened_bucket":
            tensors, offset = [], 0
            for dtype, shape in zip(body["dtypes"], body["shapes"]):
                dtype = getattr(torch, dtype)
                if offset % dtype.itemsize:
                    return f"Unaligned received tensor: byte offset {offset}, dtype {dtype}"
                size = torch.Size(shape).numel() * dtype.itemsize
                tensors.append((offset, size, dtype, shape))
                offset += size
            flat = torch.empty(offset, dtype=torch.uint8)
            dist.broadcast(flat, src=0, group=group)
            tensors = [flat[o : o + n].view(dt).reshape(shape) for o, n, dt, shape in tensors]
        else:
            tensors = [torch.empty(shape, dtype=getattr(torch, dtype)) for dtype, shape in zip(body["dtypes"], body["shapes"])]
            for handle in [dist.broadcast(t, src=0, group=group, async_op=True) for t in tensors]:
                handle.wait()
        with lock:
            for name, tensor in zip(body["names"], tensors):
                if name not in state["weights"]:
                    return f"unknown parameter {name}"
                state["weights"][name].copy_(tensor)
        return None

    error = await anyio.to_thread.run_sync(receive)
    # SGLang's flush_cache field defaults to true; a retract pause leaves nothing running.
    if error is None and body.get("flush_cache", True) and state["running"] and state["pause_mode"] != "retract":
        error = ("Weights were updated, but the cache was not flushed because requests are still running or "
                 "queued. Retract or finish them, then call /flush_cache.")
    state["events"].append("bucket" if error is None else "bucket-failed")
    return fail(error) if error else ok(updated(body))


@app.post("/begin_weight_update")
async def begin_weight_update():
    if state["session"]:
        return fail("a weight-update session is already open; call end_weight_update() first")
    state["session"] = True
    state["events"].append("begin")
    return ok("Success")


@app.post("/end_weight_update")
async def end_weight_update():
    if not state["session"]:
        return fail("no weight-update session is open; call begin_weight_update() first")
    state["session"] = False
    state["events"].append("end")
    return ok("Success")


@app.post("/update_weights_from_disk")
async def update_from_disk(request: Request):
    body = await request.json()
    try:
        loaded = load_file(f"{body['model_path']}/model.safetensors")
    except OSError as exc:
        state["events"].append("disk-failed")
        return JSONResponse({"success": False, "message": f"Failed to update weights: {exc}", "num_paused_requests": 0},
                            status_code=400)
    with lock:
        state["weights"] = loaded
        message = updated(body)
    state["events"].append("disk")
    return JSONResponse({"success": True, "message": message, "num_paused_requests": 0})


@app.post("/pause_generation")
async def pause(request: Request):
    state["paused"] = True
    state["pause_mode"] = (await request.json()).get("mode", "abort")
    state["events"].append(f"pause:{state['pause_mode']}")
    return JSONResponse({"message": "Generation paused successfully.", "status": "ok"})


@app.post("/continue_generation")
async def resume():
    state["paused"], state["pause_mode"] = False, None
    state["events"].append("continue")
    return JSONResponse({"message": "Generation continued successfully.", "status": "ok"})


@app.post("/generate")
async def generate(request: Request):
    """One greedy token per prompt; meta_info carries the served version, as 0.5.23's does."""
    body = await request.json()
    while state["paused"]:  # the real server holds new requests until continue_generation
        await asyncio.sleep(0.05)
    state["running"] += 1
    try:
        while state["hold"] or state["paused"]:  # a paused running request makes no progress
            await asyncio.sleep(0.05)
    finally:
        state["running"] -= 1
    return [{"text": "", "output_ids": [0], "meta_info": {
        "finish_reason": {"type": "length", "length": 1}, "weight_version": state["version"],
        "output_token_logprobs": [[0.0, 0, None]]}} for _ in body["input_ids"]]


@app.get("/model_info")
async def model_info():
    return {"weight_version": state["version"]}


@app.post("/debug/fault")
async def fault(request: Request):
    state["fault"] = await request.json()
    return ok()


@app.post("/debug/hold")
async def hold(request: Request):
    state["hold"] = (await request.json())["hold"]
    return ok()


@app.get("/debug/running")
async def running():
    return state["running"]


@app.get("/debug/requests")
async def requests():
    return state["requests"]


@app.get("/debug/weights")
async def weights():
    with lock:
        return Response(save(dict(state["weights"])), media_type="application/octet-stream")


@app.get("/debug/events")
async def events():
    return state["events"]


@app.get("/health")
async def health():
    return {}


if __name__ == "__main__":
    port, initial = int(sys.argv[1]), sys.argv[2]
    state["weights"] = load_file(initial)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def fetch_weights(url: str) -> dict[str, torch.Tensor]:
    import httpx

    return load(httpx.get(f"{url}/debug/weights").content)
