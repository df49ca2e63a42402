"""Which DeepEP sources the image's build (deepseek-ai/DeepEP at the Dockerfile's DEEPEP_COMMIT)
has that differ from sgl-deep-ep 0.1.2.post1, the wheel SGLang 0.5.23 pins and the image
replaces: exactly the list the Dockerfile and the README give.

The commit side is deepep-dd758ca.sha256 beside this file: the sha256 of every file under
deep_ep/ at that commit, recorded from `git archive` of github.com/deepseek-ai/DeepEP (CI reaches
package registries only, not GitHub). The wheel side is the released wheel itself, downloaded with
pip as tests/payload/ep/test_deepep_import.py does. The wheel's _C.so is compiled from its own
csrc, which the wheel does not ship: not compared."""

from __future__ import annotations

import hashlib
import re
import zipfile
from pathlib import Path

from tests.payload.ep.test_deepep_import import PROLOGUE, TOOLS, released_files

REPO = Path(__file__).resolve().parents[2]
MANIFEST = Path(__file__).with_name("deepep-dd758ca.sha256")
# Differ in content (the wheel's __init__.py only by its packaging prologue).
DIFFERENT = ("deep_ep/buffers/legacy.py", "deep_ep/include/deep_ep/common/comm.cuh")
# In the wheel only: DeepEP source, then the wheel's packaging files and its compiled extension.
WHEEL_ONLY_SOURCE = ("deep_ep/include/deep_ep/common/syscall.cuh",)
WHEEL_ONLY_PACKAGING = ("deep_ep/_build_info.py", "deep_ep/prerequisites.py", "deep_ep/envs.py")


def commit_hashes() -> dict[str, str]:
    lines = [line.split() for line in MANIFEST.read_text().splitlines() if line and not line.startswith("#")]
    return {path: digest for digest, path in lines}


def wheel_files() -> dict[str, bytes]:
    released_files()  # downloads the wheel when .venv/tools/deepep does not hold it
    [wheel] = sorted(TOOLS.glob("sgl_deep_ep-0.1.2.post1-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        return {name: archive.read(name) for name in archive.namelist() if name.startswith("deep_ep/")}


def test_the_manifest_is_of_the_commit_the_image_builds():
    [commit] = re.findall(r"^ARG DEEPEP_COMMIT=(\S+)$", (REPO / "Dockerfile").read_text(), re.M)
    assert commit in MANIFEST.read_text().splitlines()[0]
    [init_sha] = re.findall(r'echo "([0-9a-f]{64})  deep_ep/__init__.py" \| sha256sum -c', (REPO / "Dockerfile").read_text())
    assert commit_hashes()["deep_ep/__init__.py"] == init_sha


def test_the_wheel_differs_from_the_built_commit_exactly_where_the_documentation_says():
    commit, wheel = commit_hashes(), wheel_files()
    sha = {name: hashlib.sha256(data).hexdigest() for name, data in wheel.items()}
    assert not set(commit) - set(wheel), "in the commit, not the wheel"
    only_wheel = {name for name in set(wheel) - set(commit) if not name.endswith(".so")}
    assert only_wheel == {*WHEEL_ONLY_SOURCE, *WHEEL_ONLY_PACKAGING}
    differ = {name for name in commit if sha[name] != commit[name]}
    assert differ == {"deep_ep/__init__.py", *DIFFERENT}
    init = wheel["deep_ep/__init__.py"].decode()
    assert init.startswith(PROLOGUE)
    assert hashlib.sha256(init[len(PROLOGUE):].encode()).hexdigest() == commit["deep_ep/__init__.py"]
    # v2's Python, the part this repo and SGLang's deepep_v2 backend call, is the same file.
    assert sha["deep_ep/buffers/elastic.py"] == commit["deep_ep/buffers/elastic.py"]


def test_the_dockerfile_and_the_readme_name_every_difference():
    dockerfile, readme = (REPO / "Dockerfile").read_text(), (REPO / "README.md").read_text()
    for path in (*DIFFERENT, *WHEEL_ONLY_SOURCE):
        assert path in dockerfile and path in readme, path
    assert "byte-identical to sgl-deep-ep" not in dockerfile and "byte for byte" not in readme
