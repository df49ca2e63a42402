"""docs/configuration.md, generated from the schema: every field of an environment file
(spec/environment.py) and its job section (spec/job.py), with its type, allowed values,
default and one sentence.

    python -m spec.reference            # rewrite docs/configuration.md (what `make docs` runs)
    python -m spec.reference --check    # exit 1, naming the file, when it is stale

The sentence is the first sentence of the comment right above the field in spec/*.py (or a
`Field(description=...)`, which wins): the comment stays the one home of what a field means,
read by whoever edits the schema, and the generator refuses a field that has neither, naming it.
Types, allowed values and defaults come from pydantic's own field information, so they cannot
drift from what validation accepts. A constraint only a validator knows (FSx sizes, zones) is
the comment's to say.
"""

from __future__ import annotations

import argparse
import ast
import enum
import inspect
import re
import sys
import textwrap
import types
import typing
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel
from pydantic.fields import FieldInfo

REFERENCE_FILE = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"
COMMAND = "make docs"


class UndocumentedField(Exception):
    """A schema field without a comment above it (or a description): one line naming it."""


@dataclass(frozen=True)
class FieldDoc:
    name: str
    type: str
    default: str
    sentence: str


def _comment_above(lines: list[str], lineno: int) -> str:
    """The contiguous `#` comment lines right above source line `lineno` (1-based), joined."""
    out = []
    i = lineno - 2
    while i >= 0 and lines[i].strip().startswith("#"):
        out.append(lines[i].strip().lstrip("#").strip())
        i -= 1
    return " ".join(reversed(out))


def first_sentence(text: str) -> str:
    """The first sentence of a comment: up to the first '.', '!' or '?' followed by a space and
    a capital letter or the end ("e.g." and "i.e." do not end one)."""
    text = " ".join(text.split())
    for match in re.finditer(r"[.!?](?=\s+[A-Z(`]|$)", text):
        before = text[:match.end()]
        if re.search(r"\b(e\.g|i\.e|etc|vs|Dr)\.$", before):
            continue
        return before
    return text


def _comments(cls: type[BaseModel]) -> dict[str, str]:
    """Each field's comment in the class's own source (fields a base class declares: its own)."""
    source = textwrap.dedent(inspect.getsource(cls))
    lines = source.splitlines()
    tree = ast.parse(source)
    body = tree.body[0].body  # type: ignore[attr-defined]
    return {
        node.target.id: _comment_above(lines, node.lineno)
        for node in body
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
    }


def _args(annotation) -> tuple:
    return typing.get_args(annotation)


def _is_union(annotation) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType)


def _models_in(annotation) -> list[type[BaseModel]]:
    """The models a field's annotation holds (a section, an optional one, a list or map of one)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in _args(annotation) for m in _models_in(arg)]


def _anchor(cls: type[BaseModel]) -> str:
    return cls.__name__.lower()


def _type(annotation) -> str:
    """What YAML a field takes, in words: allowed values spelled out."""
    origin = typing.get_origin(annotation)
    if origin is typing.Literal and len(_args(annotation)) == 1:
        return f"`{_yaml(_args(annotation)[0])}`"
    if origin is typing.Literal:
        return "one of " + ", ".join(f"`{_yaml(v)}`" for v in _args(annotation))
    if _is_union(annotation):
        parts = [a for a in _args(annotation) if a is not type(None)]
        text = " or ".join(_type(a) for a in parts)
        return f"{text} or `null`" if len(parts) < len(_args(annotation)) else text
    if origin is list:
        return f"list of {_type(_args(annotation)[0])}"
    if origin is dict:
        key, value = _args(annotation)
        return f"map of {_type(key)} to {_type(value)}"
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return "one of " + ", ".join(f"`{m.value}`" for m in annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return f"[{annotation.__name__}](#{_anchor(annotation)})"
    if annotation is bool:
        return "`true` or `false`"
    return {str: "string", int: "integer", float: "number"}.get(annotation, str(annotation))


def _constraints(info: FieldInfo) -> str:
    words = []
    for m in info.metadata:
        # annotated_types' Ge/Gt/Le/Lt, as pydantic's Field(ge=...) records them.
        for attr, sign in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")):
            if getattr(m, attr, None) is not None:
                words.append(f"{sign} {getattr(m, attr)}")
        if getattr(m, "pattern", None):
            words.append(f"matching `{m.pattern}`")
    return ", ".join(words)


def _yaml(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, enum.Enum):
        return str(value.value)
    if value == "":
        return '""'
    if isinstance(value, (dict, list)) and not value:
        return "{}" if isinstance(value, dict) else "[]"
    return str(value)


def _default(info: FieldInfo) -> str:
    if info.is_required():
        return "required"
    value = info.get_default(call_default_factory=True)
    if isinstance(value, BaseModel):
        return "its defaults"
    text = _yaml(value).replace("\n", "\\n").replace("|", "\\|")
    if len(text) > 60:
        text = text[:57] + "…"
    return f"`{text}`"


def field_docs(cls: type[BaseModel]) -> list[FieldDoc]:
    """One row per field of `cls`, in declaration order; UndocumentedField naming the first
    field that has no sentence."""
    comments: dict[str, str] = {}
    for base in reversed(cls.__mro__):
        if isinstance(base, type) and issubclass(base, BaseModel) and base is not BaseModel and "__pydantic_fields__" in vars(base):
            comments.update(_comments(base))
    rows = []
    for name, info in cls.model_fields.items():
        text = info.description or comments.get(name, "")
        if not text:
            module = Path(inspect.getsourcefile(cls) or "?").name
            raise UndocumentedField(f"{module}: {cls.__name__}.{name} has no comment above it (one sentence: what "
                                    f"it means, then why); the configuration reference ({COMMAND}) needs one")
        kind = _type(info.annotation)
        if limits := _constraints(info):
            kind = f"{kind}, {limits}"
        rows.append(FieldDoc(name, kind, _default(info), first_sentence(text)))
    return rows


def _sections(root: type[BaseModel], prefix: str) -> list[tuple[type[BaseModel], list[str]]]:
    """Every model reachable from `root` once, in the order a reader meets it, with the
    dotted paths it appears at (`<name>` for a map's keys, `[]` for a list's items)."""
    found: dict[type[BaseModel], list[str]] = {}

    def walk(cls: type[BaseModel], paths: list[str], prefix: str) -> None:
        seen = cls in found
        found.setdefault(cls, []).extend(paths)
        if seen:
            return
        # Sibling fields of one model (pools.train, pools.rollout, ...) share one section; what
        # lies below them is named once, `pools.<train|rollout|...>.taints[]`.
        siblings: dict[type[BaseModel], list[str]] = {}
        for name, info in cls.model_fields.items():
            origin = typing.get_origin(info.annotation)
            suffix = "[]" if origin is list else ".<name>" if origin is dict else ""
            for model in _models_in(info.annotation):
                siblings.setdefault(model, []).append(name + suffix)
        for model, names in siblings.items():
            at = [f"{prefix}.{n}" if prefix else n for n in names]
            below = at[0] if len(at) == 1 else (f"{prefix}." if prefix else "") + "<" + "|".join(names) + ">"
            walk(model, at, below)

    walk(root, [prefix], prefix)
    return list(found.items())


def _class_sentence(cls: type[BaseModel]) -> str:
    doc = cls.__doc__
    if not doc or doc == BaseModel.__doc__ or any(doc == b.__doc__ for b in cls.__mro__[1:]):
        return ""
    return first_sentence(" ".join(doc.split("\n\n")[0].split()))


def _table(cls: type[BaseModel], paths: list[str]) -> list[str]:
    title = ", ".join(f"`{p}`" for p in paths) if paths[0] else "The environment file (top level)"
    out = [f'<a id="{_anchor(cls)}"></a>', f"### {title}", ""]
    if sentence := _class_sentence(cls):
        out += [sentence, ""]
    out += ["| field | type and allowed values | default | meaning |", "|---|---|---|---|"]
    for row in field_docs(cls):
        sentence = row.sentence.replace("|", "\\|")
        out.append(f"| `{row.name}` | {row.type} | {row.default} | {sentence} |")
    return out + [""]


def render() -> str:
    """docs/configuration.md's text."""
    from spec.environment import Environment
    from spec.job import JobConfig

    out = [
        "# Configuration reference",
        "",
        f"Generated by `{COMMAND}` (`python -m spec.reference`) from spec/environment.py and spec/job.py: "
        "edit the comment above a field there, then regenerate; tests/spec/test_reference.py fails while this "
        "file is stale. Dataset shapes the feeder reads, with a `job.data` section for each: "
        "[datasets.md](datasets.md).",
        "",
        "A mistake in a file is refused with one line naming the field and what is allowed. Constraints only a "
        "validator knows (FSx sizes, zones of the region, pool combinations) are in the field's sentence or in "
        "the README.",
        "",
        "## Environment file: `environments/<name>.yaml`",
        "",
    ]
    environment = _sections(Environment, "")
    job_models = {cls for cls, _ in _sections(JobConfig, "job")}
    for cls, paths in environment:
        if cls not in job_models:
            out += _table(cls, paths)
    out += [
        "## The job: `job:` in an environment file, or a job YAML (`--job-config`)",
        "",
        "The same fields either way; a job YAML has them at its top level (`model:`, not `job.model:`).",
        "",
    ]
    for cls, paths in _sections(JobConfig, "job"):
        out += _table(cls, paths)
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m spec.reference", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/configuration.md is stale; write nothing")
    parser.add_argument("--file", type=Path, default=REFERENCE_FILE, help="the reference's path (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        text = render()
    except UndocumentedField as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.check:
        current = args.file.read_text(encoding="utf-8") if args.file.is_file() else ""
        if current != text:
            print(f"error: {args.file} is stale: run {COMMAND}", file=sys.stderr)
            return 1
        return 0
    args.file.write_text(text, encoding="utf-8")
    print(f"wrote {args.file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
