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

    python sglang_protocol_server.py PORT INITIAL.safetensors
"""

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
state = {"weights": {}, "version": "default", "groups": {}, "events": [], "session": False}
lock = threading.Lock()


def ok(message="ok"):
    return JSONResponse({"success": True, "message": message})


def fail(message):
    return JSONResponse({"success": False, "message": message}, status_code=400)


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
            if body.get("weight_version") is not None:
                state["version"] = body["weight_version"]
        return None

    error = await anyio.to_thread.run_sync(receive)
    state["events"].append("bucket" if error is None else "bucket-failed")
    return fail(error) if error else ok()


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
    loaded = load_file(f"{body['model_path']}/model.safetensors")
    with lock:
        state["weights"] = loaded
        state["version"] = body.get("weight_version") or state["version"]
    state["events"].append("disk")
    return ok()


@app.post("/pause_generation")
async def pause(request: Request):
    state["events"].append(f"pause:{(await request.json()).get('mode')}")
    return ok()


@app.post("/continue_generation")
async def resume():
    state["events"].append("continue")
    return ok()


@app.get("/model_info")
async def model_info():
    return {"weight_version": state["version"]}


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
