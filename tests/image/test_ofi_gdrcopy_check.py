"""image/check-ofi-nccl-gdrcopy.sh, the build-time proof that the image's aws-ofi-nccl was compiled
with GDRCopy, against real shared objects: a loadable library on this machine with, appended, the
string literals that only one branch of aws-ofi-nccl v1.21.1's src/nccl_ofi_gdrcopy.cpp contains
(trailing bytes leave an ELF file loadable, so `ldd` still reads it). The script was also run
against that very file compiled both ways (HAVE_GDRCOPY 0 and 1, with GDRCopy 2.5.2's gdrapi.h):
it refused the first and passed the second."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


REPO = Path(__file__).resolve().parents[2]
CHECK = REPO / "image" / "check-ofi-nccl-gdrcopy.sh"
# HAVE_GDRCOPY 1: the loader's messages (dlopen("libgdrapi.so"), dlsym of the GDRCopy 2.5 API).
WITH_GDRCOPY = b"\0Failed to resolve libgdrapi.so symbol(s)\0gdr_pin_buffer_v2\0libgdrapi.so\0"
# HAVE_GDRCOPY 0: the constructor that throws.
WITHOUT_GDRCOPY = b"\0GDRCopy support not available at compile time\0GDRCopy support not available\0"


def a_shared_object() -> Path:
    """The smallest of numpy's extension modules (numpy is in requirements.txt)."""
    import numpy

    return min(Path(numpy.__file__).parent.rglob("*.so"), key=lambda p: p.stat().st_size)


def plugin(tmp_path: Path, strings: bytes) -> Path:
    path = tmp_path / "libnccl-net-ofi.so"
    shutil.copyfile(a_shared_object(), path)
    with path.open("ab") as f:
        f.write(strings)
    return path


def check(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(CHECK), str(path)], capture_output=True, text=True, timeout=60)


def test_a_gdrcopy_build_passes(tmp_path):
    result = check(plugin(tmp_path, WITH_GDRCOPY))
    assert result.returncode == 0, result.stderr
    assert "built with GDRCopy (HAVE_GDRCOPY 1, gdr_pin_buffer_v2)" in result.stdout


def test_a_build_without_gdrcopy_fails_the_build_with_one_line(tmp_path):
    result = check(plugin(tmp_path, WITHOUT_GDRCOPY))
    assert result.returncode == 1
    assert result.stderr.strip().endswith("built without GDRCopy (HAVE_GDRCOPY 0: gdrapi.h was not found at "
                                          "configure time); NCCL GIN cannot start")
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_library_with_neither_branch_or_old_headers_fails(tmp_path):
    assert "has no GDRCopy loader" in check(plugin(tmp_path, b"")).stderr
    old_headers = plugin(tmp_path, b"\0Failed to resolve libgdrapi.so symbol(s)\0")
    assert "older than 2.5" in check(old_headers).stderr


def test_what_is_not_a_loadable_library_fails(tmp_path):
    assert check(tmp_path / "absent.so").stderr.strip().endswith("no such file")
    text = tmp_path / "plugin.so"
    text.write_bytes(WITH_GDRCOPY)
    result = check(text)
    assert result.returncode == 1 and "not a loadable shared object" in result.stderr
