"""What the environment schema and both apps need to know about EC2 instance types.

One table, so that the CDK launch templates (how many EFA interfaces to attach) and the
cdk8s charts (how many GPUs and EFA devices a pod may request) can never disagree.
Figures are from the EC2 instance-type documentation ("Accelerated computing" and
"Maximum network interfaces" tables).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class InstanceSpec:
    vcpus: int
    memory_gib: int
    gpus: int = 0
    # EFA-capable network cards; 0 means the type does not support EFA at all.
    efa_interfaces: int = 0
    # Local NVMe instance-store volumes (RAID0'd for container storage on GPU nodes).
    nvme_volumes: int = 0
    # Memory of one GPU (GB, decimal as NVIDIA states it): what the trainer's layout must fit.
    gpu_memory_gb: float = 0.0
    # The GPU's model as its driver names it (torch.cuda.get_device_name: "NVIDIA H200"):
    # what a run's metrics must say they were measured on before the planner trusts them
    # for this type. "" for CPU-only types.
    gpu: str = ""

    @property
    def device(self) -> str:
        """What a run on this type records as its device: its GPU's name, else "cpu"."""
        return self.gpu or "cpu"


INSTANCE_TYPES: dict[str, InstanceSpec] = {
    # GPU: the seed's node type and its neighbours.
    "p5en.48xlarge": InstanceSpec(vcpus=192, memory_gib=2048, gpus=8, efa_interfaces=16, nvme_volumes=8, gpu_memory_gb=141, gpu="NVIDIA H200"),
    "p5e.48xlarge": InstanceSpec(vcpus=192, memory_gib=2048, gpus=8, efa_interfaces=32, nvme_volumes=8, gpu_memory_gb=141, gpu="NVIDIA H200"),
    "p5.48xlarge": InstanceSpec(vcpus=192, memory_gib=2048, gpus=8, efa_interfaces=32, nvme_volumes=8, gpu_memory_gb=80, gpu="NVIDIA H100"),
    "p4d.24xlarge": InstanceSpec(vcpus=96, memory_gib=1152, gpus=8, efa_interfaces=4, nvme_volumes=8, gpu_memory_gb=40, gpu="NVIDIA A100"),
    "g6e.48xlarge": InstanceSpec(vcpus=192, memory_gib=1536, gpus=8, efa_interfaces=4, nvme_volumes=4, gpu_memory_gb=48, gpu="NVIDIA L40S"),
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


def instance_spec(instance_type: str) -> InstanceSpec:
    try:
        return INSTANCE_TYPES[instance_type]
    except KeyError:
        known = ", ".join(sorted(INSTANCE_TYPES))
        raise ValueError(f"unknown instance type {instance_type!r}; known types: {known}") from None
