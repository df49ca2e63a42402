"""The NCCL + GDRCopy + aws-ofi-nccl + DeepEP stack is one coherent set, read from the Dockerfile
and the node groups (no second copy of a version here beyond the minimums the releases state).

Minimums, from the releases' own files:
- aws-ofi-nccl 1.21.1 (EFA installer 1.50.0), RELEASENOTES.md and doc/gin-getting-started.md at
  tag v1.21.1: GIN requires NCCL 2.31.2-1 or later and GDRCopy 2.5 or later.
- DeepEP at dd758ca, csrc/kernels/backend/nccl.cu: built against NCCL < 2.31 it requires the
  runtime to be exactly its build NCCL; from 2.31 it sizes the device communicator at runtime.
  Its deep_ep/__init__.py check_nccl_so requires the loaded libnccl to be find_nccl_root()'s,
  i.e. the pip nvidia-nccl-cu13 the image installs and builds DeepEP against.
- aws-ofi-nccl v1.21.1, m4/check_pkg_gdrcopy.m4 and src/nccl_ofi_gdrcopy.cpp: GDRCopy support
  (HAVE_GDRCOPY) is compiled in only when gdrapi.h is found at configure time.
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
    final = DOCKERFILE[DOCKERFILE.rindex("\nFROM efa\n"):]
    assert "COPY --from=deepep-build /wheels" in final and "pip uninstall -y sgl-deep-ep" in final
    assert "nvidia-nccl" not in final  # nothing after the build changes the NCCL it was built against


def test_the_acceptance_jobs_run_deepeps_own_test_of_the_built_commit_from_the_image():
    # The build stage copies tests/ of the archive it builds DeepEP from; the final image holds
    # it where `accept-deepep` looks; nothing in the charts downloads it.
    from payload.accept.cli import DEEPEP_TEST_EP, DEEPEP_TESTS

    build = stage("deepep-build")
    assert "github.com/deepseek-ai/DeepEP/archive/${DEEPEP_COMMIT}.tar.gz" in build
    assert "cp -r tests /deepep/tests" in build and "tests/elastic/test_ep.py\" | sha256sum -c" in build
    assert DEEPEP_TESTS == "/opt/deepep/tests" and DEEPEP_TEST_EP == DEEPEP_TESTS + "/elastic/test_ep.py"
    assert "COPY --from=deepep-build /deepep /opt/deepep" in DOCKERFILE[DOCKERFILE.rindex("\nFROM efa\n"):]
    acceptance = (REPO / "k8s" / "charts" / "acceptance.py").read_text()
    assert "github" not in acceptance and "curl" not in acceptance


def test_gdrcopy_user_space_and_node_module_are_one_version_at_least_the_minimum():
    assert arg("GDRCOPY_VERSION") == GDRCOPY_VERSION
    assert version(GDRCOPY_VERSION)[:2] >= PLUGIN_GIN_MIN_GDRCOPY
    # The nodes build gdrdrv from this version's release source, staged in the bucket.
    script = gdrdrv_script("bucket", "us-east-1")
    assert f"version={GDRCOPY_VERSION}\n" in script and gdrcopy_source_key(GDRCOPY_VERSION) in script
    # aws-ofi-nccl dlopens the unversioned name (src/nccl_ofi_gdrcopy.cpp: dlopen("libgdrapi.so")),
    # and its build needs the header (m4/check_pkg_gdrcopy.m4: AC_CHECK_HEADERS([gdrapi.h])).
    assert "test -e /usr/local/lib/libgdrapi.so" in stage("efa")
    assert "test -e /usr/local/include/gdrapi.h" in stage("efa")


def test_the_plugin_is_built_with_gdrcopy_and_the_installed_library_proves_it():
    # The plugin the image runs is the installer's version rebuilt from its tag with GDRCopy's
    # header: configure must have defined HAVE_GDRCOPY 1 (it silently defines 0 without the
    # header), and the installed library must be that build (image/check-ofi-nccl-gdrcopy.sh,
    # tested against libraries in tests/image/test_ofi_gdrcopy_check.py).
    assert version(arg("AWS_OFI_NCCL_VERSION")) == EFA_INSTALLER_AWS_OFI_NCCL[arg("EFA_INSTALLER_VERSION")]
    assert re.fullmatch(r"[0-9a-f]{40}", arg("AWS_OFI_NCCL_COMMIT"))  # tag v1.21.1
    assert re.search(r"^FROM efa AS ofi-nccl-build$", DOCKERFILE, re.M)
    build = stage("ofi-nccl-build")
    assert "github.com/aws/aws-ofi-nccl/archive/${AWS_OFI_NCCL_COMMIT}.tar.gz" in build
    assert "--with-gdrcopy=/usr/local" in build and "--with-libfabric=/opt/amazon/efa" in build
    assert "grep -qx '#define HAVE_GDRCOPY 1' include/config.h" in build
    assert "grep -qx '#define HAVE_DECL_GDR_PIN_BUFFER_V2 1' include/config.h" in build
    assert build.index("HAVE_GDRCOPY 1") < build.index("make install")
    final = DOCKERFILE[DOCKERFILE.rindex("\nFROM efa\n"):]
    copy = final.index("COPY --from=ofi-nccl-build /ofi-nccl/opt/amazon/ofi-nccl/ /opt/amazon/ofi-nccl/")
    check = final.index("RUN bash /usr/local/bin/check-ofi-nccl-gdrcopy /opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so")
    assert copy < check and final.index("LD_LIBRARY_PATH=/opt/amazon/ofi-nccl/lib:/opt/amazon/efa/lib") < check
    assert "COPY image/check-ofi-nccl-gdrcopy.sh /usr/local/bin/check-ofi-nccl-gdrcopy" in final


# torch 2.14.1's wheel METADATA: Requires-Dist nvidia-nvshmem-cu13==3.4.5 (read with
# `pip install --dry-run --report` from its PyPI metadata). DeepEP at DEEPEP_COMMIT links NVSHMEM
# (setup.py: find_nvshmem_root(), -l:libnvshmem_host.so.N and libnvshmem_device.a, for its legacy
# v1 Buffer; v2's ElasticBuffer rides NCCL GIN) and docs/nvshmem.md asks for 3.3.9 or later.
TORCH_NVSHMEM = "3.4.5"
DEEPEP_MIN_NVSHMEM = (3, 3, 9)


def test_nvshmem_is_pinned_at_torchs_version_before_deepep_links_it():
    assert arg("NVSHMEM_VERSION") == TORCH_NVSHMEM
    assert version(arg("NVSHMEM_VERSION")) >= DEEPEP_MIN_NVSHMEM
    assert '"nvidia-nvshmem-cu13==${NVSHMEM_VERSION}"' in stage("base")
    assert "nvshmem" not in stage("deepep-build") and "nvshmem" not in DOCKERFILE[DOCKERFILE.rindex("\nFROM efa\n"):]
