"""Bytes and seconds of the trainer's bulk data movements: publish, checkpoint, HF export.

Pure arithmetic (no torch), so the environment schema (infra/), the trainer chart (k8s/), the
planner (`python -m payload plan`) and the trainer's own timeouts read one model.

At the project's scale, p5en.48xlarge, 16 training nodes (128 H200) and 32 SGLang TP8 replicas
(256 GPUs), `python -m payload plan --env p5en-48` prints (these are the figures the designs of
payload.sync.publisher, payload.train.checkpoint and payload.train.export follow):

                                     Qwen3-30B-A3B        Qwen3-235B-A22B
    parameters                       30.5 B               235.1 B
    tensors (HF names)               18,867               36,945
    publish: bf16 bytes              61 GB                470 GB
      gather + pack (node 0, NVLink) 0.2 s                1.8 s    (overlapped with the broadcast)
      broadcast to 257 ranks (EFA)   1.6 s                12.5 s   (bf16 bytes / 37.5 GB/s)
      per-bucket overhead (1 GiB)    0.3 s                2.2 s    (5 ms: HTTP fan-out, ring fill)
      server load_weights            0.4 s                0.7 s    (20 µs per tensor)
      = publish, servers paused      2.3 s                15.5 s
    checkpoint (fp32 + Adam m, v)    366 GB               2.82 TB  (12 bytes a parameter)
      staged to host, per node       23 GB                176 GB   (p5en: 2 TiB RAM), blocking 0.1 s / 0.9 s
      written to FSx at 4.69 GB/s    78 s                 602 s    (4800 GiB x 1000 MB/s/TiB), in the background
    HF export (bf16, every rank)     61 GB: 13 s          470 GB: 100 s
    FSx needed, keep_last 3          1,732 GiB            13,334 GiB (ckpt x 4 + export x 4 + base model + 5%)

Publishing. SGLang 0.5.23's `/update_weights_from_distributed` receives every tensor on every
rank of a server (each TP rank gets the whole tensor and slices it in load_weights), from rank 0
of one group (`src=0` in its receiver): the release cannot send an expert shard only to the
ranks that hold it, so the bound is the broadcast of the whole bf16 model, `bytes / link rate`,
once per publish, whatever the number of servers (NCCL pipelines a broadcast along a ring, each
link carries every byte once). With `load_format: flattened_bucket` a bucket is one broadcast,
so the per-tensor NCCL launches of the naive path (~19k / ~37k a publish) are gone.

Checkpoints. Adam's state is twice the fp32 weights: 12 bytes a parameter, 5.5 times the bf16
model. FSx for Lustre PERSISTENT_2 gives `per-unit throughput x TiB`: the 1200 GiB / 250 MB/s
default writes 0.29 GB/s, a 30B checkpoint in 21 min. The save is asynchronous (staged in pinned
host memory, written by a background thread), so the step pays only the device-to-host copy; the
next save waits for the previous one, which is why the write time must stay below the trainer's
stall timeout, and a resume reads the same bytes, which is why it must fit the startup probe.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

GB = 1e9
TIB = 2**40
GIB = 2**30


@dataclass(frozen=True)
class Architecture:
    """The shape figures of a Qwen3-MoE model that size its data movements (HF config.json names)."""

    vocab_size: int
    hidden_size: int
    moe_intermediate_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    num_experts: int
    tie_word_embeddings: bool = False
    # Experts each token is routed to (its routing-replay record: one id per MoE layer each).
    num_experts_per_tok: int = 8

    @classmethod
    def of_hf_config(cls, config: dict) -> "Architecture":
        """From a Hugging Face config.json's fields (head_dim defaults as in transformers)."""
        d, heads = config["hidden_size"], config["num_attention_heads"]
        return cls(config["vocab_size"], d, config["moe_intermediate_size"], config["num_hidden_layers"], heads,
                   config["num_key_value_heads"], config.get("head_dim") or d // heads, config["num_experts"],
                   bool(config.get("tie_word_embeddings", False)), int(config.get("num_experts_per_tok", 8)))

    @property
    def parameters(self) -> int:
        d, heads, kv, hd = self.hidden_size, self.num_attention_heads, self.num_key_value_heads, self.head_dim
        attention = d * heads * hd * 2 + d * kv * hd * 2 + 2 * hd  # q, o, k, v, q/k norms
        experts = self.num_experts * 3 * d * self.moe_intermediate_size
        layer = attention + experts + self.num_experts * d + 2 * d  # router, two norms
        embeddings = self.vocab_size * d * (1 if self.tie_word_embeddings else 2)
        return self.num_hidden_layers * layer + embeddings + d

    @property
    def tensors(self) -> int:
        """HF-named tensors (experts one by one): what a per-tensor publish or load walks."""
        per_layer = 8 + 1 + 3 * self.num_experts  # q k v o q_norm k_norm 2 norms, router, experts
        return self.num_hidden_layers * per_layer + 2 + (0 if self.tie_word_embeddings else 1)


# The released checkpoints' config.json files, unchanged, one per model: the only description of
# their sizes (`plan --model-config NAME` reads the same file for the memory model).
ARCHITECTURE_CONFIGS: dict[str, Path] = {
    path.stem: path for path in sorted((Path(__file__).resolve().parents[1] / "model" / "architectures").glob("*.json"))
}
ARCHITECTURES: dict[str, Architecture] = dict(sorted(  # smallest first
    ((name, Architecture.of_hf_config(json.loads(path.read_text()))) for name, path in ARCHITECTURE_CONFIGS.items()),
    key=lambda item: item[1].parameters,
))


@dataclass(frozen=True)
class Hardware:
    """Rates of one training node (p5en.48xlarge) and the links the trainer uses.

    Line rates are the EC2/NVIDIA figures; achieved fractions are assumptions stated here, to be
    replaced by measurements (bench/README.md has the ones taken)."""

    gpus_per_node: int = 8
    host_memory_gib: int = 2048
    # 16 x 200 Gb/s EFA per node = 50 GB/s a GPU; NCCL broadcast reaches ~75% of it.
    broadcast_gb_s: float = 37.5
    # Intra-node all-gather over NVLink (450 GB/s a direction, ~80% achieved).
    nvlink_gather_gb_s: float = 360.0
    # bf16 tensors -> one flat bucket on the GPU, bf16 bytes out a second: measured 1,025 on
    # an H200 (bench/publish_pack.py, bench/README.md; half its copy rate).
    pack_gb_s: float = 1000.0
    # Device-to-host into pinned memory, per GPU: 55 measured on one H200 alone (PCIe Gen5
    # x16); halved for 8 GPUs sharing the host's memory bandwidth.
    d2h_gb_s: float = 25.0


@dataclass(frozen=True)
class PublishCost:
    bytes: int
    buckets: int
    gather_s: float
    broadcast_s: float
    overhead_s: float
    load_s: float

    @property
    def seconds(self) -> float:
        # The next bucket's gather overlaps the current broadcast: only the first gather shows.
        first_gather = self.gather_s / max(self.buckets, 1)
        return first_gather + max(self.gather_s, self.broadcast_s + self.overhead_s + self.load_s)


@dataclass(frozen=True)
class CheckpointCost:
    bytes: int
    host_bytes_per_node: int
    stage_s: float
    write_s: float

    @property
    def read_s(self) -> float:
        return self.write_s  # Lustre reads and writes at the same provisioned throughput


@dataclass(frozen=True)
class Costs:
    architecture: Architecture
    train_nodes: int
    publish: PublishCost
    checkpoint: CheckpointCost
    export_bytes: int
    export_s: float
    fsx_throughput_gb_s: float
    fsx_needed_bytes: int

    def as_dict(self) -> dict:
        return {
            "parameters": self.architecture.parameters,
            "publish_bytes": self.publish.bytes,
            "publish_s": round(self.publish.seconds, 2),
            "checkpoint_bytes": self.checkpoint.bytes,
            "checkpoint_stage_s": round(self.checkpoint.stage_s, 2),
            "checkpoint_write_s": round(self.checkpoint.write_s, 1),
            "export_bytes": self.export_bytes,
            "export_s": round(self.export_s, 1),
            "fsx_throughput_gb_s": round(self.fsx_throughput_gb_s, 3),
            "fsx_needed_bytes": self.fsx_needed_bytes,
        }


# Per-bucket fixed cost: one HTTP call fanned out to every server and the broadcast's ring fill.
BUCKET_OVERHEAD_S = 0.005
# SGLang's load_weights walks tensors in Python (name mapping, TP slicing, copy).
LOAD_S_PER_TENSOR = 20e-6
# Bytes a step's replay log and the tokenizer files add next to checkpoints: small, kept apart.
FSX_HEADROOM = 1.05


def fsx_throughput_gb_s(storage_gib: int, mb_s_per_tib: int) -> float:
    return storage_gib * GIB / TIB * mb_s_per_tib * 1e6 / GB


def model_costs(
    architecture: Architecture,
    *,
    train_nodes: int,
    fsx_storage_gib: int,
    fsx_mb_s_per_tib: int,
    keep_last: int,
    bucket_bytes: int = GIB,
    hardware: Hardware = Hardware(),
) -> Costs:
    params = architecture.parameters
    bf16 = 2 * params
    buckets = math.ceil(bf16 / bucket_bytes)
    # HSDP keeps a whole replica inside every node: node 0 gathers each bucket over NVLink and
    # packs it (cast + flatten) on the GPU; the two are sequential per bucket.
    gather_s = bf16 / (hardware.nvlink_gather_gb_s * GB) + bf16 / (hardware.pack_gb_s * GB)
    publish = PublishCost(
        bytes=bf16,
        buckets=buckets,
        gather_s=gather_s,
        broadcast_s=bf16 / (hardware.broadcast_gb_s * GB),
        overhead_s=buckets * BUCKET_OVERHEAD_S,
        load_s=architecture.tensors * LOAD_S_PER_TENSOR,
    )
    ckpt_bytes = 12 * params
    gpus = train_nodes * hardware.gpus_per_node
    throughput = fsx_throughput_gb_s(fsx_storage_gib, fsx_mb_s_per_tib)
    checkpoint = CheckpointCost(
        bytes=ckpt_bytes,
        host_bytes_per_node=ckpt_bytes // train_nodes,
        stage_s=ckpt_bytes / gpus / (hardware.d2h_gb_s * GB),
        write_s=ckpt_bytes / (throughput * GB),
    )
    # keep_last complete ones plus the one being written, of each; and the base model.
    needed = int(((keep_last + 1) * (ckpt_bytes + bf16) + bf16) * FSX_HEADROOM)
    return Costs(
        architecture=architecture,
        train_nodes=train_nodes,
        publish=publish,
        checkpoint=checkpoint,
        export_bytes=bf16,
        export_s=bf16 / (throughput * GB),
        fsx_throughput_gb_s=throughput,
        fsx_needed_bytes=needed,
    )


def architecture_of(model_path: str, name: str | None = None) -> tuple[str, Architecture]:
    """The architecture named by `name`, else by the model directory's last component."""
    key = name or model_path.rstrip("/").rsplit("/", 1)[-1]
    if key not in ARCHITECTURES:
        raise KeyError(key)
    return key, ARCHITECTURES[key]


@dataclass(frozen=True)
class Timeouts:
    """Trainer timeouts that follow from the modeled work (seconds).

    stall: the phase watchdog and /healthz: longer than the slowest phase that only takes long
    (publish, export, waiting for the previous checkpoint write), never under 15 minutes.
    collective: the process groups' timeout: a collective that outlives the watchdog is dead.
    startup: the startup probe's window: a resume reads a whole checkpoint from FSx.
    grace: SIGTERM to SIGKILL: room for one checkpoint write when FSx is fast enough, else the
    last completed checkpoint stands (the trainer says which in its log).
    """

    stall_s: int
    collective_s: int
    startup_s: int
    grace_s: int

    @classmethod
    def from_costs(cls, costs: Costs, minimum_stall_s: int = 900) -> "Timeouts":
        slowest = max(costs.publish.seconds, costs.export_s, costs.checkpoint.write_s)
        stall = max(minimum_stall_s, math.ceil(2 * slowest / 60) * 60)
        write = costs.checkpoint.stage_s + costs.checkpoint.write_s
        grace = 120 if write * 1.25 <= 110 else min(600, math.ceil(write * 1.25 / 30) * 30 + 30)
        startup = max(900, math.ceil((2 * costs.checkpoint.read_s + 300) / 60) * 60)
        return cls(stall_s=stall, collective_s=stall + 300, startup_s=startup, grace_s=grace)
