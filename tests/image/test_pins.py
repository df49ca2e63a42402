"""The NCCL + GDRCopy + aws-ofi-nccl + DeepEP stack is one coherent set, read from the Dockerfile
and the node groups (no second copy of a version here beyond the minimums the releases state).

Minimums, from the releases' own files:
- aws-ofi-nccl 1.21.1 (EFA installer 1.50.0), RELEASENOTES.md and doc/gin-getting-started.md at
  tag v1.21.1: GIN requires NCCL 2.31.2-1 or later and GDRCopy 2.5 or later.
- DeepEP at dd758ca, csrc/kernels/backend/nccl.cu: built against NCCL < 2.31 it requires the
  runtime to be exactly its build NCCL; from 2.31 it sizes the device communicator at runtime.
  Its deep_ep/__init__.py check_nccl_so requires the loaded libnccl to be find_nccl_root()'s,
  i.e. the pip nvidia-nccl-cu13 the image installs and builds DeepEP against.
"""

from __future__ import annotations

import re
from pathlib import Path

from infra.gpu_node_group import GDRCOPY_VERSION, gdrcopy_source_key, gdrdrv_script

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = (REPO / "Dockerfile").read_text()
PLUGIN_GIN_MIN_NCCL = (2, 31, 2)  # aws-ofi-nccl v1.21.1 RELEASENOTES.md, "Requirements for GIN"
PLUGIN_GIN_MIN_GDRCOPY = (2, 5)
EFA_INSTALLER_AWS_OFI_NCCL = {"1.50.0": (1, 21, 1)}  # the installer's bundled plugin (its release notes)


def version(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split("."))


def arg(name: str) -> str:
    [value] = re.findall(rf"^ARG {name}=(\S+)$", DOCKERFILE, re.M)
    return value


def stage(name: str) -> str:
    """The Dockerfile text of the stage named `name`."""
    start = re.search(rf"^FROM \S+ AS {name}$", DOCKERFILE, re.M).end()
    end = re.search(r"^FROM ", DOCKERFILE[start:], re.M)
    return DOCKERFILE[start : start + end.start()] if end else DOCKERFILE[start:]


def test_the_shipped_plugin_has_gin():
    assert EFA_INSTALLER_AWS_OFI_NCCL[arg("EFA_INSTALLER_VERSION")] >= (1, 21, 0)


def test_nccl_is_at_least_the_plugins_gin_minimum():
    assert version(arg("NCCL_VERSION")) >= PLUGIN_GIN_MIN_NCCL
    assert 'pip install --no-cache-dir --no-deps "nvidia-nccl-cu13==${NCCL_VERSION}"' in stage("base")


def test_deepep_is_built_against_exactly_the_image_nccl():
    # The build stage starts from `base`, after its NCCL install, and builds without isolation
    # (a build-isolation venv would bring its own NCCL); the final image is the same base.
    assert re.search(r"^FROM base AS deepep-build$", DOCKERFILE, re.M)
    build = stage("deepep-build")
    assert "--no-build-isolation" in build and "nvidia-nccl" not in build
    assert re.fullmatch(r"[0-9a-f]{40}", arg("DEEPEP_COMMIT"))
    final = DOCKERFILE[DOCKERFILE.rindex("\nFROM base\n"):]
    assert "COPY --from=deepep-build /wheels" in final and "pip uninstall -y sgl-deep-ep" in final
    assert "nvidia-nccl" not in final  # nothing after the build changes the NCCL it was built against


def test_the_acceptance_jobs_run_deepeps_own_test_of_the_built_commit():
    from k8s.charts.acceptance import DEEPEP_COMMIT, DEEPEP_TEST_URL

    assert DEEPEP_COMMIT == arg("DEEPEP_COMMIT")
    assert DEEPEP_TEST_URL.startswith("https://raw.githubusercontent.com/deepseek-ai/DeepEP/" + DEEPEP_COMMIT + "/")
    assert f"github.com/deepseek-ai/DeepEP/archive/${{DEEPEP_COMMIT}}.tar.gz" in stage("deepep-build")


def test_gdrcopy_user_space_and_node_module_are_one_version_at_least_the_minimum():
    assert arg("GDRCOPY_VERSION") == GDRCOPY_VERSION
    assert version(GDRCOPY_VERSION)[:2] >= PLUGIN_GIN_MIN_GDRCOPY
    # The nodes build gdrdrv from this version's release source, staged in the bucket.
    script = gdrdrv_script("bucket", "us-east-1")
    assert f"version={GDRCOPY_VERSION}\n" in script and gdrcopy_source_key(GDRCOPY_VERSION) in script
    # aws-ofi-nccl dlopens the unversioned name (src/nccl_ofi_gdrcopy.cpp: dlopen("libgdrapi.so")).
    assert "test -e /usr/local/lib/libgdrapi.so" in DOCKERFILE
