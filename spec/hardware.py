"""What the environment schema, both apps and the estimators need to know about EC2 instance
types and their GPUs.

One table, so that the CDK launch templates (how many EFA interfaces to attach), the cdk8s
charts (how many GPUs and EFA devices a pod may request) and the planner's rates (memory, links,
compute of the pool's own GPU) can never disagree. Instance figures are from the EC2
instance-type documentation ("Accelerated computing" and "Maximum network interfaces" tables);
each GPU figure says whether it was measured here (bench/README.md) or is NVIDIA's datasheet's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class GpuSpec:
    # Memory (GB, decimal as NVIDIA states it): what the trainer's layout must fit. Datasheet.
    memory_gb: float
    # HBM read rate, GB/s: what a decode step reads weights and KV cache at. Datasheet.
    hbm_gb_s: float
    # NVLink, GB/s one direction per GPU (half the datasheet's bidirectional figure); 0: PCIe only.
    nvlink_gb_s: float
    # bf16 dense matmul, TFLOP/s: measured here on an 8192^3 torch.matmul where we had the GPU
    # (bench/README.md), else the datasheet's dense figure.
    matmul_tflops: float
    # A training step's model FLOPs over matmul_tflops: 0.357 measured on an H200 (bench/README.md,
    # train_step.py: activation checkpointing on, compiled layers); the same ratio assumed elsewhere.
    train_mfu: float = 0.357

    @property
    def train_flop_s(self) -> float:
        """The FLOP/s a training step achieves: the one compute rate the estimators use."""
        return self.matmul_tflops * self.train_mfu * 1e12


GPUS: dict[str, GpuSpec] = {
    # matmul 775 measured (bench/README.md, "bf16 8192^3 matmul"); 141 GB, 4.8 TB/s, 900 GB/s NVLink: datasheet.
    "NVIDIA H200": GpuSpec(memory_gb=141, hbm_gb_s=4800, nvlink_gb_s=450, matmul_tflops=775),
    # matmul 731 measured on an H100 80GB HBM3 (bench/README.md, 2026-12-06); 80 GB, 3.35 TB/s, 900 GB/s: datasheet.
    "NVIDIA H100": GpuSpec(memory_gb=80, hbm_gb_s=3350, nvlink_gb_s=450, matmul_tflops=731),
    # A100 40GB SXM: 1,555 GB/s, 600 GB/s NVLink, 312 TFLOP/s dense bf16: datasheet, not measured here.
    "NVIDIA A100": GpuSpec(memory_gb=40, hbm_gb_s=1555, nvlink_gb_s=300, matmul_tflops=312),
    # L40S: 864 GB/s, no NVLink, 362 TFLOP/s dense bf16: datasheet, not measured here.
    "NVIDIA L40S": GpuSpec(memory_gb=48, hbm_gb_s=864, nvlink_gb_s=0, matmul_tflops=362),
}


@dataclass(frozen=True)
class InstanceSpec:
    vcpus: int
    memory_gib: int
    gpus: int = 0
    # EFA-capable network cards; 0 means the type does not support EFA at all.
    efa_interfaces: int = 0
    # Local NVMe instance-store volumes (RAID0'd for container storage on GPU nodes).
    nvme_volumes: int = 0
    # The instance's EFA bandwidth, Gb/s (all its interfaces): EC2's "network bandwidth".
    efa_gbps: int = 0
    # The GPU's model as its driver names it (torch.cuda.get_device_name: "NVIDIA H200"):
    # what a run's metrics must say they were measured on before the planner trusts them
    # for this type. "" for CPU-only types.
    gpu: str = ""
    # The GPU's figures where a user measured their own (an environment's pools.<pool>.gpu_figures,
    # `payload plan --peak-tflops`); None: the table's.
    gpu_figures: GpuSpec | None = None

    @property
    def gpu_spec(self) -> GpuSpec:
        if self.gpu_figures is not None:
            return self.gpu_figures
        if self.gpu not in GPUS:
            raise ValueError(f"{self.gpu or 'a CPU-only instance'}: no GPU figures (spec/hardware.py GPUS)")
        return GPUS[self.gpu]

    def with_gpu_figures(self, **figures: float) -> "InstanceSpec":
        """This type with some of its GPU's figures replaced (GpuSpec's field names)."""
        return replace(self, gpu_figures=replace(self.gpu_spec, **figures)) if figures else self

    @property
    def gpu_memory_gb(self) -> float:
        return self.gpu_spec.memory_gb if self.gpus else 0.0

    @property
    def efa_gb_s_per_gpu(self) -> float:
        """One GPU's share of the instance's EFA bandwidth, GB/s one direction."""
        return self.efa_gbps / 8 / self.gpus

    @property
    def device(self) -> str:
        """What a run on this type records as its device: its GPU's name, else "cpu"."""
        return self.gpu or "cpu"


INSTANCE_TYPES: dict[str, InstanceSpec] = {
    # GPU: the seed's node type and its neighbours.
    "p5en.48xlarge": InstanceSpec(vcpus=192, memory_gib=2048, gpus=8, efa_interfaces=16, nvme_volumes=8, efa_gbps=3200, gpu="NVIDIA H200"),
    "p5e.48xlarge": InstanceSpec(vcpus=192, memory_gib=2048, gpus=8, efa_interfaces=32, nvme_volumes=8, efa_gbps=3200, gpu="NVIDIA H200"),
    "p5.48xlarge": InstanceSpec(vcpus=192, memory_gib=2048, gpus=8, efa_interfaces=32, nvme_volumes=8, efa_gbps=3200, gpu="NVIDIA H100"),
    "p4d.24xlarge": InstanceSpec(vcpus=96, memory_gib=1152, gpus=8, efa_interfaces=4, nvme_volumes=8, efa_gbps=400, gpu="NVIDIA A100"),
    "g6e.48xlarge": InstanceSpec(vcpus=192, memory_gib=1536, gpus=8, efa_interfaces=4, nvme_volumes=4, efa_gbps=400, gpu="NVIDIA L40S"),
    # Compute-optimized: rollout workers, verifiers, router.
    "c7i.2xlarge": InstanceSpec(vcpus=8, memory_gib=16),
    "c7i.4xlarge": InstanceSpec(vcpus=16, memory_gib=32),
    "c7i.8xlarge": InstanceSpec(vcpus=32, memory_gib=64),
    "c7i.16xlarge": InstanceSpec(vcpus=64, memory_gib=128),
    "c7i.24xlarge": InstanceSpec(vcpus=96, memory_gib=192),
    "c7i.48xlarge": InstanceSpec(vcpus=192, memory_gib=384, efa_interfaces=1),
    # Memory-optimized: Redis experience buffer, checkpoint cache.
    "r7i.2xlarge": InstanceSpec(vcpus=8, memory_gib=64),
    "r7i.4xlarge": InstanceSpec(vcpus=16, memory_gib=128),
    "r7i.8xlarge": InstanceSpec(vcpus=32, memory_gib=256),
    "r7i.16xlarge": InstanceSpec(vcpus=64, memory_gib=512),
    "r7i.48xlarge": InstanceSpec(vcpus=192, memory_gib=1536, efa_interfaces=1),
    # General purpose: system pool (controllers, CoreDNS, device plugins).
    "m7i.large": InstanceSpec(vcpus=2, memory_gib=8),
    "m7i.xlarge": InstanceSpec(vcpus=4, memory_gib=16),
    "m7i.2xlarge": InstanceSpec(vcpus=8, memory_gib=32),
}


def node_of_device(device_name: str | None) -> InstanceSpec:
    """The instance type a trainer process runs on, by its GPU's name (torch.cuda.get_device_name);
    off a GPU (a CPU test, the local demo) the table's first GPU type, whose rates then rank
    layouts (its memory is not weighed there)."""
    gpu_types = [spec for spec in INSTANCE_TYPES.values() if spec.gpus]
    return next((spec for spec in gpu_types if spec.gpu == device_name), gpu_types[0])


def instance_spec(instance_type: str) -> InstanceSpec:
    try:
        return INSTANCE_TYPES[instance_type]
    except KeyError:
        known = ", ".join(sorted(INSTANCE_TYPES))
        raise ValueError(f"unknown instance type {instance_type!r}; known types: {known}") from None
