"""Cross-node DeepEP on EFA, run through DeepEP's own Python: deep_ep/buffers/elastic.py and
deep_ep/utils/*.py from the sgl-deep-ep 0.1.2.post1 wheel (byte-identical to deepseek-ai/DeepEP
dd758ca's, which the image builds; tests/payload/ep/test_deepep_import.py fetches the wheel).

The node is EFA-like: a /sys/class/infiniband tree with rdmap* devices only (no mlx5_0), no
`ibstat` on PATH, and `nvidia-smi nvlink -s` answering as an H200 does. Only DeepEP's CUDA
extension (deep_ep._C) and the GPU's SM count are stand-ins. The buffer is an ElasticBuffer
whose C++ runtime was never built, with the layout fields the runtime would report for two
8-GPU nodes in hybrid mode. Everything runs in a child process: the rest of the suite holds that
deep_ep is never imported by the backends that do not use it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from payload.ep import deepep_efa
from payload.ep.deepep_efa import DeepEPEfaError
from payload.common.efa import SGLANG_DEEPEP_V2_NUM_SMS
from tests.payload.ep.test_deepep_import import REPO, TOOLS, released_files

DEEPEP_FILES = ("deep_ep/buffers/elastic.py", "deep_ep/utils/__init__.py", "deep_ep/utils/comm.py",
                "deep_ep/utils/envs.py", "deep_ep/utils/event.py", "deep_ep/utils/math.py",
                "deep_ep/utils/semantic.py")
# What `nvidia-smi nvlink -s` prints for one H200 (18 NVLink 4 links).
NVIDIA_SMI = "#!/bin/sh\necho 'GPU 0: NVIDIA H200 (UUID: GPU-0)'\n" + "".join(
    f"echo '\t Link {i}: 26.562 GB/s'\n" for i in range(18))


def efa_sysfs(root: Path, devices: int, rate: str) -> Path:
    for i in range(devices):
        port = root / "sys" / "class" / "infiniband" / f"rdmap{79 + i}s0" / "ports" / "1"
        port.mkdir(parents=True)
        (port / "rate").write_text(rate + "\n")
    return root


@pytest.fixture(scope="module")
def node(tmp_path_factory):
    """(PYTHONPATH root holding DeepEP's released Python, sysfs root of a p5en, bin dir)."""
    released_files()  # downloads the wheel where it is missing
    [wheel] = sorted(TOOLS.glob("sgl_deep_ep-0.1.2.post1-*.whl"))[:1]
    root = tmp_path_factory.mktemp("deepep_efa")
    with zipfile.ZipFile(wheel) as archive:
        for name in DEEPEP_FILES:
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(archive.read(name))
    (root / "deep_ep" / "__init__.py").write_text("")
    (root / "deep_ep" / "buffers" / "__init__.py").write_text("")
    # Stand-in for the CUDA extension: the names these modules import from it at import time.
    (root / "deep_ep" / "_C.py").write_text("class EventHandle:\n    pass\n")
    sysfs = efa_sysfs(tmp_path_factory.mktemp("p5en"), 16, "200 Gb/sec (4X HDR)")
    bin_dir = tmp_path_factory.mktemp("bin")
    (bin_dir / "nvidia-smi").write_text(NVIDIA_SMI)
    (bin_dir / "nvidia-smi").chmod(0o755)
    return root, sysfs, bin_dir


CHILD = r"""
import json, sys, types
import torch
torch.cuda.get_device_properties = lambda *_: types.SimpleNamespace(multi_processor_count=132)  # H200
from deep_ep.buffers.elastic import ElasticBuffer
from payload.ep import deepep_efa

def buffer(nodes, overlap):
    b = object.__new__(ElasticBuffer)  # the layout ElasticBuffer.__init__ reads back from its runtime
    b.num_ranks, b.num_scaleout_ranks, b.num_scaleup_ranks = nodes * 8, nodes, 8
    b.num_rdma_ranks, b.num_nvlink_ranks = nodes, 8
    b.allow_hybrid_mode, b.prefer_overlap_with_compute = True, overlap
    b.num_allocated_qps, b.num_max_tokens_per_rank = deepep_efa.gin_contexts(True, nodes * 8), 4096
    return b

def outcome(call):
    try:
        return ["ok", call()]
    except Exception as exc:
        return [type(exc).__name__, str(exc)]

x, topk_idx = torch.zeros(4, 64, dtype=torch.bfloat16), torch.zeros(4, 8, dtype=torch.int64)
sysfs = sys.argv[1]
trainer = buffer(2, True)
out = {"upstream_dispatch": outcome(lambda: trainer.dispatch(x, topk_idx=topk_idx, num_experts=128))}
sms = deepep_efa.num_sms(trainer, 128, 8, gpus_per_node=8, sys_root=__import__("pathlib").Path(sysfs))
out["num_sms"] = sms
out["fixed_dispatch"] = outcome(lambda: trainer.dispatch(x, topk_idx=topk_idx, num_experts=128, num_sms=sms))
out["cached_handle_dispatch"] = outcome(lambda: trainer.dispatch(
    x, handle=types.SimpleNamespace(topk_idx=topk_idx), num_sms=0))
out["sglang"] = {f"{n}x{e}/{k}": deepep_efa.num_sms(buffer(n, False), e, k, gpus_per_node=8,
                                                     sys_root=__import__("pathlib").Path(sysfs))
                 for n in (2, 4) for e, k in ((128, 8), (256, 8), (160, 8), (64, 6))}
print(json.dumps(out))
"""


def run_child(node) -> tuple[dict, str]:
    root, sysfs, bin_dir = node
    env = {**os.environ, "PATH": str(bin_dir), "PYTHONPATH": os.pathsep.join([str(root), str(REPO)])}
    env.pop("EP_NIC_NAME", None)
    env.pop(deepep_efa.RDMA_GBS_ENV, None)
    result = subprocess.run([sys.executable, "-c", CHILD, str(sysfs)], env=env, cwd=REPO,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    *log, last = result.stdout.strip().splitlines()
    return json.loads(last), "\n".join(log)


@pytest.fixture(scope="module")
def child(node):
    return run_child(node)


def test_deepeps_first_cross_node_dispatch_divides_by_a_zero_link_rate_on_efa(child):
    out, log = child
    # envs.py get_rdma_gbs: `ibstat` is not there, the rate is 0 ...
    assert "Failed to get RDMA connection speed: [Errno 2] No such file or directory: 'ibstat'" in log
    # ... and elastic.py's get_theoretical_num_sms divides by it, called from dispatch(num_sms=0).
    assert out["upstream_dispatch"] == ["ZeroDivisionError", "float division by zero"]


def test_with_the_efa_rate_deepeps_own_estimate_is_used_and_dispatch_gets_past_it(child):
    out, _ = child
    sms = out["num_sms"]
    assert isinstance(sms, int) and 4 <= sms <= 132 and sms % 2 == 0
    # dispatch(num_sms=...) skips the estimate and the QP check, and goes on to the C++ runtime
    # this stand-in never built: the first failure is that missing runtime, no division.
    kind, message = out["fixed_dispatch"]
    assert kind == "AttributeError" and "runtime" in message


def test_a_cached_handle_dispatch_needs_num_sms_too(child):
    # With a handle, dispatch runs the estimate before it reads num_experts from the handle
    # (elastic.py:928 vs :942, get_expected_topk's `num_experts % num_groups` on None): num_sms=0
    # there fails whatever the rate, so the backward pass's dispatch must pass the handle's num_sms.
    out, _ = child
    kind, message = out["cached_handle_dispatch"]
    assert (kind, message) == ("TypeError", "unsupported operand type(s) for %: 'NoneType' and 'int'")


def test_sglang_replicas_across_nodes_get_deepeps_own_choice_from_the_fixed_sm_count(child):
    # SGLang builds its buffer with prefer_overlap_with_compute=False: DeepEP's estimate with the
    # EFA rate is its 64-SM floor for every MoE shape here, 2 and 4 nodes.
    out, _ = child
    assert set(out["sglang"].values()) == {SGLANG_DEEPEP_V2_NUM_SMS}


def test_the_rate_is_one_gpus_share_of_the_nodes_efa_devices(tmp_path):
    p5en = efa_sysfs(tmp_path / "p5en", 16, "200 Gb/sec (4X HDR)")
    assert deepep_efa.rdma_gbs_per_gpu(8, p5en, environ={}) == 50.0  # 3200 Gb/s over 8 GPUs
    # An EFA driver before max_link_speed_gbps reports every device as 4X EDR.
    p5 = efa_sysfs(tmp_path / "p5", 32, "100 Gb/sec (4X EDR)")
    assert deepep_efa.rdma_gbs_per_gpu(8, p5, environ={}) == 50.0
    assert deepep_efa.rdma_gbs_per_gpu(8, p5en, environ={deepep_efa.RDMA_GBS_ENV: "40"}) == 40.0


def test_no_rate_is_one_line_naming_the_override(tmp_path):
    (tmp_path / "sys" / "class" / "infiniband" / "rdmap79s0" / "ports" / "1").mkdir(parents=True)
    for sys_root in (tmp_path, tmp_path / "nothing"):
        with pytest.raises(DeepEPEfaError, match=deepep_efa.RDMA_GBS_ENV):
            deepep_efa.rdma_gbs_per_gpu(8, sys_root, environ={})
    with pytest.raises(DeepEPEfaError, match="not a positive"):
        deepep_efa.rdma_gbs_per_gpu(8, tmp_path, environ={deepep_efa.RDMA_GBS_ENV: "0"})


def test_gin_contexts_fit_aws_ofi_nccl_host_proxy_and_efa_gda_is_refused():
    assert deepep_efa.gin_contexts(True, 16, environ={}) == 129 <= deepep_efa.PROXY_MAX_GIN_CONTEXTS == 256
    assert deepep_efa.gin_contexts(False, 16, environ={}) == 17
    with pytest.raises(DeepEPEfaError, match="NCCL_GIN_TYPE=5 .* 5289 hardware counters against 512"):
        deepep_efa.gin_contexts(True, 16, environ={"NCCL_GIN_TYPE": "5"})
