"""A DeepEP that cannot import never crashes the trainer: `auto` falls back to all_to_all with
one loud line naming the reason, an explicit `deepep` fails at start with it.

The failure is DeepEP's own: check_nccl_so from the released deep_ep/__init__.py (sgl-deep-ep
0.1.2.post1, the wheel SGLang 0.5.23 pins, downloaded with pip into .venv/tools/deepep). After the
wheel's packaging prologue, that file is byte-identical to deep_ep/__init__.py at the commit the
image builds (the sha256 the Dockerfile's build stage checks), so this is the check the image
runs. Only check_nccl_so and find_pkgs.py are taken: the rest of the package imports DeepEP's
CUDA extension, which cannot load here. The libraries it inspects are real shared objects
mapped into a child process: an "NCCL runtime" (libnccl.so.2, found through DeepEP's own
EP_NCCL_ROOT_DIR) and an NCCL net plugin (libnccl-net-ofi.so), as NCCL maps once it loads its
plugin, or as the old EFA start-up check did with ctypes.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from payload import ep
from spec.job import BatchSection
from payload.train.batch import Sample, packed_for_rank
from tests.payload.common.test_efa import PLUGIN_C

REPO = Path(__file__).resolve().parents[3]
RELEASE = "sgl-deep-ep==0.1.2.post1"
TOOLS = REPO / ".venv" / "tools" / "deepep"
# The sgl-deep-ep wheel's prologue (its CUDA-major prerequisites check) before DeepEP's own file.
PROLOGUE = (
    "from ._build_info import EXPECTED_CUDA_MAJOR as _EXPECTED_CUDA_MAJOR\n"
    "from .prerequisites import check_prerequisites as _check_prerequisites\n\n"
    "if _EXPECTED_CUDA_MAJOR is not None:\n"
    "    _check_prerequisites(expected_cuda_major=_EXPECTED_CUDA_MAJOR)\n"
    "del _EXPECTED_CUDA_MAJOR, _check_prerequisites\n\n\n"
)


def released_files() -> dict[str, str]:
    wheels = sorted(TOOLS.glob("sgl_deep_ep-0.1.2.post1-*.whl"))
    if not wheels:
        TOOLS.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                        "--python-version", "3.12", "--platform", "manylinux_2_28_x86_64", "-d", str(TOOLS), RELEASE],
                       check=True, timeout=600)
        wheels = sorted(TOOLS.glob("sgl_deep_ep-0.1.2.post1-*.whl"))
    with zipfile.ZipFile(wheels[0]) as wheel:
        return {name: wheel.read(name).decode() for name in ("deep_ep/__init__.py", "deep_ep/utils/find_pkgs.py")}


@pytest.fixture(scope="module")
def deepep_check(tmp_path_factory):
    """A deep_ep package whose import runs the release's check_nccl_so, verbatim."""
    files = released_files()
    init = files["deep_ep/__init__.py"]
    assert init.startswith(PROLOGUE)
    pinned = init[len(PROLOGUE):]
    [built_sha] = re.findall(r'echo "([0-9a-f]{64})  deep_ep/__init__.py" \| sha256sum -c', (REPO / "Dockerfile").read_text())
    assert hashlib.sha256(pinned.encode()).hexdigest() == built_sha
    [check] = [node for node in ast.parse(pinned).body if isinstance(node, ast.FunctionDef) and node.name == "check_nccl_so"]
    root = tmp_path_factory.mktemp("deepep")
    (root / "deep_ep" / "utils").mkdir(parents=True)
    (root / "deep_ep" / "utils" / "__init__.py").write_text("")
    (root / "deep_ep" / "utils" / "find_pkgs.py").write_text(files["deep_ep/utils/find_pkgs.py"])
    (root / "deep_ep" / "__init__.py").write_text(
        "import filecmp\nimport glob\nimport os\n\nfrom .utils.find_pkgs import find_nccl_root\n\n\n"
        + ast.get_source_segment(pinned, check) + "\n\n\ncheck_nccl_so()\n"
    )
    # Two real shared objects: the NCCL runtime DeepEP was "built" against, and a net plugin.
    nccl_lib = root / "nccl" / "lib"
    nccl_lib.mkdir(parents=True)
    (root / "runtime.c").write_text("int ncclRuntimeMarker = 2;\n")
    (root / "plugin.c").write_text(PLUGIN_C)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(nccl_lib / "libnccl.so.2"), str(root / "runtime.c")], check=True)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(root / "libnccl-net-ofi.so"), str(root / "plugin.c")], check=True)
    return root


CHILD = """
import ctypes, logging, os, sys
logging.basicConfig(level=logging.WARNING, format="%(message)s")
ctypes.CDLL(os.environ["EP_NCCL_ROOT_DIR"] + "/lib/libnccl.so.2")   # what torch maps
if sys.argv[1] == "plugin-mapped":
    ctypes.CDLL(sys.argv[2])                                         # a second libnccl* file
from payload import ep
print("auto ->", ep.preflight(ep.Config(backend="auto"), 8))
try:
    print("deepep ->", ep.preflight(ep.Config(backend="deepep"), 8))
except ep.EPConfigError as exc:
    print("deepep refused:", exc)
"""


def run_child(root: Path, *args: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "EP_NCCL_ROOT_DIR": str(root / "nccl"),
                   "PYTHONPATH": os.pathsep.join([str(root), str(REPO)])}
    return subprocess.run([sys.executable, "-c", CHILD, *args], env=environment, cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def test_duplicate_nccl_runtime_falls_back_loudly_under_auto_and_fails_explicit_deepep(deepep_check):
    result = run_child(deepep_check, "plugin-mapped", str(deepep_check / "libnccl-net-ofi.so"))
    assert result.returncode == 0, result.stderr
    warnings = result.stderr.strip().splitlines()
    assert len(warnings) == 1 and warnings[0].startswith("EP BACKEND FALLBACK: ep backend 'auto' runs all_to_all")
    assert "AssertionError: Duplicate NCCL runtime found in the current system" in warnings[0]
    assert "libnccl-net-ofi.so" in warnings[0]
    lines = result.stdout.splitlines()
    assert lines[0] == "auto -> all_to_all"
    assert lines[1].startswith("deepep refused: ep backend 'deepep': the deepep backend ")
    assert "Duplicate NCCL runtime found" in lines[1] and len(lines) == 2


def test_with_one_nccl_runtime_deepeps_check_passes(deepep_check):
    # The same check with only the runtime mapped: DeepEP's import gets past it, and what stops
    # it here is the missing DeepEP v2 API / GPU, not a duplicate runtime.
    result = run_child(deepep_check, "runtime-only")
    assert result.returncode == 0, result.stderr
    assert "Duplicate" not in result.stdout + result.stderr
    assert "auto -> all_to_all" in result.stdout and "deepep refused" in result.stdout


def test_all_to_all_local_and_a_single_rank_never_import_deepep():
    assert ep.preflight(ep.Config(backend="all_to_all"), 8) == "all_to_all"
    assert ep.preflight(ep.Config(backend="local"), 1) == "local"
    assert ep.preflight(ep.Config(backend="auto"), 1) == "local"  # one rank: nothing to dispatch
    assert "deep_ep" not in sys.modules


@pytest.mark.parametrize("budget, prompt, response, over_budget", [
    (16384, 2048, 8192, True), (4096, 2048, 8192, True), (8192, 512, 1024, False),
])
def test_deepep_capacity_holds_the_largest_packed_micro_batch(budget, prompt, response, over_budget):
    batch = BatchSection(micro_batch_tokens=budget, max_prompt_tokens=prompt, max_response_tokens=response)
    capacity = batch.largest_micro_batch_tokens
    rng = np.random.default_rng(budget + prompt)
    largest = 0
    for _ in range(200):
        n = int(rng.integers(1, 64))
        # Lengths skewed to the caps, where packing is tightest.
        samples = []
        for _ in range(n):
            r = int(min(response, rng.geometric(0.3) * response // 4 + 1))
            samples.append(Sample(prompt_ids=np.zeros(int(rng.integers(1, prompt + 1)), np.int32),
                                  response_ids=np.zeros(r, np.int32), rollout_logprobs=np.zeros(r, np.float32),
                                  reward=0.0))
        largest = max(largest, max(mb.num_tokens for mb in packed_for_rank(samples, budget)))
    assert largest <= capacity
    # Where samples are long against the budget, packing goes past it: DeepEP's old fixed
    # capacity (16,384, the default budget) would have asserted.
    assert (largest > budget) == over_budget


def test_the_job_sizes_deepeps_buffer_from_its_largest_micro_batch():
    from spec.job import JobConfig

    job = JobConfig.model_validate({"batch": {"micro_batch_tokens": 16384, "max_prompt_tokens": 2048,
                                              "max_response_tokens": 16384}})
    config = ep.Config.for_job(job)
    # A sample can be longer than the budget: max(16384, 18432) + 18432.
    assert config.deepep_max_tokens_per_rank == 36864
    assert config.backend == job.parallel.ep_backend
    padded = JobConfig.model_validate({"batch": {"packing": False, "micro_batch_size": 4}})
    assert ep.Config.for_job(padded).deepep_max_tokens_per_rank == 4 * (2048 + 8192)


def test_a_job_that_asks_for_deepep_fails_at_start_with_the_reason(tmp_path):
    # Before the model, the queue or any process group: the trainer's first step after reading the job.
    job = tmp_path / "job.yaml"
    job.write_text("model: {path: /nonexistent}\nparallel: {expert_parallel_size: 8, ep_backend: deepep}\n")
    result = subprocess.run([sys.executable, "-m", "payload", "train", "--job-config", str(job), "--queue-url", "memory",
                             "--metrics-port", "0"], cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)},
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("error: ep backend 'deepep': the deepep backend ") and result.stderr.count("\n") == 1
