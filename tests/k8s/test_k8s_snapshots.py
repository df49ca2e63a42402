"""dist/ for both environments, byte for byte (placeholders for the deploy outputs).

An intended change: `pytest tests/k8s/test_k8s_snapshots.py --snapshot-update`, then review the diff.
"""

from __future__ import annotations

import pytest

from conftest import ENVIRONMENTS

EXPECTED_FILES = [
    "0000-base.k8s.yaml",
    "0001-buffer.k8s.yaml",
    "0002-trainer.k8s.yaml",
    "0003-rollout-servers.k8s.yaml",
    "0004-router.k8s.yaml",
    "0005-workers.k8s.yaml",
    "0006-feeder.k8s.yaml",
    "0007-monitoring.k8s.yaml",
    "0008-sandbox.k8s.yaml",
    "0009-queueing.k8s.yaml",
    "0010-autoscaling.k8s.yaml",
    "0011-tracking.k8s.yaml",
]


@pytest.mark.parametrize("env_name", ENVIRONMENTS)
def test_dist_matches_snapshot(synths, env_name, snapshot):
    files = synths[env_name].files
    # Base first: `kubectl apply -f dist/` takes files in name order and needs the namespace.
    assert [path.name for path in files] == EXPECTED_FILES
    assert {path.name: path.read_text() for path in files} == snapshot


def test_placeholder_note_is_one_line(synths):
    for synthed in synths.values():
        assert synthed.note is not None and "\n" not in synthed.note
        assert "placeholders" in synthed.note and f"make deploy ENV={synthed.environment.name}" in synthed.note
