"""One line for everything wrong in an environment or job file, shaped for the person who wrote it:
where a YAML syntax error is (line and column), every schema error at once (fixing them one run
at a time is slow), and the key an unknown key was probably meant to be.

    schema_errors(exc, Environment, describe)   # "unknown key 'availabilty_zone' in pools.train:
                                                #  did you mean 'availability_zone'?; region: ..."
"""

from __future__ import annotations

import difflib
import re
import types
from typing import Annotated, Any, Callable, Union, get_args, get_origin

import yaml
from pydantic import BaseModel, ValidationError


def yaml_problem(source: str, exc: yaml.YAMLError) -> str:
    """`source: not valid YAML at line L, column C: problem (while ... from line L, column C)`, 1-based."""
    if not isinstance(exc, yaml.MarkedYAMLError) or exc.problem_mark is None:
        return f"{source}: not valid YAML: {str(exc).splitlines()[0]}"
    mark = exc.problem_mark
    line = f"{source}: not valid YAML at line {mark.line + 1}, column {mark.column + 1}: {exc.problem}"
    # The context is often where the mistake really is (an unclosed bracket lines above).
    if exc.context and exc.context_mark is not None and exc.context_mark.line != mark.line:
        line += f" ({exc.context} from line {exc.context_mark.line + 1}, column {exc.context_mark.column + 1})"
    elif exc.context:
        line += f" ({exc.context})"
    return line


def _unwrap(annotation: Any) -> Any:
    """The model (or dict / list) an annotation holds, through Annotated and `X | None`."""
    if get_origin(annotation) is Annotated:
        return _unwrap(get_args(annotation)[0])
    if get_origin(annotation) in (Union, types.UnionType):
        members = [arg for arg in get_args(annotation) if arg is not type(None)]
        models = [m for m in members if isinstance(m, type) and issubclass(m, BaseModel)]
        if len(members) == 1 or len(models) == 1:
            return _unwrap(models[0] if models else members[0])
    return annotation


def known_keys(root: type[BaseModel], loc: tuple[Any, ...]) -> list[str] | None:
    """The keys the model at `loc` (a pydantic error location, less its last part) accepts; None
    where the location does not lead to a model (a free-form mapping)."""
    current: Any = root
    for part in loc:
        current = _unwrap(current)
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = current.model_fields.get(part) if isinstance(part, str) else None
            if field is None:
                return None
            current = field.annotation
        elif get_origin(current) is dict:
            current = get_args(current)[1]
        elif get_origin(current) in (list, tuple):
            current = get_args(current)[0]
        else:
            return None
    current = _unwrap(current)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return list(current.model_fields)
    return None


def _where(prefix: tuple[str, ...], loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in (*prefix, *loc))


def unknown_key(root: type[BaseModel], loc: tuple[Any, ...], prefix: tuple[str, ...] = ()) -> tuple[str, str | None]:
    """(message, suggested key) for an extra key at `loc`."""
    key, parent = str(loc[-1]), tuple(loc[:-1])
    where = f"in {_where(prefix, parent)}" if prefix or parent else "at the top level"
    keys = known_keys(root, parent) or []
    close = difflib.get_close_matches(key, keys, n=1)
    if close:
        return f"unknown key {key!r} {where}: did you mean {close[0]!r}?", close[0]
    if keys:
        return f"unknown key {key!r} {where} (known keys: {', '.join(keys)})", None
    return f"unknown key {key!r} {where}", None


def schema_errors(exc: ValidationError, root: type[BaseModel], describe: Callable[[dict[str, Any]], str],
                  prefix: tuple[str, ...] = ()) -> str:
    """Every error of `exc`, '; '-joined on one line: unknown keys by unknown_key, the rest by
    `describe`. A misspelt required key is one mistake, not two: the "required field is missing"
    of the key an unknown key was taken for is left out."""
    errors = exc.errors()
    unknown = {i: unknown_key(root, tuple(e["loc"]), prefix) for i, e in enumerate(errors) if e["type"] == "extra_forbidden"}
    meant = {(*errors[i]["loc"][:-1], close) for i, (_, close) in unknown.items() if close is not None}
    lines = [unknown[i][0] if i in unknown else describe(error) for i, error in enumerate(errors)
             if not (error["type"] == "missing" and tuple(error["loc"]) in meant)]
    return "; ".join(dict.fromkeys(lines))  # in order, once each


# `org/name`, as the Hub spells a repository: relative, one slash.
_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*")


def hub_download(path: str) -> str | None:
    """The command that downloads `path` into a local folder, where `path` reads as a Hugging Face
    Hub id (the job reads checkpoint folders and never downloads: SGLang would try, from a node
    with no route to the Hub); None otherwise."""
    if not _HUB_ID.fullmatch(path):
        return None
    return f"huggingface-cli download {path} --local-dir {path.split('/')[1]}"


def pod_path_problem(field: str, path: str) -> str | None:
    """Why `path` cannot be a checkpoint folder the pods read, or None: pods share no working
    directory with the machine that renders them, so it must be absolute (FSx's /fsx/models)."""
    if path.startswith("/"):
        return None
    name = path.rstrip("/").rsplit("/", 1)[-1]
    if download := hub_download(path):
        return (f"{field} {path!r} is a Hugging Face Hub id, but the job reads a checkpoint folder and never downloads: "
                f"download it ({download}), copy it to s3://<bucket>/models/{name}/ (README \"Train Qwen3-30B-A3B on "
                f"your math dataset\") and set {field}: /fsx/models/{name}")
    return f"{field} {path!r} is relative: the pods read an absolute path on FSx, e.g. /fsx/models/{name}"
