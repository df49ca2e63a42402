"""The pinned SGLang release in a tool venv, and a way to ask it about what the project generates.

SGLang 0.5.23 needs CUDA torch 2.14.1 (PyPI has no CPU wheel of it for x86_64), so the venv
installs SGLang and its router with --no-deps, plus the few modules their parsers import (pins
in requirements.txt beside this file), and reaches the main venv's CPU torch, transformers,
pydantic and fastapi through a .pth file. Built under .venv/tools/sglang the first time, and
again whenever requirements.txt changes (as tests/k8s/test_k8s_checkov.py does for checkov).
"""

from __future__ import annotations

import hashlib
import json
import site
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
PINS = HERE / "requirements.txt"
TOOL_VENV = REPO / ".venv" / "tools" / "sglang"


def tool_python() -> Path:
    python = TOOL_VENV / "bin" / "python"
    stamp = TOOL_VENV / "requirements.sha256"
    main_site = "\n".join(site.getsitepackages()) + "\n"
    # Rebuilt when the pins change or the main venv moved (the .pth names its path).
    digest = hashlib.sha256(PINS.read_bytes() + main_site.encode()).hexdigest()
    if not python.exists() or not stamp.exists() or stamp.read_text() != digest:
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(TOOL_VENV)], check=True)
        [tool_site] = (TOOL_VENV / "lib").glob("python3*/site-packages")
        # Appended after the tool venv's own packages: the release's pins win where both have one.
        (tool_site / "zz_main_venv.pth").write_text(main_site)
        subprocess.run(
            [str(TOOL_VENV / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check", "--no-deps",
             "-r", str(PINS)],
            check=True,
            timeout=900,
        )
        stamp.write_text(digest)
    return python


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
    tool_python()
    [package] = (TOOL_VENV / "lib").glob("python3*/site-packages/sglang")
    return package


@pytest.fixture(scope="session")
def release_python() -> Path:
    """The tool venv's interpreter (the pinned SGLang and router importable)."""
    return tool_python()
