"""The EFA start-up check: a real shared library exporting an NCCL net plugin struct (built
here with the C compiler) and a /sys, /dev tree laid out as on a p5en node."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from payload.common.efa import EfaCheck, EfaError, network_name
from tests.payload.rollout.helpers import REPO, env

PLUGIN_C = """
typedef struct { const char* name; void* init; void* devices; } net_t;
const net_t ncclNetPlugin_v9 = { "AWS Libfabric", 0, 0 };
"""


@pytest.fixture
def plugin_dir(tmp_path):
    source = tmp_path / "plugin.c"
    source.write_text(PLUGIN_C)
    directory = tmp_path / "ofi-nccl" / "lib"
    directory.mkdir(parents=True)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(directory / "libnccl-net-ofi.so"), str(source)], check=True)
    return directory


@pytest.fixture
def node(tmp_path):
    root = tmp_path / "node"
    for device in ("rdmap79s0", "rdmap80s0"):
        (root / "sys" / "class" / "infiniband" / device).mkdir(parents=True)
    (root / "sys" / "module" / "efa").mkdir(parents=True)
    (root / "sys" / "module" / "efa" / "version").write_text("3.3.0g\n")
    (root / "dev").mkdir()
    (root / "dev" / "gdrdrv").touch()
    return root


def check(node, plugin_dir, deepep=True):
    return EfaCheck.Config(sys_root=node, plugin_dirs=(str(plugin_dir),), deepep=deepep).build()


def test_reads_the_plugin_network_name_and_pins_nccl_net(node, plugin_dir, monkeypatch):
    monkeypatch.delenv("NCCL_NET", raising=False)
    assert network_name(plugin_dir / "libnccl-net-ofi.so") == "AWS Libfabric"
    assert check(node, plugin_dir).enforce() == "AWS Libfabric"
    assert os.environ["NCCL_NET"] == "AWS Libfabric"


@pytest.mark.parametrize("breakage, message", [
    (lambda node, plugin: [p.rmdir() for p in (node / "sys/class/infiniband").iterdir()], "no EFA device"),
    (lambda node, plugin: (node / "sys/module/efa/version").write_text("2.17.1g\n"), "EFA driver 2.17.1g is older"),
    (lambda node, plugin: (node / "dev/gdrdrv").unlink(), "/dev/gdrdrv is missing"),
    (lambda node, plugin: (plugin / "libnccl-net-ofi.so").unlink(), "no aws-ofi-nccl plugin"),
])
def test_each_missing_prerequisite_is_one_line_naming_the_pod(node, plugin_dir, monkeypatch, breakage, message):
    monkeypatch.setenv("LD_LIBRARY_PATH", "")
    breakage(node, plugin_dir)
    efa = check(node, plugin_dir)
    efa.pod = "trainer-0-0-x1"
    with pytest.raises(EfaError, match=message) as info:
        efa.enforce()
    assert str(info.value).startswith("trainer-0-0-x1: ") and "cannot ride EFA" in str(info.value)


def test_without_deepep_an_older_driver_and_no_gdrcopy_are_fine(node, plugin_dir, monkeypatch):
    monkeypatch.delenv("NCCL_NET", raising=False)
    (node / "sys/module/efa/version").write_text("2.17.1g\n")
    (node / "dev/gdrdrv").unlink()
    assert check(node, plugin_dir, deepep=False).enforce() == "AWS Libfabric"


def test_a_library_that_is_no_nccl_plugin_is_refused(tmp_path):
    source = tmp_path / "other.c"
    source.write_text("int answer = 42;\n")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(tmp_path / "libother.so"), str(source)], check=True)
    with pytest.raises(EfaError, match="exports no ncclNetPlugin_vN"):
        network_name(tmp_path / "libother.so")


def test_trainer_exits_at_once_when_a_pod_requires_efa_without_it():
    # This machine has no EFA: `train` fails before any process group, one line, exit 1.
    result = subprocess.run([sys.executable, "-m", "payload", "train", "--job-config", "/nonexistent.yaml"],
                            env={**env(), "RL_REQUIRE_EFA": "1", "HOSTNAME": "trainer-0-0-abc"}, cwd=REPO,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert result.stderr.startswith("error: trainer-0-0-abc: no EFA device") and result.stderr.count("\n") == 1


MAPS_CHILD = """
import ctypes, sys
from pathlib import Path
from payload.common.efa import EfaCheck
check = EfaCheck.Config(sys_root=Path(sys.argv[1]), plugin_dirs=(sys.argv[2],), deepep=True).build()
print(check.enforce())
print(sum("libnccl" in line for line in open("/proc/self/maps")))
ctypes.CDLL(sys.argv[2] + "/libnccl-net-ofi.so")  # what the check used to do in-process
print(sum("libnccl" in line for line in open("/proc/self/maps")))
"""


def test_the_startup_check_leaves_no_nccl_library_mapped_in_the_calling_process(node, plugin_dir):
    # DeepEP's import asserts that every mapped libnccl* is one file (payload.ep.deepep).
    result = subprocess.run([sys.executable, "-c", MAPS_CHILD, str(node), str(plugin_dir)], env=env(), cwd=REPO,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    network, after_check, after_ctypes = result.stdout.splitlines()
    assert network == "AWS Libfabric" and after_check == "0" and int(after_ctypes) > 0
