"""DeepEP v2 across nodes on EFA: the two figures DeepEP (deepseek-ai/DeepEP dd758ca, the image's
build; its Python is byte-identical to sgl-deep-ep 0.1.2.post1's) cannot find for itself there.

1. The RDMA link rate. `ElasticBuffer.dispatch` with `num_sms=0` calls
   `get_theoretical_num_sms` (deep_ep/buffers/elastic.py:928), which, with more than one RDMA
   rank, asks `get_rdma_gbs()` (elastic.py:760-761) for the rate of EP_NIC_NAME (default
   `mlx5_0`, deep_ep/utils/envs.py:21). That parses `ibstat` (envs.py:245-268) and returns 0 on
   any failure: on EFA there is no mlx5_0, `ibstat` sees no EFA device (EFA has no umad
   interface) and the image has no `ibstat` at all. The 0 is then a divisor
   (`rdma_traffic / rdma_gbs`, elastic.py:809): ZeroDivisionError at the first cross-node
   dispatch. DeepEP's own remedy is its API: `get_theoretical_num_sms(..., rdma_gbs=...)` takes
   the rate, and `dispatch(..., num_sms=...)` takes the result (its own tests always pass
   `num_sms`, tests/elastic/test_ep.py:65). Here the rate comes from what EFA's kernel driver
   exposes, /sys/class/infiniband/<dev>/ports/<n>/rate ("200 Gb/sec (4X HDR)"; efa_query_port
   reports the device's max_link_speed_gbps, 100 Gb/sec 4X EDR on drivers before that), summed
   over the node's devices and divided by its GPUs: DeepEP's figure is one GPU's scale-out
   bandwidth (one 400 Gb/s CX7 per GPU where it was written), and a p5en GPU has two 200 Gb/s
   EFA devices (16 for 8 GPUs), both used by aws-ofi-nccl's multi-rail device.
   RL_DEEPEP_RDMA_GBS (GB/s per GPU) overrides the probe.

2. The GIN context (queue pair) count. In hybrid mode (cross-node) DeepEP asks NCCL for 129 GIN
   contexts where the NIC is not a ConnectX-8 (`check_fast_rdma_atomic_support`, envs.py:222-242,
   again `ibstat`; elastic.py:326-335), 17 in direct mode. aws-ofi-nccl v1.21.1 serves GIN two ways:
   - host proxy (NCCL 2.31's default on EFA): every context shares the GIN comm's 13-bit
     immediate-data sequence space (include/rdma/gin/nccl_ofi_gin_types.h GIN_IMM_SEQ_BITS) with
     up to NCCL_NET_MAX_REQUESTS (32) requests in flight each, so at most 8192 / 32 = 256 contexts
     (src/rdma/gin/nccl_ofi_gin_api.cpp, nccl_ofi_gin_createContext_v13; it only logs past that).
     129 fits.
   - EFA-GDA (opt-in, NCCL_GIN_TYPE=5; doc/gin-getting-started.md "Limitations", RELEASENOTES.md
     v1.21.1 "Known Limitations"): indexed signals only (no VA or strong signals), no get or
     flush, and 512 signals + counters per EFA device; each context takes one counter plus two
     per signal (src/rdma/gin/nccl_ofi_gin_gdaki.cpp createContext). dd758ca's kernels use VA
     signals (deep_ep/include/deep_ep/common/handle.cuh:113, ncclGin_VASignalAdd) and ask
     `num_ranks + 4` signals per context (csrc/kernels/backend/nccl.cu:92-97), so 129 contexts
     need thousands of counters per device. dd758ca cannot run on EFA-GDA at all: refused here.
   The count is passed to ElasticBuffer explicitly (`num_allocated_qps`), so the figure checked
   is the figure requested, whatever `ibstat` says.

SGLang's deepep_v2 dispatcher (0.5.23, srt/layers/moe/token_dispatcher/deepep_v2.py) builds its
own ElasticBuffer with prefer_overlap_with_compute=False and passes
`num_sms=SGLANG_DEEPEP_V2_NUM_SMS` (default 0: DeepEP's auto, the failing path). With that flag
DeepEP's estimate is at least 64 SMs (elastic.py:824), and with an EFA rate it is exactly 64 for
the MoE shapes this repo serves (tests/payload/ep/test_deepep_efa.py runs DeepEP's own function):
payload.common.efa.SGLANG_DEEPEP_V2_NUM_SMS (its home is torch-free: the charts render it).

AWS's amazon-contributing/DeepEP fork (what awsome-distributed-training's DeepEP-V2-on-EFA
samples build) probes sysfs instead (deep_ep/utils/envs.py `_get_sysfs_rdma_gbs`, one device's
rate: 25 GB/s on p5en, half a GPU's) and replaces the hybrid kernels with "unordered" ones that
fit EFA-GDA's signal budget (at most 17 contexts, deep_ep/include/deep_ep/common/
gin_resource_alloc.cuh). Switching to it changes the kernels SGLang 0.5.23 was tested with; this
module keeps upstream and supplies the figures.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

# GB/s of scale-out bandwidth per GPU, instead of the sysfs probe.
RDMA_GBS_ENV = "RL_DEEPEP_RDMA_GBS"
SYSFS_INFINIBAND = Path("sys/class/infiniband")
# dd758ca's automatic counts (elastic.py:326-335) for NICs without fast RDMA atomics (EFA).
HYBRID_GIN_CONTEXTS = 129
DIRECT_GIN_CONTEXTS = 17
# aws-ofi-nccl v1.21.1 host-proxy GIN: (GIN_IMM_SEQ_MASK + 1) / NCCL_NET_MAX_REQUESTS.
PROXY_MAX_GIN_CONTEXTS = (1 << 13) // 32
# NCCL_GIN_TYPE value that selects aws-ofi-nccl's EFA-GDA kernel backend.
EFA_GDA_GIN_TYPE = "5"
# aws-ofi-nccl v1.21.1 EFA-GDA: signals + counters per EFA device.
EFA_GDA_COUNTERS_PER_DEVICE = 512

_RATE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*Gb/sec")


class DeepEPEfaError(RuntimeError):
    """DeepEP cannot be given what it needs on this node's fabric."""


def link_rates(sys_root: Path = Path("/")) -> dict[str, float]:
    """Gb/s of each RDMA device under /sys/class/infiniband (its fastest port), devices whose
    rate cannot be read left out."""
    rates = {}
    root = sys_root / SYSFS_INFINIBAND
    for device in sorted(root.iterdir()) if root.is_dir() else ():
        best = 0.0
        for rate_file in (device / "ports").glob("*/rate"):
            try:
                match = _RATE.match(rate_file.read_text())
            except OSError:
                continue
            if match:
                best = max(best, float(match.group(1)))
        if best > 0:
            rates[device.name] = best
    return rates


def rdma_gbs_per_gpu(gpus_per_node: int, sys_root: Path = Path("/"), environ: Mapping[str, str] = os.environ) -> float:
    """One GPU's share of the node's RDMA bandwidth, GB/s: RL_DEEPEP_RDMA_GBS, or the summed link
    rates of /sys/class/infiniband's devices / gpus_per_node / 8."""
    if environ.get(RDMA_GBS_ENV):
        try:
            gbs = float(environ[RDMA_GBS_ENV])
        except ValueError:
            gbs = 0.0
        if not gbs > 0:
            raise DeepEPEfaError(f"{RDMA_GBS_ENV}={environ[RDMA_GBS_ENV]!r} is not a positive GB/s figure")
        return gbs
    if gpus_per_node < 1:
        raise DeepEPEfaError(f"gpus_per_node={gpus_per_node}: no GPU to share the RDMA devices")
    rates = link_rates(sys_root)
    if not rates:
        raise DeepEPEfaError(
            f"no RDMA device with a link rate under {sys_root / SYSFS_INFINIBAND} (EFA devices are rdmap*, "
            f"ports/1/rate), so DeepEP cannot size its cross-node kernels; set {RDMA_GBS_ENV} (GB/s per GPU)"
        )
    return sum(rates.values()) / gpus_per_node / 8


def gin_contexts(allow_hybrid_mode: bool, num_ranks: int, environ: Mapping[str, str] = os.environ) -> int:
    """The GIN context count to pass as ElasticBuffer(num_allocated_qps=...), checked against what
    aws-ofi-nccl v1.21.1 serves for the GIN backend NCCL will pick."""
    contexts = HYBRID_GIN_CONTEXTS if allow_hybrid_mode else DIRECT_GIN_CONTEXTS
    if environ.get("NCCL_GIN_TYPE", "").strip() == EFA_GDA_GIN_TYPE:
        signals = num_ranks + 4  # csrc/kernels/backend/nccl.cu: reqs.ginSignalCount
        raise DeepEPEfaError(
            f"NCCL_GIN_TYPE={EFA_GDA_GIN_TYPE} selects aws-ofi-nccl's EFA-GDA backend, which DeepEP dd758ca cannot use: "
            f"its kernels send VA signals and flush (EFA-GDA has indexed signals and put only), and {contexts} contexts "
            f"x {signals} signals need {contexts * (1 + 2 * signals)} hardware counters against "
            f"{EFA_GDA_COUNTERS_PER_DEVICE} per EFA device; unset NCCL_GIN_TYPE (host-proxy GIN)"
        )
    if contexts > PROXY_MAX_GIN_CONTEXTS:
        raise DeepEPEfaError(
            f"{contexts} GIN contexts exceed aws-ofi-nccl's host-proxy limit of {PROXY_MAX_GIN_CONTEXTS}"
        )
    return contexts


def num_sms(buffer, num_experts: int, top_k: int, gpus_per_node: int | None = None,
            sys_root: Path = Path("/"), environ: Mapping[str, str] = os.environ) -> int:
    """DeepEP's own SM estimate for `buffer` (ElasticBuffer.get_theoretical_num_sms), with the
    RDMA rate supplied where DeepEP would read it from `ibstat`: pass the result to every
    `dispatch` as `num_sms` (combine reuses the handle's)."""
    if buffer.num_rdma_ranks <= 1:  # DeepEP asks for no RDMA rate within a node
        return buffer.get_theoretical_num_sms(num_experts, top_k)
    if gpus_per_node is None:
        import torch

        gpus_per_node = torch.cuda.device_count()
    gbs = rdma_gbs_per_gpu(gpus_per_node, sys_root, environ)
    return buffer.get_theoretical_num_sms(num_experts, top_k, rdma_gbs=gbs)
