"""Tool venvs under .venv/tools/<name>: pinned tools whose dependencies conflict with
requirements.txt (checkov, the SGLang release, the MLflow server), built by the test that needs
one the first time and again whenever its pin file changes, so a fresh machine runs every test
and CI never skips one.
"""

from __future__ import annotations

import fcntl
import hashlib
import site
import subprocess
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[1] / ".venv" / "tools"


def tool_venv(name: str, pins: Path, *, no_deps: bool = False, main_site_packages: bool = False) -> Path:
    """The venv's directory, built from `pins` (`--no-deps`: the pin file lists every package).
    `main_site_packages`: the main venv's packages are reachable after the tool's own (a .pth
    file), for tools that need its CPU torch; the venv is then rebuilt when the main venv moves."""
    venv = TOOLS / name
    stamp = venv / "requirements.sha256"
    main_site = "\n".join(site.getsitepackages()) + "\n" if main_site_packages else ""
    digest = hashlib.sha256(pins.read_bytes() + main_site.encode()).hexdigest()
    TOOLS.mkdir(parents=True, exist_ok=True)
    # One builder at a time (pytest-xdist workers, parallel CI jobs on one checkout).
    with open(TOOLS / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (venv / "bin" / "python").exists() or not stamp.exists() or stamp.read_text() != digest:
            subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
            if main_site:
                [tool_site] = (venv / "lib").glob("python3*/site-packages")
                # Appended after the tool venv's own packages: the tool's pins win where both have one.
                (tool_site / "zz_main_venv.pth").write_text(main_site)
            subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                            *(["--no-deps"] if no_deps else []), "-r", str(pins)], check=True, timeout=900)
            stamp.write_text(digest)
    return venv
