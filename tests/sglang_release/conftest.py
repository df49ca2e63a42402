"""The pinned SGLang release in a tool venv, and a way to ask it about what the project generates.

SGLang 0.5.23 needs CUDA torch 2.14.1 (PyPI has no CPU wheel of it for x86_64), so the venv
installs SGLang and its router with --no-deps, plus the few modules their parsers import (pins
in requirements.txt beside this file), and reaches the main venv's CPU torch, transformers,
pydantic and fastapi through a .pth file. Built under .venv/tools/sglang the first time, and
again whenever requirements.txt changes (tests/tool_venv.py, as for checkov and MLflow).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.tool_venv import tool_venv

HERE = Path(__file__).resolve().parent
PINS = HERE / "requirements.txt"


def release_venv() -> Path:
    return tool_venv("sglang", PINS, no_deps=True, main_site_packages=True)


def tool_python() -> Path:
    return release_venv() / "bin" / "python"


@pytest.fixture(scope="session")
def release(tmp_path_factory):
    """ask(todo) -> the release's verdicts (see in_release.py), one subprocess per call."""
    python = tool_python()

    def ask(todo: dict) -> dict:
        out = tmp_path_factory.mktemp("verdicts") / "out.json"
        result = subprocess.run([str(python), str(HERE / "in_release.py"), "--out", str(out)], input=json.dumps(todo),
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr[-3000:]
        return json.loads(out.read_text())

    return ask


@pytest.fixture(scope="session")
def sglang_source() -> Path:
    """The pinned release's package directory (its source files, for tests that read them)."""
    [package] = (release_venv() / "lib").glob("python3*/site-packages/sglang")
    return package


@pytest.fixture(scope="session")
def release_python() -> Path:
    """The tool venv's interpreter (the pinned SGLang and router importable)."""
    return tool_python()
