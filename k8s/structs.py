"""Typed pod templates inside custom resources (JobSet, LeaderWorkerSet).

`cdk8s import` gives every CRD its own copy of the pod template types
(`JobSetSpecReplicatedJobsTemplateSpecTemplate`, `LeaderWorkerSetSpecLeaderWorkerTemplate
WorkerTemplate`, ...), hundreds of classes each. The charts build their pods once, with the
built-in typed constructs (cdk8s-plus-33 `k8s.PodTemplateSpec`, through k8s/pods.py), and
this module converts the rendered template into the CRD's own struct: every field is looked
up in the CRD's generated type, so a field the installed CRD release does not know fails at
synth (naming its path) instead of being pruned silently by the API server.
"""

from __future__ import annotations

import collections.abc
import enum
import functools
import typing
from typing import Any


class UnknownFieldError(TypeError):
    """A rendered field that the custom resource's schema does not define."""


@functools.cache
def _fields(struct: type) -> dict[str, tuple[str, Any]]:
    """JSON name -> (Python keyword, type) for a generated jsii struct."""
    hints = typing.get_type_hints(struct.__init__)
    return {json: (python, hints[python]) for python, json in struct.__jsii_name_mapping__.items()}


def _is_struct(kind: Any) -> bool:
    return isinstance(kind, type) and hasattr(kind, "__jsii_name_mapping__")


def _convert(kind: Any, value: Any, path: str) -> Any:
    origin = typing.get_origin(kind)
    if origin is typing.Union:
        # Optional[X] and the generator's Union[Struct, Dict[str, Any]]: the struct wins.
        options = [arg for arg in typing.get_args(kind) if arg is not type(None)]
        structs = [arg for arg in options if _is_struct(arg)]
        return _convert(structs[0] if structs else options[0], value, path)
    if origin in (list, collections.abc.Sequence):
        (item,) = typing.get_args(kind)
        return [_convert(item, element, f"{path}[{i}]") for i, element in enumerate(value)]
    if origin in (dict, collections.abc.Mapping):
        _, item = typing.get_args(kind)
        return {key: _convert(item, element, f"{path}.{key}") for key, element in value.items()}
    if _is_struct(kind):
        return as_struct(kind, value, path)
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        raise TypeError(f"{path}: enum fields ({kind.__name__}) are set directly, not converted")
    if isinstance(kind, type) and hasattr(kind, "from_string") and hasattr(kind, "from_number"):
        # IntOrString and Quantity unions (ports, resource amounts).
        return kind.from_string(value) if isinstance(value, str) else kind.from_number(value)
    return value


def as_struct(struct: type, data: dict, path: str = "") -> Any:
    """`data` (Kubernetes JSON, camelCase) as an instance of the generated struct `struct`."""
    fields = _fields(struct)
    kwargs = {}
    for key, value in data.items():
        where = f"{path}.{key}" if path else key
        if key not in fields:
            raise UnknownFieldError(f"{where}: not a field of {struct.__jsii_type__}")
        python, kind = fields[key]
        kwargs[python] = _convert(kind, value, where)
    return struct(**kwargs)

