"""checkov (kubernetes framework) over dist/: zero failed checks; every skip is in
k8s/checkov/config.yaml with its reason.

checkov's own pins conflict with requirements.txt (networkx, packaging), so it lives in a
tool venv under .venv/tools/checkov, installed from k8s/checkov/requirements.txt the first
time (and again whenever that file changes).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.tool_venv import tool_venv

REPO = Path(__file__).resolve().parents[2]
PINS = REPO / "k8s" / "checkov" / "requirements.txt"
CONFIG = REPO / "k8s" / "checkov" / "config.yaml"


def checkov() -> Path:
    return tool_venv("checkov", PINS) / "bin" / "checkov"


@pytest.fixture(scope="module")
def checkov_bin() -> Path:
    return checkov()


def run_checkov(binary: Path, directory: Path) -> dict:
    result = subprocess.run(
        [str(binary), "--config-file", str(CONFIG), "-d", str(directory), "-o", "json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = json.loads(result.stdout)
    return report[0] if isinstance(report, list) else report


@pytest.mark.slow
@pytest.mark.parametrize("env_name", ["default", "p5en-48"])
def test_checkov_passes_on_dist(synths, checkov_bin, env_name):
    report = run_checkov(checkov_bin, synths[env_name].dist)
    failed = [f"{c['check_id']} {c['resource']}: {c['check_name']}" for c in report["results"]["failed_checks"]]
    assert report["summary"]["parsing_errors"] == 0
    assert report["summary"]["passed"] > 300
    assert not failed, "\n".join(failed)


@pytest.mark.slow
def test_checkov_catches_a_privileged_container(checkov_bin, synths, tmp_path):
    """The run above is not vacuous: a privileged Deployment fails it."""
    text = (synths["default"].dist / "0005-workers.k8s.yaml").read_text()
    (tmp_path / "workers.k8s.yaml").write_text(text.replace("privileged: false", "privileged: true", 1))
    report = run_checkov(checkov_bin, tmp_path)
    assert "CKV_K8S_16" in {c["check_id"] for c in report["results"]["failed_checks"]}
