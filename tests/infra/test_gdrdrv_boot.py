"""The GPU nodes' gdrdrv boot script, run: the exact text of the synthesized launch template's
user data, against a fake root (GDRDRV_ROOT) with fake commands on PATH that record what they
were asked for, on each supported Kubernetes version's AMI kernel.

Which kernel each AMI runs, and what its headers package is called (awslabs/amazon-eks-ami):
templates/al2023/variables-1.32.json builds from `al2023-ami-minimal-2023.*-kernel-6.1-*`,
variables-1.33.json and variables-1.34.json from `...-kernel-6.12-*`; provisioners/
install-worker.sh and install-nvidia-driver.sh install `kernel-devel` on 6.1 and
`kernel6.12-devel` on 6.12 (`kernel6.18-devel` on 6.18).
"""

from __future__ import annotations

import subprocess
import tarfile
from pathlib import Path

import pytest

from cluster.placement import GDRDRV_READY_LABEL
from infra.gpu_node_group import GDRCOPY_SOURCE_SHA256, GDRCOPY_VERSION, GDRDRV_ROOT_VARIABLE, gdrcopy_source_key
from infra.versions import KUBERNETES_VERSIONS
from estimate.checks import load_environment
from tests.infra.test_gpu_node_groups import BUCKET, launch_template, shell_scripts, user_data

# A release of each AMI's kernel line, as `uname -r` prints it, and the headers package it needs.
AMI_KERNELS = {
    "1.32": ("6.1.147-172.266.amzn2023.x86_64", "kernel-devel"),
    "1.33": ("6.12.40-64.114.amzn2023.x86_64", "kernel6.12-devel"),
    "1.34": ("6.12.40-64.114.amzn2023.x86_64", "kernel6.12-devel"),
}
DRIVER = "580.95.05"
LABEL = ",".join(f"{key}={value}" for key, value in GDRDRV_READY_LABEL.items())

# Each fake appends its name and arguments to $FAKE_LOG; FAKE_FAIL names the ones that fail.
FAKES = {
    "uname": 'echo "$FAKE_KERNEL"',
    "dnf": 'mkdir -p "$GDRDRV_ROOT/lib/modules/$FAKE_KERNEL/build"',
    "gcc": "true",
    "make": 'mkdir -p "$GDRDRV_ROOT/opt/gdrcopy-$FAKE_VERSION/src/gdrdrv" && touch "$GDRDRV_ROOT/opt/gdrcopy-$FAKE_VERSION/src/gdrdrv/gdrdrv.ko"',
    "aws": 'cp "$FAKE_SOURCE" "${@: -1}"',
    # The digest the script checks against, as sha256sum reads it on stdin.
    "sha256sum": 'cat >> "$FAKE_LOG.sha256"',
    # `enable --now gdrdrv.service` runs insmod.sh, whose mknod makes a character device.
    "systemctl": 'if [ "$*" = "enable --now gdrdrv.service" ]; then mkdir -p "$GDRDRV_ROOT/dev" && ln -sf /dev/null "$GDRDRV_ROOT/dev/gdrdrv"; fi',
}


def shipped_script(synth) -> str:
    [script] = [s for s in shell_scripts(user_data(launch_template(synth, "train"))) if "gdrdrv" in s]
    return script


@pytest.fixture(scope="module")
def script(default, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("user-data") / "gdrdrv.sh"
    path.write_text(shipped_script(default))
    return path


def boot(script: Path, tmp_path: Path, kernel: str, *, fail: tuple[str, ...] = (), headers: bool = True,
         nv_p2p: str = "nvidia-open") -> tuple[subprocess.CompletedProcess, list[str], Path]:
    """Runs the script on a fake node: the AMI's driver loaded and its source restored by
    nvidia-kmod-load (nv_p2p: the dkms tree it restored), the kernel headers present or not."""
    root, bin_dir = tmp_path / "root", tmp_path / "bin"
    for path in (root / "sys/module/nvidia", bin_dir):
        path.mkdir(parents=True)
    (root / "sys/module/nvidia/version").write_text(DRIVER + "\n")
    if headers:
        (root / f"lib/modules/{kernel}/build").mkdir(parents=True)
    if nv_p2p:
        (root / f"usr/src/{nv_p2p}-{DRIVER}/nvidia").mkdir(parents=True)
        (root / f"usr/src/{nv_p2p}-{DRIVER}/nvidia/nv-p2p.h").touch()
    source = tmp_path / "gdrcopy.tar"
    with tarfile.open(source, "w") as tar:
        (tmp_path / "insmod.sh").write_text("#!/bin/bash\n")
        tar.add(tmp_path / "insmod.sh", f"gdrcopy-{GDRCOPY_VERSION}/insmod.sh")
    log = tmp_path / "calls"
    for name, body in FAKES.items():
        fake = bin_dir / name
        fake.write_text(
            f'#!/bin/bash\necho "{name} $*" >> "$FAKE_LOG"\n'
            f'case " $FAKE_FAIL " in *" {name} "*) exit 1 ;; esac\n{body}\n'
        )
        fake.chmod(0o755)
    env = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        GDRDRV_ROOT_VARIABLE: str(root),
        "FAKE_KERNEL": kernel,
        "FAKE_VERSION": GDRCOPY_VERSION,
        "FAKE_SOURCE": str(source),
        "FAKE_LOG": str(log),
        "FAKE_FAIL": " ".join(fail),
        "TMPDIR": str(tmp_path),
    }
    result = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True, timeout=60)
    calls = log.read_text().splitlines() if log.exists() else []
    return result, calls, root


def dropin(root: Path) -> Path:
    return root / "etc/eks/nodeadm.d/90-gdrdrv.yaml"


def labelled(root: Path) -> bool:
    import yaml

    path = dropin(root)
    if not path.exists():
        return False
    config = yaml.safe_load(path.read_text())
    assert config["kind"] == "NodeConfig" and config["apiVersion"] == "node.eks.aws/v1alpha1"
    return config["spec"]["kubelet"]["flags"] == [f"--node-labels={LABEL}"]


def test_every_supported_kubernetes_version_has_its_ami_kernel():
    assert set(AMI_KERNELS) == set(KUBERNETES_VERSIONS)


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_builds_for_the_running_kernel_from_the_staged_source_and_labels_the_node(script, tmp_path, version):
    kernel, _ = AMI_KERNELS[version]
    result, calls, root = boot(script, tmp_path, kernel)
    assert result.returncode == 0, result.stderr
    assert not any(c.startswith("dnf ") for c in calls)  # the AMI's own headers: nothing installed
    source = f"s3://{BUCKET}/{gdrcopy_source_key(GDRCOPY_VERSION)}"
    [fetch] = [c for c in calls if c.startswith("aws ")]
    region = load_environment("default").region
    assert fetch.startswith(f"aws s3 cp --only-show-errors --region {region} {source} ")
    assert (tmp_path / "calls.sha256").read_text().split()[0] == GDRCOPY_SOURCE_SHA256
    nvidia = root / f"usr/src/nvidia-open-{DRIVER}/nvidia"
    assert f"make -C {root}/opt/gdrcopy-{GDRCOPY_VERSION} driver KVER={kernel} NVIDIA_SRC_DIR={nvidia}" in calls
    assert calls[0] == "systemctl start nvidia-kmod-load.service"
    assert calls[-2:] == ["systemctl daemon-reload", "systemctl enable --now gdrdrv.service"]
    unit = (root / "etc/systemd/system/gdrdrv.service").read_text()
    assert f"ExecStart=/opt/gdrcopy-{GDRCOPY_VERSION}/insmod.sh" in unit and "Before=kubelet.service" in unit
    assert labelled(root)


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_missing_headers_are_installed_by_the_kernels_own_package_name(script, tmp_path, version):
    kernel, package = AMI_KERNELS[version]
    result, calls, root = boot(script, tmp_path, kernel, headers=False)
    assert result.returncode == 0, result.stderr
    assert f"dnf install -y --disablerepo=* --enablerepo=amazonlinux {package}-{kernel}" in calls
    assert labelled(root)


def test_a_kernel_6_18_ami_asks_for_kernel6_18_devel(script, tmp_path):
    kernel = "6.18.5-10.80.amzn2023.x86_64"
    result, calls, root = boot(script, tmp_path, kernel, headers=False)
    assert f"dnf install -y --disablerepo=* --enablerepo=amazonlinux kernel6.18-devel-{kernel}" in calls
    assert labelled(root)


def test_the_proprietary_modules_source_serves_too(script, tmp_path):
    kernel, _ = AMI_KERNELS["1.33"]
    result, calls, root = boot(script, tmp_path, kernel, nv_p2p="nvidia")
    assert result.returncode == 0, result.stderr
    assert f"NVIDIA_SRC_DIR={root}/usr/src/nvidia-{DRIVER}/nvidia" in " ".join(calls)


@pytest.mark.parametrize(
    "case, message",
    [
        (dict(fail=("make",)), "make -C"),  # the build itself
        (dict(fail=("sha256sum",)), f"is not GDRCopy {GDRCOPY_VERSION}'s release source"),
        (dict(fail=("aws",)), "aws s3 cp"),  # not staged (make node-sources) or not readable
        (dict(headers=False, fail=("dnf",)), "dnf install"),
        (dict(nv_p2p=""), f"no nv-p2p.h of NVIDIA driver {DRIVER}"),
        (dict(fail=("systemctl",)), "nvidia-kmod-load"),
    ],
    ids=["build", "checksum", "download", "headers", "nv-p2p", "driver"],
)
@pytest.mark.parametrize("version", ["1.32", "1.33"])
def test_a_failure_is_loud_and_leaves_the_node_unlabelled(script, tmp_path, version, case, message):
    kernel, _ = AMI_KERNELS[version]
    result, calls, root = boot(script, tmp_path, kernel, **case)
    assert result.returncode != 0
    assert "gdrdrv: FAILED" in result.stderr and message in result.stderr, result.stderr
    assert f"not labelled {LABEL}" in result.stderr
    assert not labelled(root) and not dropin(root).exists()
    if "make" in case.get("fail", ()):
        assert "systemctl enable --now gdrdrv.service" not in calls


def test_a_rerun_that_fails_removes_an_earlier_label(script, tmp_path):
    kernel, _ = AMI_KERNELS["1.34"]
    root = tmp_path / "root"
    dropin(root).parent.mkdir(parents=True)
    dropin(root).write_text("stale")
    result, _, root = boot(script, tmp_path, kernel, fail=("make",))
    assert result.returncode != 0 and not dropin(root).exists()

