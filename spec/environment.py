"""The environment description shared by the CDK app (infra/) and the cdk8s app (k8s/).

`environments/<name>.yaml` is the single source of truth for node pools: their names,
instance types, sizes, labels and taints are read from here by both apps, so a pod can
never ask for a pool or a resource the cluster does not have.

Errors are raised as `EnvironmentFileError` with one line that names the file, the field and
what is allowed; the apps print that line and exit without a traceback.
"""

from __future__ import annotations

import ipaddress
import os
import re
from enum import Enum
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from spec.config_errors import pod_path_problem, schema_errors, yaml_problem
from spec.hardware import INSTANCE_TYPES, InstanceSpec, instance_spec
from spec.job import JobConfig
from spec.layout import RunLayout, server_layout_of, trainer_layout_of
from spec.model_shape import shape_name

ENVIRONMENTS_DIR = Path(__file__).resolve().parent.parent / "environments"
POOL_NAMES = ("train", "rollout", "cpu", "memory", "system")
GPU_POOLS = ("train", "rollout")
# Pools the Cluster Autoscaler may size. Not train: the trainer is one gang that needs all its
# nodes at once (a Capacity Block or a fixed on-demand set), sized by `make scale`.
AUTOSCALED_POOLS = ("rollout",)
# The label every node carries with its pool name; the charts select on it.
POOL_LABEL = "rl.aws/pool"
# One CloudFormation stack per environment, MoeRl-<name>; `cdk deploy --outputs-file` writes its
# outputs here, and `make manifests`, `make scale` and `make deploy` read them.
STACK_PREFIX = "MoeRl-"
OUTPUTS_FILE = "cdk-outputs.json"
# The root volume of a node whose instance store is RAID0'd for Kubernetes (GPU nodes,
# infra/gpu_node_group.py NODE_CONFIG): nodeadm bind-mounts /var/lib/kubelet, /var/lib/containerd
# and /var/log/pods onto the array (amazon-eks-ami setup-local-disks), so images, emptyDirs and pod
# logs never touch it. What is left is the AMI itself (built on a 20 GiB volume: amazon-eks-ami
# templates/al2023/variables-default.json), journald and /tmp; 100 GiB leaves room for crash
# dumps and a driver or EFA reinstall. (It was 1000 GiB on p5en-48: ~$80 a node-month of gp3.)
ROOT_VOLUME_BESIDE_NVME_GIB = 100
# What an EKS access entry takes: an IAM role or user, never an STS session.
IAM_PRINCIPAL_ARN = r"arn:aws[a-z-]*:iam::\d{12}:(role|user)/[\w+=,.@/-]+"
# EKS takes at most this many public access CIDR blocks.
MAX_API_PUBLIC_CIDRS = 40
# The most IPv4 addresses api_public_cidrs may cover together: a /8's worth (2**24, 1/256 of
# IPv4). Offices, VPN egress and CI runners are /32s to /16s; the largest blocks one
# organisation holds are a few legacy /8s. More is "the Internet" in pieces: 0.0.0.0/1 plus
# 128.0.0.0/1 is 0.0.0.0/0 by another name, and each half passes a per-CIDR check.
MAX_API_PUBLIC_ADDRESSES = 2 ** 24


class EnvironmentFileError(Exception):
    """A user mistake in an environment file: one line, no traceback."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CapacityType(str, Enum):
    ON_DEMAND = "ON_DEMAND"
    SPOT = "SPOT"
    CAPACITY_BLOCK = "CAPACITY_BLOCK"


class Taint(_Strict):
    # The taint's key; pods need a matching toleration to run on the pool.
    key: str
    # The taint's value (empty: the key alone).
    value: str = ""
    # What the taint does to pods without a toleration (Kubernetes' taint effects).
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]


class GpuFigures(_Strict):
    """A pool's GPU figures measured on the user's own nodes, replacing spec/hardware.py's for
    planning: the layout chosen, the footprint and the throughput model all read them."""

    # Dense bf16 matmul TFLOP/s one GPU sustains, as you measured it (None: spec/hardware.py's figure).
    matmul_tflops: float | None = Field(default=None, gt=0)
    # The trainer's model FLOPs utilisation on these GPUs, a fraction (None: spec/hardware.py's figure).
    train_mfu: float | None = Field(default=None, gt=0, le=1)
    # GPU memory bandwidth in GB/s that decode reaches (None: spec/hardware.py's figure).
    hbm_gb_s: float | None = Field(default=None, gt=0)

    def changes(self) -> dict[str, float]:
        return {k: v for k, v in self.model_dump().items() if v is not None}


class NodePool(_Strict):
    # The EC2 instance type of every node in the pool (one of spec/hardware.py's known types).
    instance_type: str
    # The node group's minimum size (an autoscaled pool's lower bound).
    min_size: int = Field(ge=0)
    # The nodes `make scale` sizes the pool to (GPU pools are created empty by `make deploy`).
    desired_size: int = Field(ge=0)
    # The node group's maximum size, also the pool's Kueue quota and an autoscaled pool's ceiling.
    max_size: int = Field(ge=1)
    # How EC2 provides the nodes: on-demand, spot, or a Capacity Block (needs capacity_reservation_id).
    capacity_type: CapacityType = CapacityType.ON_DEMAND
    # The capacity reservation or Capacity Block (`cr-` id) the pool launches into.
    capacity_reservation_id: str | None = Field(default=None, pattern=r"^cr-[0-9a-f]{17}$")
    # Attach EFA interfaces on every network card (GPU pools: NCCL and DeepEP traffic between nodes).
    efa: bool = False
    # A cluster placement group keeps EFA traffic on one network spine; only for EFA pools.
    placement_group: bool = False
    # The root EBS volume's size; default 200, or ROOT_VOLUME_BESIDE_NVME_GIB (and at most that) on
    # instance types with local NVMe, where images, pod volumes and pod logs live on the RAID0.
    root_volume_gib: int = Field(default=200, ge=20, le=16384)
    # Extra Kubernetes node labels (the app sets rl.aws/pool itself).
    labels: dict[str, str] = Field(default_factory=dict)
    # Kubernetes taints on the pool's nodes, so only pods that tolerate them run there.
    taints: list[Taint] = Field(default_factory=list)
    # The Cluster Autoscaler sizes the node group between min_size and max_size (infra/node_autoscaler.py);
    # only the rollout pool (AUTOSCALED_POOLS), and never a Capacity Block.
    autoscale: bool = False
    # A GPU pool's figures measured on your own nodes, replacing spec/hardware.py's in every estimate.
    gpu_figures: GpuFigures | None = None

    @model_validator(mode="before")
    @classmethod
    def _root_volume_default(cls, data: Any) -> Any:
        if isinstance(data, dict) and "root_volume_gib" not in data:
            spec = INSTANCE_TYPES.get(data.get("instance_type"))
            if spec and spec.nvme_volumes:
                return {**data, "root_volume_gib": ROOT_VOLUME_BESIDE_NVME_GIB}
        return data

    @field_validator("instance_type")
    @classmethod
    def _known_instance_type(cls, value: str) -> str:
        if value not in INSTANCE_TYPES:
            raise ValueError(f"{value!r} is not a known instance type; known: {', '.join(sorted(INSTANCE_TYPES))}")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> "NodePool":
        if self.min_size > self.max_size:
            raise ValueError(f"min_size {self.min_size} is greater than max_size {self.max_size}")
        if not self.min_size <= self.desired_size <= self.max_size:
            raise ValueError(
                f"desired_size {self.desired_size} must lie between min_size {self.min_size} and max_size {self.max_size}"
            )
        if self.gpu_figures is not None and not instance_spec(self.instance_type).gpus:
            raise ValueError(f"gpu_figures: {self.instance_type} has no GPU")
        if self.efa and self.spec.efa_interfaces == 0:
            raise ValueError(f"efa is true but {self.instance_type} does not support EFA")
        if self.placement_group and not self.efa:
            raise ValueError("placement_group needs efa: true (it only helps EFA traffic)")
        if self.capacity_reservation_id and self.capacity_type is CapacityType.SPOT:
            raise ValueError("capacity_reservation_id cannot be used with capacity_type SPOT")
        if self.capacity_type is CapacityType.CAPACITY_BLOCK and not self.capacity_reservation_id:
            raise ValueError("capacity_type CAPACITY_BLOCK needs capacity_reservation_id (the block's cr-… id)")
        if self.placement_group and self.capacity_type is CapacityType.CAPACITY_BLOCK:
            # EC2 API Reference, CapacityBlock: "Instances that run inside a Capacity Block are
            # automatically placed close together inside Amazon EC2 UltraClusters"; a cluster
            # placement group on top can only make launches into the block fail.
            raise ValueError(
                "placement_group cannot be used with capacity_type CAPACITY_BLOCK: a Capacity Block's instances "
                "are already co-located; set placement_group: false"
            )
        if self.spec.nvme_volumes and self.root_volume_gib > ROOT_VOLUME_BESIDE_NVME_GIB:
            raise ValueError(
                f"root_volume_gib {self.root_volume_gib}: on {self.instance_type} images, pod volumes and pod logs live on "
                f"the local NVMe RAID0, not the root volume; use at most {ROOT_VOLUME_BESIDE_NVME_GIB} (or leave it out)"
            )
        if POOL_LABEL in self.labels:
            raise ValueError(f"label {POOL_LABEL} is set by the app; remove it")
        if self.autoscale and self.capacity_type is CapacityType.CAPACITY_BLOCK:
            raise ValueError(
                "autoscale cannot be used with capacity_type CAPACITY_BLOCK: EC2 launches a block's instances only "
                "inside its window and reclaims them at its end; size it with make scale"
            )
        return self

    @property
    def spec(self) -> InstanceSpec:
        spec = instance_spec(self.instance_type)
        return spec.with_gpu_figures(**self.gpu_figures.changes()) if self.gpu_figures else spec


class Pools(_Strict):
    # The trainer's GPU nodes (never autoscaled: the trainer is one gang).
    train: NodePool
    # The SGLang rollout servers' GPU nodes (and a reward model's servers).
    rollout: NodePool
    # Rollout workers, verifiers, sandboxes, the router and the feeder.
    cpu: NodePool
    # The Redis experience buffer and the tracking server's database.
    memory: NodePool
    # Cluster add-ons: controllers, CoreDNS, monitoring, the autoscaler.
    system: NodePool

    def items(self) -> list[tuple[str, NodePool]]:
        return [(name, getattr(self, name)) for name in POOL_NAMES]



class Storage(_Strict):
    # FSx for Lustre PERSISTENT_2: 1200 GiB or a multiple of 2400 GiB. Sized from the job
    # (checkpoint bytes x (keep_last + 1) + exports, write time): estimate/costs.py.
    fsx_storage_gib: int = 1200
    # MB/s per TiB of storage; throughput = this x TiB.
    fsx_throughput_mb_s_per_tib: Literal[125, 250, 500, 1000] = 250

    @field_validator("fsx_storage_gib")
    @classmethod
    def _lustre_size(cls, value: int) -> int:
        if value != 1200 and (value <= 0 or value % 2400):
            raise ValueError(f"{value} is not a PERSISTENT_2 size: use 1200 or a multiple of 2400 (GiB)")
        return value


class Environment(_Strict):
    # The environment's name, which must match its file name; the stack is MoeRl-<name>.
    name: str = Field(pattern=r"^[a-z][a-z0-9-]{0,30}$")
    # The AWS account id to deploy into (None: $CDK_DEFAULT_ACCOUNT).
    account: str | None = Field(default=None, pattern=r"^\d{12}$")
    # The AWS region.
    region: str = Field(pattern=r"^[a-z]{2}(-gov)?-[a-z]+-\d$")
    # The one zone every node group and the FSx file system live in (EFA needs them together).
    availability_zone: str
    # A second zone of the region for the EKS control plane's subnets (EKS needs two; no nodes run there).
    control_plane_availability_zone: str
    # The EKS Kubernetes version (each with its own kube-proxy and CoreDNS builds, infra/versions.py).
    kubernetes_version: Literal["1.32", "1.33", "1.34"] = "1.33"
    # The VPC's IPv4 range, a /16 to /24.
    vpc_cidr: str = Field(default="10.0.0.0/16", pattern=r"^\d+\.\d+\.\d+\.\d+/(1[6-9]|2[0-4])$")
    # IAM principals (role or user ARNs) granted cluster-admin through EKS access entries;
    # none: `cdk deploy` asks for one (--parameters AdminPrincipalArn=..., infra/cluster.py).
    admin_principal_arns: list[str] = Field(default_factory=list)
    # Networks (IPv4 CIDRs) that may reach the Kubernetes API's public endpoint; none: the
    # endpoint is private, reachable only from inside the VPC (README.md, "Cluster access").
    api_public_cidrs: list[str] = Field(default_factory=list)
    # The node pools, each a managed node group in availability_zone.
    pools: Pools
    # The FSx for Lustre file system (checkpoints, models, datasets), sized from the job.
    storage: Storage = Field(default_factory=Storage)
    # The RL job, rendered into the ConfigMap every payload pod reads (spec/job.py).
    job: JobConfig = Field(default_factory=JobConfig)

    @field_validator("admin_principal_arns")
    @classmethod
    def _arns(cls, arns: list[str]) -> list[str]:
        for arn in arns:
            if re.fullmatch(r"arn:aws[a-z-]*:sts::\d{12}:assumed-role/.+", arn):
                raise ValueError(
                    f"{arn!r} is an STS session (what `aws sts get-caller-identity` prints for an assumed role); "
                    "access entries take the role itself: arn:aws:iam::ACCOUNT:role/NAME"
                )
            if not re.fullmatch(IAM_PRINCIPAL_ARN, arn):
                raise ValueError(f"{arn!r} is not an IAM role or user ARN")
        return arns

    @field_validator("api_public_cidrs")
    @classmethod
    def _cidrs(cls, cidrs: list[str]) -> list[str]:
        if len(cidrs) > MAX_API_PUBLIC_CIDRS:
            raise ValueError(f"{len(cidrs)} CIDRs: EKS takes at most {MAX_API_PUBLIC_CIDRS}")
        for cidr in cidrs:
            try:
                network = ipaddress.IPv4Network(cidr)
            except ValueError:
                raise ValueError(f"{cidr!r} is not an IPv4 CIDR with its host bits zero (e.g. 203.0.113.0/24)") from None
            if network.prefixlen == 0:
                raise ValueError(f"{cidr!r} opens the API endpoint to the whole Internet; list your networks, "
                                 "or none for a private endpoint")
            if not network.is_global:
                raise ValueError(f"{cidr!r} is a private range: the public endpoint sees public addresses "
                                 "(a private endpoint serves the VPC without listing it)")
        # By the addresses covered, overlaps counted once (collapse_addresses merges them).
        covered = sum(n.num_addresses for n in ipaddress.collapse_addresses(ipaddress.IPv4Network(c) for c in cidrs))
        if covered > MAX_API_PUBLIC_ADDRESSES:
            raise ValueError(f"the listed networks together cover {covered:,} addresses ({covered / 2 ** 32:.1%} of IPv4), more than a /8 "
                             f"({MAX_API_PUBLIC_ADDRESSES:,}): that opens the API endpoint to much of the Internet; "
                             "list your networks, or none for a private endpoint")
        return cidrs

    @model_validator(mode="after")
    def _zones(self) -> "Environment":
        for field in ("availability_zone", "control_plane_availability_zone"):
            zone = getattr(self, field)
            if not re.fullmatch(re.escape(self.region) + r"[a-z]", zone):
                raise ValueError(f"{field} {zone!r} is not a zone of region {self.region} (expected {self.region}a, {self.region}b, …)")
        if self.availability_zone == self.control_plane_availability_zone:
            raise ValueError("control_plane_availability_zone must differ from availability_zone (EKS needs subnets in two AZs)")
        return self

    @model_validator(mode="after")
    def _checkpoints_on_fsx(self) -> "Environment":
        # Here, not in spec.job: `payload local` runs a job from a relative folder on this machine.
        job = self.job
        for field, path in (("job.model.path", job.model.path), ("job.rollout.model_path", job.rollout.model_path),
                            ("job.rewards.model.path", job.rewards.model and job.rewards.model.path)):
            if path is not None and (problem := pod_path_problem(field, path)):
                raise ValueError(problem)
        return self

    @model_validator(mode="after")
    def _autoscaled_pools(self) -> "Environment":
        for name, pool in self.pools.items():
            if pool.autoscale and name not in AUTOSCALED_POOLS:
                raise ValueError(
                    f"pools.{name}.autoscale: only the {' and '.join(AUTOSCALED_POOLS)} pool may be autoscaled "
                    "(the trainer is one gang that needs all its nodes at once)"
                )
        return self

    @property
    def layout(self) -> RunLayout:
        """The trainer's and the rollout servers' layout for the job's model: every size a number
        once estimate.layout.resolve has chosen what the job left auto."""
        train, rollout = self.pools.train, self.pools.rollout
        return RunLayout(
            model=shape_name(self.job.model),
            trainer=trainer_layout_of(self.job.parallel, train.desired_size or train.max_size, train.spec.gpus,
                                      self.job.model.activation_checkpointing),
            servers=server_layout_of(self.job.parallel, rollout.spec.gpus),
            ep_backend=self.job.parallel.ep_backend,
        )

    def with_gpu_figures(self, **figures: float) -> "Environment":
        """This environment planned with the GPU pools' figures replaced (GpuFigures' fields):
        `payload plan --peak-tflops/--train-mfu`, before its layout is chosen."""
        if not figures:
            return self
        pools = {
            name: pool.model_copy(update={"gpu_figures": GpuFigures(**(pool.gpu_figures.changes() if pool.gpu_figures else {}),
                                                                    **figures)})
            for name, pool in (("train", self.pools.train), ("rollout", self.pools.rollout))
        }
        return self.model_copy(update={"pools": self.pools.model_copy(update=pools)})

    def with_job(self, section: str, **changes) -> "Environment":
        """This environment with fields of one job section replaced (`payload plan --model`,
        `--stale-tokens`); the caller resolves and checks it."""
        part = getattr(self.job, section).model_copy(update=changes)
        return self.model_copy(update={"job": self.job.model_copy(update={section: part})})

    @property
    def stack_name(self) -> str:
        return STACK_PREFIX + self.name

    def resolved_account(self) -> str | None:
        return self.account or os.environ.get("CDK_DEFAULT_ACCOUNT")


def available_environments() -> list[str]:
    return sorted(path.stem for path in ENVIRONMENTS_DIR.glob("*.yaml"))


def _location(error: dict[str, Any]) -> str:
    return ".".join(str(part) for part in error["loc"]) or "(top level)"


def _describe(error: dict[str, Any]) -> str:
    """One pydantic error, named by its field (unknown keys: spec.config_errors)."""
    message = error["msg"].removeprefix("Value error, ")
    if not error["loc"]:  # the whole environment's check; the message names its fields
        return message
    if error["type"] == "missing":
        return f"{_location(error)}: required field is missing"
    if "input" in error and error["type"] not in ("value_error", "assertion_error") and not isinstance(error["input"], dict):
        return f"{_location(error)}: {error['input']!r}: {message}"
    return f"{_location(error)}: {message}"


def validate_environment(data: Any, source: str) -> Environment:
    """Validate an already-loaded mapping against the schema; `source` names it in errors.
    estimate.checks.parse_environment also resolves the layout and checks the job fits."""
    if not isinstance(data, dict):
        raise EnvironmentFileError(f"{source}: expected a mapping at the top level")
    try:
        return Environment.model_validate(data)
    except ValidationError as exc:
        raise EnvironmentFileError(f"{source}: {schema_errors(exc, Environment, _describe)}") from None


def environment_file(name_or_path: str) -> Path:
    """`environments/<name>.yaml`, or a path to a YAML file, that exists."""
    path = Path(name_or_path)
    if path.suffix not in (".yaml", ".yml"):
        path = ENVIRONMENTS_DIR / f"{name_or_path}.yaml"
        if not path.is_file():
            raise EnvironmentFileError(
                f"unknown environment {name_or_path!r}: choose one of {', '.join(available_environments())} "
                f"(files in {ENVIRONMENTS_DIR.name}/)"
            )
    elif not path.is_file():
        raise EnvironmentFileError(f"environment file {path} does not exist")
    return path


def read_environment(name_or_path: str) -> Environment:
    """Read `environments/<name>.yaml`, or a path to a YAML file, against the schema
    (estimate.checks.load_environment: and resolve its layout and check the job fits)."""
    path = environment_file(name_or_path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise EnvironmentFileError(f"{path.name}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})") from None
    except yaml.YAMLError as exc:
        raise EnvironmentFileError(yaml_problem(path.name, exc)) from None
    environment = validate_environment(data, path.name)
    if path.parent == ENVIRONMENTS_DIR and environment.name != path.stem:
        raise EnvironmentFileError(f"{path.name}: name {environment.name!r} must match the file name {path.stem!r}")
    return environment
