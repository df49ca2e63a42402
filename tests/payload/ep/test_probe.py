"""DeepEP's native set-up is tried in a child (payload.ep.probe): whatever ends the child, a
signal from native code included, becomes one line the preflight falls back on or refuses with,
instead of a trainer killed with exit 139 and no word."""

import sys
from pathlib import Path

import pytest

from payload.ep.probe import probe_command, reason_from_child

REPO = Path(__file__).resolve().parents[3]


def test_a_segfault_in_native_code_is_one_line_naming_the_signal():
    # A real invalid read in C (libc's memcpy through ctypes), as DeepEP's ncclTeamWorld(NULL) was.
    crash = [sys.executable, "-X", "faulthandler", "-c", "import ctypes; ctypes.string_at(0)"]
    reason = reason_from_child(crash, "DeepEP's buffer set-up on cuda:0")
    assert reason == ("DeepEP's buffer set-up on cuda:0 crashed with SIGSEGV in native code "
                      "(Fatal Python error: Segmentation fault)")


def test_a_hung_child_is_cut_off_and_named():
    reason = reason_from_child([sys.executable, "-c", "import time; time.sleep(60)"], "the probe", timeout_s=1)
    assert reason == "the probe did not finish in 1 s (a hung native call)"


def test_the_probe_the_preflight_runs_says_why_it_cannot_run_here():
    # The exact command the trainer's preflight runs, on this machine (no CUDA, or no DeepEP).
    reason = reason_from_child(probe_command(0), "DeepEP's buffer set-up on cuda:0")
    assert reason is not None and reason.startswith("DeepEP's buffer set-up on cuda:0 failed: ")
    assert "needs a CUDA GPU" in reason or "import deep_ep` failed" in reason
    assert reason_from_child([sys.executable, "-c", "pass"], "anything") is None


PREFLIGHT = """
import logging
logging.basicConfig(level=logging.WARNING, format="%(message)s")
from payload import ep
print("auto ->", ep.preflight(ep.Config(backend="auto"), 8))
try:
    ep.preflight(ep.Config(backend="deepep"), 8)
except ep.EPConfigError as exc:
    print("deepep refused:", exc)
"""


@pytest.mark.gpu
def test_on_a_gpu_the_preflight_probes_deepep_in_a_child_and_acts_on_its_reason():
    """Where DeepEP is not installed (the single-GPU test machine) the probe's reason is the
    import's; a native crash would read 'crashed with SIGSEGV' in the same places."""
    import subprocess

    result = subprocess.run([sys.executable, "-c", PREFLIGHT], cwd=REPO, capture_output=True, text=True, timeout=900)
    print(result.stdout, result.stderr)
    assert result.returncode == 0, result.stderr
    out = result.stdout.splitlines()
    if out[0] == "auto -> deepep":  # a machine with DeepEP installed and working
        return
    assert out[0] == "auto -> all_to_all" and "(payload.ep.probe)" in result.stderr
    assert out[1].startswith("deepep refused: ep backend 'deepep': the deepep backend cannot run: DeepEP's buffer set-up on cuda:0")


def _calls(function) -> list[tuple[int, str, list[str]]]:
    """(line, called name, keyword names) of every call in `function`'s source, in order."""
    import ast
    import inspect
    import textwrap

    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            found.append((node.lineno, name, [k.arg for k in node.keywords]))
    return sorted(found)


def test_the_group_is_bound_to_its_device_before_deepep_gets_it():
    """The order the GPU tests measure, held where no GPU is: the trainer's NCCL default group is
    created with device_id (so every group has a communicator at creation), and DeepEP's buffer
    is built only after bind_communicator has made sure of the group's."""
    from payload.ep import deepep
    from payload.train import parallel

    nccl = [keywords for _, name, keywords in _calls(parallel.init_world) if name == "init_process_group"]
    assert any("device_id" in keywords for keywords in nccl), nccl
    order = [name for _, name, _ in _calls(deepep._buffer) if name in ("bind_communicator", "ElasticBuffer")]
    assert order == ["bind_communicator", "ElasticBuffer"], order
