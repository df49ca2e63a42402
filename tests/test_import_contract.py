"""The import direction, read from every module's own import statements (function-level ones too):

    infra/, k8s/, app.py  ->  cluster/  ->  payload/  ->  estimate/  ->  spec/

Each layer imports only itself and the layers to its right; nothing imports infra/ or k8s/, and
no two of payload's packages import each other in a cycle. The image copies spec/, estimate/,
payload/ and environments/ (the Dockerfile): `plan` and `data check --env` run from a tree holding
only those."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ["spec", "estimate", "payload", "cluster", "infra", "k8s"]
# What each layer may import of the repository's own packages.
ALLOWED = {
    "spec": {"spec"},
    "estimate": {"spec", "estimate"},
    "payload": {"spec", "estimate", "payload"},
    "cluster": {"spec", "estimate", "payload", "cluster"},
    "infra": {"spec", "estimate", "payload", "cluster", "infra"},
    "k8s": {"spec", "estimate", "payload", "cluster", "k8s"},
}
IMAGE_FOLDERS = ("spec", "estimate", "payload", "environments")


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every absolute import in `path`, wherever it sits in the file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def modules(layer: str):
    for path in sorted((ROOT / layer).rglob("*.py")):
        if "imports" not in path.relative_to(ROOT).parts[:2]:  # k8s/imports: generated CRD bindings
            yield path


def test_each_layer_imports_only_the_layers_below_it():
    upward = []
    for layer in LAYERS:
        for path in modules(layer):
            for line, module in imports(path):
                top = module.split(".")[0]
                if top in LAYERS and top not in ALLOWED[layer]:
                    upward.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert not upward, "imports against the layers (spec < estimate < payload < cluster < infra, k8s):\n" + "\n".join(upward)


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_cycle_between_packages():
    """Between payload's packages (payload.train, payload.queue, ...), estimate and spec, as
    packages import one another. A package's command (payload.X.cli) is a node of its own: the
    commands sit above every library, and no library imports one."""
    graph: dict[str, set[str]] = defaultdict(set)
    for layer in ("spec", "estimate", "payload"):
        for path in modules(layer):
            parts = path.relative_to(ROOT).with_suffix("").parts
            source = ".".join(parts[:2]) if layer == "payload" and len(parts) > 2 else parts[0]
            if parts[-1] == "cli":
                source = ".".join(parts)
            for _, module in imports(path):
                target_parts = module.split(".")
                if target_parts[0] not in ("spec", "estimate", "payload"):
                    continue
                target = ".".join(target_parts[:2]) if target_parts[0] == "payload" and len(target_parts) > 2 else target_parts[0]
                if target_parts[-1] == "cli":
                    target = module
                if target != source and not (target == "payload" and layer == "payload"):
                    graph[source].add(target)
    assert _cycle(graph) is None, f"import cycle: {' -> '.join(_cycle(graph))}"


def test_the_contract_catches_an_upward_import(tmp_path):
    """The checker itself: an estimator that imports payload is reported."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from payload.train import trainer\n")
    assert imports(bad) == [(2, "payload.train")]
    assert _cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]


def test_the_image_copies_every_layer_the_processes_import():
    copied = [line.split()[1] for line in (ROOT / "Dockerfile").read_text().splitlines() if line.startswith("COPY ")]
    assert set(IMAGE_FOLDERS) <= set(copied), f"the Dockerfile copies {copied}"


@pytest.mark.parametrize("argv", [
    ["plan", "--env", "p5en-48", "--model", "Qwen3-235B-A22B"],
    ["data", "check", "--env", "default", "--help"],
])
def test_plan_and_data_check_run_from_the_image_folders_alone(tmp_path, argv):
    for folder in IMAGE_FOLDERS:
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONPATH": str(tmp_path)}
    run = subprocess.run([sys.executable, "-m", "payload", *argv], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    if argv[0] == "plan":
        assert "Qwen3-235B-A22B" in run.stdout and "PP 16 x EP 8 x FSDP 8" in run.stdout
