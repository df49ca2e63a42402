"""Runs inside .venv/tools/sglang (the pinned SGLang release and router): judges what the
project generates with the release's own code, and prints the verdicts as JSON.

stdin: {"server_args": [[arg, ...], ...], "router_args": [[arg, ...], ...],
        "requests": [{"route": "/update_weights_from_distributed", "body": {...}}, ...],
        "placeholder_routes": true,
        "weight_versions": [{"events": [[old_version, output_tokens], ...], "current": version,
                             "output_tokens": n, "visible": n, "truncate": k}, ...]}
--out FILE: {"server_args": [...], "router_args": [...], "requests": [...]}, one verdict per input,
        and "placeholder_routes": the routes a multi-node replica's non-leader node serves.

- server arguments: `sglang.srt.server_args.prepare_server_args`, the parser `sglang serve`
  and `python -m sglang.launch_server` use, then SGLang's own a2a post-process rule
  (`_a2a_ep_size`: an EP-spanning MoE backend forces ep_size = tp_size);
- router arguments: `sglang_router.launch_router.parse_router_args`;
- per-token weight versions: the meta_info.weight_versions a finished request's response
  carries, built by the release's own sglang/srt/utils/weight_versions.py;
- request bodies: the class each route's body is parsed into is read from the release's
  http_server.py (the route's `obj` parameter). `/generate` bodies pass the release's JSON
  contract gate (`sglang.api.v1.api_types.GenerateRequest`, what the server answers 400 with)
  and name only fields of `GenerateReqInput`; weight-update bodies are validated by pydantic
  with the request class's own core schema, exactly as FastAPI does in the server, and must
  not carry keys the class lacks (the server would drop them silently).

io_struct.py itself cannot be imported without CUDA torch (its import chain reaches
torchvision's CUDA ops), so the request classes are compiled from its source text: the class
bodies exactly as released, in a module beside the real msgspec/pydantic helpers.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib.util
import io
import json
import sys
import types
import typing
from pathlib import Path

import msgspec
import pydantic

SGLANG = Path(importlib.util.find_spec("sglang").submodule_search_locations[0])
IO_STRUCT = SGLANG / "srt" / "managers" / "io_struct.py"
HTTP_SERVER = SGLANG / "srt" / "entrypoints" / "http_server.py"
ENGINE = SGLANG / "srt" / "entrypoints" / "engine.py"
COMMON = SGLANG / "srt" / "utils" / "common.py"


def route_paths(handler: ast.AsyncFunctionDef) -> list[str]:
    """The paths a FastAPI handler is registered under (@app.get("/x"), @app.post, @app.api_route)."""
    return [
        d.args[0].value
        for d in handler.decorator_list
        if isinstance(d, ast.Call) and d.args and isinstance(d.args[0], ast.Constant)
        and isinstance(d.func, ast.Attribute) and d.func.attr in ("post", "api_route", "get")
    ]


def route_classes() -> dict[str, str]:
    """route -> name of the class its handler's `obj` body parameter is annotated with."""
    routes: dict[str, str] = {}
    for node in ast.parse(HTTP_SERVER.read_text()).body:
        if not isinstance(node, ast.AsyncFunctionDef):
            continue
        paths = route_paths(node)
        for arg in node.args.args:
            if arg.arg != "obj" or arg.annotation is None:
                continue
            annotation = arg.annotation
            if isinstance(annotation, ast.Subscript):  # Annotated[X, Body()]
                annotation = annotation.slice.elts[0]
            for path in paths:
                routes[path] = ast.unparse(annotation)
    return routes


def placeholder_routes() -> list[str]:
    """The routes a non-leader node of a multi-node replica answers: the engine starts
    `launch_dummy_health_check_server` there instead of the HTTP server (read from source)."""
    if "launch_dummy_health_check_server(" not in ENGINE.read_text():
        raise SystemExit(f"{ENGINE} no longer starts launch_dummy_health_check_server")
    for node in ast.walk(ast.parse(COMMON.read_text())):
        if isinstance(node, ast.FunctionDef) and node.name == "launch_dummy_health_check_server":
            return sorted(path for handler in ast.walk(node) if isinstance(handler, ast.AsyncFunctionDef)
                          for path in route_paths(handler))
    raise SystemExit(f"launch_dummy_health_check_server is not in {COMMON}")


def io_struct_module(class_names: set[str]) -> types.ModuleType:
    """The named msgspec request classes (and their BaseReq) compiled from io_struct.py's source."""
    from sglang.srt.utils.msgspec_utils import msgspec_struct_pydantic_core_schema

    tree = ast.parse(IO_STRUCT.read_text())
    defs = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    missing = class_names - defs.keys()
    if missing:
        raise SystemExit(f"io_struct.py has no class {sorted(missing)}")
    module = types.ModuleType("sglang_release_io_struct")
    module.__dict__.update({name: getattr(typing, name) for name in typing.__all__})
    module.__dict__.update(msgspec=msgspec, msgspec_struct_pydantic_core_schema=msgspec_struct_pydantic_core_schema)
    sys.modules[module.__name__] = module
    body = ast.Module(body=[defs["BaseReq"], *(defs[name] for name in sorted(class_names))], type_ignores=[])
    exec(compile(body, str(IO_STRUCT), "exec", flags=annotations_flag()), module.__dict__)
    return module


def io_struct_dataclass(class_name: str) -> type:
    """A @dataclass request class of io_struct.py (EmbeddingReqInput) compiled from its source,
    as FastAPI validates it (pydantic over the dataclass). The multimodal alias its image/video/
    audio fields use is taken as Any: its members need CUDA-importing modules, and the payload
    sends no media."""
    import dataclasses

    tree = ast.parse(IO_STRUCT.read_text())
    defs = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    if class_name not in defs:
        raise SystemExit(f"io_struct.py has no class {class_name}")
    module = types.ModuleType(f"sglang_release_{class_name}")
    module.__dict__.update({name: getattr(typing, name) for name in typing.__all__})
    module.__dict__.update(dataclass=dataclasses.dataclass, field=dataclasses.field, MultimodalDataInputFormat=typing.Any)
    sys.modules[module.__name__] = module
    exec(compile(ast.Module(body=[defs[class_name]], type_ignores=[]), str(IO_STRUCT), "exec",
                 flags=annotations_flag()), module.__dict__)
    return getattr(module, class_name)


def annotations_flag() -> int:
    import __future__

    return __future__.annotations.compiler_flag


def dataclass_fields(class_name: str) -> set[str]:
    """Field names of a @dataclass in io_struct.py (GenerateReqInput), from its source."""
    for node in ast.parse(IO_STRUCT.read_text()).body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            return {s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
    raise SystemExit(f"io_struct.py has no class {class_name}")


def judge_server_args(argv: list[str]) -> dict:
    from sglang.srt.arg_groups.overrides import _a2a_ep_size, resolving_view
    from sglang.srt.server_args import prepare_server_args

    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr):
            parsed = prepare_server_args(argv)
    except SystemExit:
        return {"ok": False, "error": stderr.getvalue().strip().splitlines()[-1]}
    forced = _a2a_ep_size(resolving_view(parsed))
    fields = ("tp_size", "ep_size", "moe_a2a_backend", "deepep_mode", "deepep_v2_mode", "nnodes", "node_rank",
              "enable_return_routed_experts", "weight_version", "model_path", "tokenizer_path", "enable_metrics",
              "quantization", "is_embedding", "max_running_requests", "cuda_graph_max_bs_decode", "mem_fraction_static",
              "disable_radix_cache")  # the last: rollout.pause_mode in_place
    return {"ok": True, "args": {f: getattr(parsed, f) for f in fields}, "ep_size_after_a2a_rule": forced.get("ep_size")}


def judge_router_args(argv: list[str]) -> dict:
    from sglang_router.launch_router import parse_router_args

    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr):
            parsed = parse_router_args(argv)
    except SystemExit:
        return {"ok": False, "error": stderr.getvalue().strip().splitlines()[-1]}
    return {"ok": True, "args": json.loads(json.dumps(vars(parsed), default=str))}


def judge_requests(requests: list[dict]) -> list[dict]:
    from sglang.api.v1.api_types import GenerateRequest, JsonContractError

    routes = route_classes()
    dataclasses_ = {"GenerateReqInput", "EmbeddingReqInput"}
    wanted = {routes[r["route"]] for r in requests if r["route"] in routes and routes[r["route"]] not in dataclasses_}
    module = io_struct_module(wanted)
    verdicts = []
    for request in requests:
        route, body = request["route"], request["body"]
        if route not in routes:
            verdicts.append({"ok": False, "error": f"{route}: the release's server takes no request body there"})
            continue
        class_name = routes[route]
        if class_name == "GenerateReqInput":
            unknown = set(body) - dataclass_fields(class_name)
            try:
                GenerateRequest.from_json_value(body)
                error = f"fields {sorted(unknown)} are not in GenerateReqInput" if unknown else None
            except JsonContractError as exc:
                error = str(exc)
        elif class_name == "EmbeddingReqInput":  # /encode, /classify: a @dataclass body
            unknown = set(body) - dataclass_fields(class_name)
            try:
                pydantic.TypeAdapter(io_struct_dataclass(class_name)).validate_json(json.dumps(body))
                error = f"fields {sorted(unknown)} are not in {class_name}" if unknown else None
            except pydantic.ValidationError as exc:
                error = " ".join(str(exc).split())
        else:
            cls = getattr(module, class_name)
            unknown = set(body) - {f.name for f in msgspec.structs.fields(cls)}
            try:
                pydantic.TypeAdapter(cls).validate_json(json.dumps(body))
                error = f"fields {sorted(unknown)} are not in {class_name}" if unknown else None
            except pydantic.ValidationError as exc:
                error = " ".join(str(exc).split())
        verdicts.append({"ok": error is None, "class": class_name, "error": error})
    return verdicts


def weight_versions(cases: list[dict]) -> list[dict]:
    """meta_info as the release builds it for a finished request: the scheduler's
    compute_weight_version_spans over the request's weight-version events (after
    truncate_weight_version_events where a retract kept `truncate` tokens), then the tokenizer
    manager's add_weight_versions_to_meta_info for the `visible` output tokens it returns."""
    from sglang.srt.utils.weight_versions import (WeightVersionEvent, add_weight_versions_to_meta_info,
                                                  compute_weight_version_spans, truncate_weight_version_events)

    out = []
    for case in cases:
        events = [WeightVersionEvent(old_version=v, num_output_tokens=n) for v, n in case["events"]]
        if case.get("truncate") is not None:
            events = truncate_weight_version_events(events, num_kept_tokens=case["truncate"])
        spans = compute_weight_version_spans(events, current_version=case["current"],
                                             num_output_tokens=case["output_tokens"])
        meta: dict = {}
        add_weight_versions_to_meta_info(meta, spans, case.get("visible", case["output_tokens"]))
        out.append(meta)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    todo = json.load(sys.stdin)
    out_path = parser.parse_args().out
    out = {
        "server_args": [judge_server_args(a) for a in todo.get("server_args", [])],
        "router_args": [judge_router_args(a) for a in todo.get("router_args", [])],
        "requests": judge_requests(todo.get("requests", [])),
        "placeholder_routes": placeholder_routes() if todo.get("placeholder_routes") else None,
        "weight_versions": weight_versions(todo.get("weight_versions", [])),
    }
    out_path.write_text(json.dumps(out, default=str))


if __name__ == "__main__":
    main()
