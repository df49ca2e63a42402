"""Start-up check for pods whose NCCL traffic must ride EFA (the trainer, the rollout servers).

NCCL silently falls back to TCP sockets when its network plugin does not load, and a job on
sockets looks like a working job, an order of magnitude slower. So before any communicator
exists (the trainer's process groups, SGLang's TP groups and the weight-update group), a pod
that the chart marks with RL_REQUIRE_EFA=1:

1. finds the EFA devices the device plugin gave it (/sys/class/infiniband/*) and the host's
   efa kernel module; where DeepEP's expert groups cross nodes (RL_REQUIRE_DEEPEP_EFA=1,
   spec.layout.deepep_needs_gin), that driver at the version DeepEP v2's GIN path needs
   (3.3.0, EFA installer 1.50.0) and GDRCopy's gdrdrv: aws-ofi-nccl 1.21.1 provides GIN only
   with GDRCopy >= 2.5. Inside a node DeepEP runs with GIN off and needs neither;
2. loads aws-ofi-nccl's plugin library in a child process and reads the network name it
   registers with NCCL (the first field, `const char* name`, of its exported `ncclNetPlugin_vN`
   struct). A child, because a library whose path contains "libnccl" mapped into this process
   makes `import deep_ep` fail: DeepEP's check_nccl_so asserts that every mapped libnccl* file
   is the one NCCL runtime it was built against ("Duplicate NCCL runtime found");
3. sets NCCL_NET to that name. NCCL's documented meaning of NCCL_NET: use exactly this
   network and never fall back to the internal IB or Socket ones, so every communicator the
   process (and SGLang, its child) creates either rides EFA or fails at init.

Any failure is one line naming the pod and what is missing, and a non-zero exit; success is
one line saying what was verified, DeepEP's GIN prerequisites included or not.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

REQUIRE_ENV = "RL_REQUIRE_EFA"
# Set where DeepEP's expert groups cross nodes (the trainer with ep_backend deepep over more than
# a node's GPUs, SGLang's deepep_v2 replicas): its v2 buffers then use NCCL GIN through
# aws-ofi-nccl, which needs the host's EFA driver >= 3.3.0 and GDRCopy's gdrdrv; other pods do not.
DEEPEP_EFA_ENV = "RL_REQUIRE_DEEPEP_EFA"
# SMs an SGLang deepep_v2 replica's DeepEP dispatch uses (SGLANG_DEEPEP_V2_NUM_SMS). SGLang
# 0.5.23 passes 0 by default, DeepEP's own estimate, which needs the RDMA rate it cannot read on
# EFA (ZeroDivisionError); with the EFA rate supplied, that estimate for a buffer built with
# prefer_overlap_with_compute=False (SGLang's) is 64 for every MoE shape served here
# (payload/ep/deepep_efa.py, tests/payload/ep/test_deepep_efa.py runs DeepEP's own function).
SGLANG_DEEPEP_V2_NUM_SMS = 64
# aws-ofi-nccl's library names: NCCL >= 2.20 loads libnccl-net-<NCCL_NET_PLUGIN>.so, older ones libnccl-net.so.
PLUGIN_LIBRARIES = ("libnccl-net-ofi.so", "libnccl-net-aws-ofi.so", "libnccl-net.so")
# Newest first: the plugin exports one struct per NCCL net API version it supports.
PLUGIN_SYMBOLS = tuple(f"ncclNetPlugin_v{v}" for v in range(11, 1, -1))


class EfaError(RuntimeError):
    """The pod cannot put NCCL on EFA."""


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


@dataclass
class EfaCheck:
    @dataclass
    class Config:
        sys_root: Path = Path("/")
        # Where the image installs aws-ofi-nccl (Dockerfile), then LD_LIBRARY_PATH.
        plugin_dirs: tuple[str, ...] = ("/opt/amazon/ofi-nccl/lib",)
        # DeepEP v2 (NCCL GIN through aws-ofi-nccl 1.21 / libfabric 2.6) needs efa.ko 3.3.0
        # (what EFA installer 1.50.0 ships) and GDRCopy.
        deepep: bool = field(default_factory=lambda: os.environ.get(DEEPEP_EFA_ENV) == "1")
        min_driver_version: str = "3.3.0"

        def build(self) -> "EfaCheck":
            return EfaCheck(self)

    config: Config
    pod: str = field(default_factory=lambda: os.environ.get("HOSTNAME", "this pod"))

    def _fail(self, what: str) -> EfaError:
        return EfaError(f"{self.pod}: {what}: its NCCL traffic cannot ride EFA")

    def devices(self) -> list[str]:
        root = self.config.sys_root / "sys" / "class" / "infiniband"
        found = sorted(p.name for p in root.glob("*")) if root.is_dir() else []
        if not found:
            raise self._fail("no EFA device in /sys/class/infiniband (request vpc.amazonaws.com/efa)")
        return found

    def driver_version(self) -> str:
        path = self.config.sys_root / "sys" / "module" / "efa" / "version"
        if not path.exists():
            raise self._fail("the host's efa kernel module is not loaded")
        version = path.read_text().strip()
        if self.config.deepep and _version(version) < _version(self.config.min_driver_version):
            raise self._fail(f"EFA driver {version} is older than {self.config.min_driver_version} (DeepEP v2 over NCCL GIN)")
        return version

    def gdrcopy(self) -> None:
        if self.config.deepep and not (self.config.sys_root / "dev" / "gdrdrv").exists():
            raise self._fail("/dev/gdrdrv is missing (GDRCopy's gdrdrv module on the host)")

    def plugin(self) -> tuple[Path, str]:
        """(library, network name) of the aws-ofi-nccl plugin this process would load."""
        dirs = [*self.config.plugin_dirs, *filter(None, os.environ.get("LD_LIBRARY_PATH", "").split(":"))]
        for directory in dirs:
            for name in PLUGIN_LIBRARIES:
                path = Path(directory) / name
                if path.exists():
                    return path, network_name(path)
        raise self._fail(f"no aws-ofi-nccl plugin ({'/'.join(PLUGIN_LIBRARIES)}) in {':'.join(dirs)}")

    def enforce(self) -> str:
        """Run every check and pin NCCL_NET to the plugin's network; returns its name."""
        devices = self.devices()
        driver = self.driver_version()
        self.gdrcopy()
        _, network = self.plugin()
        os.environ["NCCL_NET"] = network
        gin = (f"DeepEP across nodes: GIN prerequisites verified (efa driver >= {self.config.min_driver_version}, "
               "/dev/gdrdrv)" if self.config.deepep else f"GIN prerequisites not required ({DEEPEP_EFA_ENV} unset: "
               "no DeepEP group crosses nodes here)")
        print(f"EFA check: {len(devices)} EFA devices, efa driver {driver}, NCCL_NET={network}; {gin}", file=sys.stderr)
        return network


# Run by network_name in a child interpreter: argv[1] is the library, argv[2:] the symbols to try.
_READ_NAME = """
import ctypes, sys
try:
    lib = ctypes.CDLL(sys.argv[1])
except OSError as exc:
    sys.exit(f"does not load: {exc}")
for symbol in sys.argv[2:]:
    try:
        name = ctypes.c_char_p.in_dll(lib, symbol).value
    except ValueError:
        continue
    if name:
        print(name.decode())
        sys.exit(0)
sys.exit("exports no ncclNetPlugin_vN: not an NCCL net plugin")
"""


def network_name(library: Path) -> str:
    """The network name an NCCL net plugin registers (its ncclNetPlugin_vN.name), read in a
    child process so that this one never maps the plugin (see the module docstring)."""
    result = subprocess.run([sys.executable, "-c", _READ_NAME, str(library), *PLUGIN_SYMBOLS],
                            capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        reason = result.stderr.strip().splitlines()[-1] if result.stderr.strip() else f"exit {result.returncode}"
        raise EfaError(f"{library} {reason}")
    return result.stdout.strip()


def enforce_if_required() -> str | None:
    """EfaCheck.enforce() in pods the chart marked with RL_REQUIRE_EFA=1; None elsewhere."""
    if os.environ.get(REQUIRE_ENV) != "1":
        return None
    return EfaCheck.Config().build().enforce()
