"""NCCL and libfabric settings for GPU pods talking over EFA (p5/p5e/p5en).

Current AWS guidance (aws-ofi-nccl >= 1.9 with libfabric >= 1.22, as in the EFA installer
and the AWS Deep Learning Containers) needs very little: the plugin picks the EFA provider,
GPUDirect RDMA and the NCCL protocol per platform itself. Legacy settings still copied
around are left out on purpose: FI_EFA_USE_DEVICE_RDMA (now detected), NCCL_PROTO=simple and
NCCL_ALGO (the plugin tunes them per instance type; forcing them costs bandwidth on p5en),
FI_EFA_FORK_SAFE (the plugin sets it when the kernel needs it), NCCL_TREE_THRESHOLD.
NCCL_NET is not written here: the plugin's network name changed across releases ("AWS
Libfabric", then "OFI"). RL_REQUIRE_EFA=1 makes the payload check the pod's EFA devices,
driver and GDRCopy and pin NCCL_NET to the name the image's own plugin registers
(payload/common/efa.py), so no communicator can fall back to sockets.

No NVSHMEM_* variables: DeepEP v2 (ElasticBuffer) moves tokens through NCCL's GPU-initiated
networking (GIN), not NVSHMEM. GIN's variables are GIN_ENV below, the one place they live.
"""

from __future__ import annotations

from cdk8s_plus_33 import k8s

from k8s.pods import env
from payload.common.efa import DEEPEP_EFA_ENV, SGLANG_DEEPEP_V2_NUM_SMS

# (name, value, why): rendered as container env vars; tests assert the socket exclusion.
EFA_ENV: tuple[tuple[str, str, str], ...] = (
    ("FI_PROVIDER", "efa", "pin libfabric to EFA: a node without working EFA fails at start instead of using TCP"),
    (
        "NCCL_SOCKET_IFNAME",
        "^lo,docker,veth,pod-id-link",
        "bootstrap/out-of-band TCP only on the pod's VPC interface: never loopback, docker or veth "
        "bridges, nor the Pod Identity agent's link-local interface (pod-id-link0)",
    ),
    ("NCCL_DEBUG", "WARN", "warnings and errors only; the transport is enforced by NCCL_NET (payload.common.efa)"),
    ("RL_REQUIRE_EFA", "1", "the payload's start-up EFA check: devices, driver, gdrdrv, NCCL_NET pinned to aws-ofi-nccl"),
)


# NCCL GIN over EFA, per aws-ofi-nccl v1.21.1's doc/gin-getting-started.md: proxy mode (a CPU
# thread posts the GPU's queued operations). NCCL 2.31 defaults to it on EFA; pinned here so a
# node with GDRCopy does not switch to the EFA-GDA kernel backend (NCCL_GIN_TYPE=5), whose
# v1.21 limits DeepEP would hit: 512 signals+counters per EFA device, and no strong or VA
# signals, which DeepEP's device-communicator requirements do not turn off. 2 is
# NCCL_GIN_TYPE_PROXY (nccl_device/core.h).
GIN_ENV: tuple[tuple[str, str, str], ...] = (
    ("NCCL_GIN_TYPE", "2", "DeepEP v2's GIN over EFA in proxy mode (aws-ofi-nccl 1.21.1), not EFA-GDA"),
)


def efa_env(deepep: bool = False) -> list[k8s.EnvVar]:
    """EFA_ENV and GIN_ENV; with `deepep` (the pod's DeepEP groups cross nodes:
    spec.layout.deepep_needs_gin), also the check of what DeepEP v2's GIN needs from the host
    (EFA driver >= 3.3.0, GDRCopy's gdrdrv)."""
    extra = [env(DEEPEP_EFA_ENV, "1")] if deepep else []
    return [*(env(name, value) for name, value, _ in (*EFA_ENV, *GIN_ENV)), *extra]


# SGLang 0.5.23 imports deep_ep with its MoE layers (sglang/srt/layers/moe/token_dispatcher),
# and ModelRunner sets up torch.distributed and its NCCL groups (init_torch_distributed) before
# it loads the model, so NCCL may already have mapped aws-ofi-nccl's libnccl-net-ofi.so. DeepEP's
# check_nccl_so counts every mapped path containing "libnccl" as an NCCL runtime and refuses a
# second; SGLang then runs without DeepEP (use_deepep_v2 = False) and fails at first dispatch. The check exists to catch a DeepEP
# built against another NCCL, which the image rules out (tests/image/test_pins.py), so SGLang's
# DeepEP pods skip it with DeepEP's own switch. The trainer keeps the check: it imports DeepEP
# before any communicator (payload.ep.preflight).
SGLANG_DEEPEP_ENV: tuple[tuple[str, str, str], ...] = (
    ("EP_SUPPRESS_NCCL_CHECK", "1", "DeepEP's import-time NCCL check misreads NCCL's own net plugin in SGLang's processes"),
    ("SGLANG_DEEPEP_V2_NUM_SMS", str(SGLANG_DEEPEP_V2_NUM_SMS),
     "DeepEP's dispatch SMs set, not estimated: its estimate needs the RDMA rate, which it reads with ibstat, "
     "and gets 0 on EFA (a ZeroDivisionError at the first dispatch; payload/ep/deepep_efa.py)"),
)


def sglang_deepep_env() -> list[k8s.EnvVar]:
    """What an SGLang server with a DeepEP all-to-all backend adds to efa_env(deepep=True)."""
    return [env(name, value) for name, value, _ in SGLANG_DEEPEP_ENV]

