"""Bytes and seconds of the trainer's bulk data movements: publish, checkpoint, resume, HF export.

Pure arithmetic (no torch), so the environment schema (infra/), the trainer chart (k8s/), the
planner (`python -m payload plan`) and the trainer's own timeouts read one model.

At the project's scale, p5en.48xlarge, 16 training nodes (128 H200), the SGLang engines `plan`
picks (Qwen3-30B-A3B: 64 TP4 replicas; Qwen3-235B-A22B: 32 TP8), FSx 4800 GiB x 1000 MB/s/TiB =
4.69 GB/s, under the layouts the environment ships (job.parallel auto, estimate/layout.py: 30B FSDP over all 128
GPUs, one replica; 235B 4 pipeline stages of 4 nodes, FSDP over a stage's 32 GPUs, one replica
of 128 GPUs), `python -m payload plan --env p5en-48 --model M` gives:

                                          Qwen3-30B-A3B          Qwen3-235B-A22B
    parameters / HF tensors               30.5 B / 18,867        235.1 B / 36,945
    publish: bf16 bytes, 4 GiB buckets    61 GB, 15 buckets      470 GB, 110 buckets
      trainer stall: own share to host    0.02 s                 0.15 s   (B / 128 a GPU: pack, D2H 25 GB/s)
      rounds (servers a node feeds)       4                      2        (one after another)
      per round: replica all-gather       0.19 s                 1.47 s   (15/16 B into a node at 300 GB/s)
      per server: transfer                2.04 s                 7.84 s   (B / 30 GB/s: a TP4's 4 GPUs' NICs at
                                                                           line rate x 0.150, the broadcast share
                                                                           calibrated on miles' measured 10.75 s;
                                                                           235B: B / 60 GB/s, a node's)
                  + bucket overhead       0.08 s                 0.55 s   (5 ms a bucket)
                  + load_weights          0.38 s                 0.74 s   (20 us a tensor)
      = each server paused                2.49 s                 9.13 s   (targets 1 s / 5 s: missed)
      whole publish, behind the step      10.0 s                 18.4 s   (stall + rounds x pause)
    publish, job.rollout.precision fp8    31 GB a server         236 GB a server  (block FP8, quantized on the GPU
                                                                            after each gather: what is sent halves)
    checkpoint (fp32 + Adam m, v)         366 GB                 2.82 TB  (12 bytes a parameter)
      staged by replica 0 only            23 GB a node on 16     176 GB a node on 16 (2 TiB RAM)
      step blocked (device-to-host)       0.11 s                 0.88 s   (its shard at 25 GB/s a GPU)
      written to FSx                      78 s                   602 s    (background)
    resume: base model (each replica)     61 GB: 13 s            470 GB: 100 s (payload/train/loading.py)
      checkpoint read once (replica 0)    78 s                   602 s
      sent to the other replicas          none (one replica)     none (one replica)
      = resume, within the startup probe  91 s of 900 s          702 s of 1,740 s
    HF export (bf16)                      61 GB: 13 s            470 GB: 100 s
    FSx needed, keep_last 3               1,732 GiB              13,334 GiB (ckpt x 4 + export x 4 + base + 5%)

Publishing. SGLang 0.5.23's `/update_weights_from_distributed` receives every tensor on every
rank of a server (each TP rank gets the whole tensor and slices it in load_weights), from rank 0
of the named group (`src=0`), one bucket at a time (its scheduler is blocked in the receive): a
server takes in the whole bf16 model, B, however it is fed. payload/sync/fanout.py: each GPU
copies its own rows to pinned host memory (the stall: a share, not the model); behind the next
step, per round, the replica all-gathers each bucket of the shares (a ring: a node takes in and
sends on 15/16 B) and each node's 8 GPUs form the group of one of its servers (rank_offset 8),
so its broadcast leaves through all 16 NICs (NCCL PXN; assumed: Hardware.node_broadcast_gb_s).
What a server takes in is the calibrated share of its NICs' line rate (PUBLISH_BROADCAST_ACHIEVED:
miles' and verl's published NCCL broadcasts on H100, 0.15-0.17), not a link's peak.
A server is paused for its own round only. Measured: the pack (1,025 GB/s) and the device-to-
host rate (55 GB/s one H200 alone; 25 assumed with 8 sharing a host), bench/README.md.
Assumed (no multi-node run has been possible here): the 300 GB/s a node, 37.5 GB/s a GPU's
NICs, BUCKET_OVERHEAD_S and LOAD_S_PER_TENSOR. The re-prefill after a retracting pause is the
balance model's (estimate/throughput.py), on top of this pause.

Checkpoints. Adam's state is twice the fp32 weights: 12 bytes a parameter, 5.5 times the bf16
model. HSDP replicas hold equal copies; only replica 0 stages and writes (payload/train/
checkpoint.py), and a resume reads each byte once on replica 0 and broadcasts to the others.
FSx for Lustre PERSISTENT_2 gives `per-unit throughput x TiB`: the 1200 GiB / 250 MB/s default
writes 0.29 GB/s, a 30B checkpoint in 21 min. The save is asynchronous, so the step pays only
the device-to-host copy; the next save waits for the previous one, which is why the write time
must stay below the trainer's stall timeout, and a resume must fit the startup probe.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from spec.hardware import InstanceSpec
from spec.job import PUBLISH_BUCKET_MB
from spec.model_shape import Qwen3MoeConfig
from spec.units import GB, GIB, TIB



# WireFormat("fp8").pack of Qwen3-30B-A3B layer tensors on one H200 (the Triton quantizer at
# 1,762 GB/s, then the bucket copy and ~10 us of Python a tensor), bf16 bytes read a second
# (bench/fp8_quantize.py publish_pack, bench/README.md).
FP8_PACK_GB_S = 290.0


# NCCL's achieved share of a link's line rate (assumed, not measured: no multi-node run has been
# possible here): the trainer's all-gather over EFA ~75%, an intra-node all-gather over NVLink ~80%.
EFA_ACHIEVED = 0.75
NVLINK_ACHIEVED = 0.8

# What an NCCL broadcast of the weights into one SGLang server achieves of the server's network
# line rate: calibrated on published measurements, not a link's peak. miles
# (https://github.com/radixark/miles/blob/main/docs/advanced/p2p-weight-transfer.md, "NCCL (ms)",
# H100-80GB clusters, 1 GB buckets, timed from pause_generation's return to update_weight's exit,
# steps 3-12): Qwen3-235B-A22B, 8 training nodes to TP 32 / EP 32 servers, 10,753.6 ms. Less this
# model's own load (36,945 tensors x LOAD_S_PER_TENSOR = 0.74 s) and bucket overhead (438 1-GiB
# buckets x BUCKET_OVERHEAD_S = 2.19 s), 470.2 GB crossed in 7.82 s: 60.1 GB/s into a server
# whose node's NICs carry 400 GB/s (8 x 400 Gb/s), 0.150 of it. Checks against the same factor:
# miles' Qwen3-30B-A3B (2 nodes to TP 8 servers) measured 2,670 ms, this model gives 1.68 s (the
# small model is further from bandwidth-bound than the model counts); verl's checkpoint engine
# (https://github.com/volcengine/verl/blob/main/verl/checkpoint_engine/README.md, NCCL backend,
# Qwen3-30B-A3B, 4 x 8 H100, ConnectX-7 400 Gb/s) reports ~7 s at 8.25 GB/s into one-GPU rollout
# replicas: 0.165 of a 50 GB/s NIC.
PUBLISH_BROADCAST_ACHIEVED = 0.150


@dataclass(frozen=True)
class Hardware:
    """Rates of one training node and the links the trainer uses, from its instance type
    (spec.hardware) and the achieved shares above; bench/README.md has the ones measured."""

    gpus_per_node: int
    host_memory_gib: int
    # A GPU's share of the node's EFA (p5en: 16 x 200 Gb/s = 50 GB/s a GPU), as NCCL broadcasts it.
    broadcast_gb_s: float
    # Intra-node all-gather over NVLink.
    nvlink_gather_gb_s: float
    # A broadcast whose communicator holds all of the sending node's GPUs: NCCL's channels leave
    # through every GPU's NICs (PXN, payload/sync/fanout.py); also a multi-node all-gather's
    # per-node rate. Assumed, not measured.
    node_broadcast_gb_s: float
    # bf16 tensors -> one flat bucket on the GPU, bf16 bytes out a second: measured 1,025 on
    # an H200 (bench/publish_pack.py, bench/README.md; half its copy rate).
    pack_gb_s: float = 1000.0
    # The same into an FP8 bucket (block quantization while packed, payload/sync/wire.py), bf16
    # bytes read a second (FP8_PACK_GB_S, measured on an H200).
    fp8_pack_gb_s: float = FP8_PACK_GB_S
    # Device-to-host into pinned memory, per GPU: 55 measured on one H200 alone (PCIe Gen5
    # x16); halved for 8 GPUs sharing the host's memory bandwidth.
    d2h_gb_s: float = 25.0
    # One GPU's NICs at line rate, GB/s: a server of t GPUs takes a publish in at
    # t x this x PUBLISH_BROADCAST_ACHIEVED (at most its node's), the calibrated broadcast.
    nic_line_gb_s: float = 0.0

    @property
    def server_ingress_gb_s(self) -> float:
        return self.nic_line_gb_s * PUBLISH_BROADCAST_ACHIEVED

    @classmethod
    def of(cls, node: InstanceSpec) -> "Hardware":
        efa = node.efa_gb_s_per_gpu * EFA_ACHIEVED
        return cls(gpus_per_node=node.gpus, host_memory_gib=node.memory_gib, broadcast_gb_s=efa,
                   nvlink_gather_gb_s=node.gpu_spec.nvlink_gb_s * NVLINK_ACHIEVED, node_broadcast_gb_s=efa * node.gpus,
                   nic_line_gb_s=node.efa_gb_s_per_gpu)


@dataclass(frozen=True)
class PublishCost:
    """What payload/sync/fanout.py does: each GPU stages its own rows (the trainer's stall);
    behind the next step, per round, the replica all-gathers every bucket and each training
    node, through all of its GPUs, feeds one of its servers: one round per server of a node."""

    bytes: int
    buckets: int
    rounds: int  # servers a training node feeds, one after another
    servers: int  # rollout servers fed (every node's), each of which may die mid-publish
    stall_s: float  # the trainer: this GPU's share (B / replica GPUs), packed and copied to host
    gather_s: float  # one round's all-gather of the shares, as a node takes it in (behind the step)
    transfer_s: float  # one server's copy: its NICs' ingress, or its node's egress with the gather's
    overhead_s: float  # one server: per-bucket HTTP and ring fill
    load_s: float  # one server: load_weights over every tensor

    @property
    def pause_s(self) -> float:
        """How long a server is paused: its own round's transfer and load."""
        return self.transfer_s + self.overhead_s + self.load_s

    @property
    def seconds(self) -> float:
        """The whole publish, the stall and every round (all but the stall behind the next step)."""
        return self.stall_s + self.rounds * self.pause_s


@dataclass(frozen=True)
class CheckpointCost:
    bytes: int
    writer_nodes: int  # the nodes of replica 0, which alone stage and write
    stage_s: float  # the step, blocked on the device-to-host copy of a rank's shard
    write_s: float
    base_read_s: float  # the base model, read once per replica before the checkpoint
    broadcast_s: float  # replica 0's shards to the other replicas

    @property
    def host_bytes_per_node(self) -> int:
        return self.bytes // self.writer_nodes

    @property
    def read_s(self) -> float:
        return self.write_s  # Lustre reads and writes at the same provisioned throughput

    @property
    def resume_s(self) -> float:
        return self.base_read_s + self.read_s + self.broadcast_s


@dataclass(frozen=True)
class Costs:
    architecture: Qwen3MoeConfig
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
            "publish_server_pause_s": round(self.publish.pause_s, 2),
            "publish_trainer_stall_s": round(self.publish.stall_s, 2),
            "checkpoint_bytes": self.checkpoint.bytes,
            "checkpoint_stage_s": round(self.checkpoint.stage_s, 2),
            "checkpoint_write_s": round(self.checkpoint.write_s, 1),
            "resume_s": round(self.checkpoint.resume_s, 1),
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
    architecture: Qwen3MoeConfig,
    *,
    train_nodes: int,
    fsx_storage_gib: int,
    fsx_mb_s_per_tib: int,
    keep_last: int,
    shard_gpus: int,
    pipeline: int = 1,
    servers: int | None = None,
    server_gpus: int = 8,
    bucket_bytes: int = PUBLISH_BUCKET_MB << 20,
    hardware: Hardware,
    rollout_precision: str = "bf16",
) -> Costs:
    """Under the trainer's layout (spec.layout.TrainerLayout: what estimate/layout.py chooses):
    `pipeline` stages of whole nodes, each sharding its layers over `shard_gpus` (FSDP) and
    replicated over the rest of the stage (HSDP). A replica is one shard group of every stage:
    its `pipeline × shard_gpus` GPUs hold the model once. `servers`: rollout replicas (default
    one per training node) of `server_gpus` GPUs each (SGLang's TP size). `rollout_precision`
    (job.rollout.precision): fp8 sends block FP8, quantized on the GPU after each bucket's gather
    (payload/sync/wire.py), so every byte a server takes in halves; staging and the gather stay bf16."""
    params = architecture.parameters
    bf16 = 2 * params
    wire = architecture.publish_bytes(rollout_precision)
    gpus = train_nodes * hardware.gpus_per_node
    shard = min(shard_gpus, gpus // pipeline)
    holders = shard * pipeline  # the GPUs of one replica, each holding 1/holders of the model
    replicas = max(gpus // holders, 1)
    buckets = math.ceil(bf16 / bucket_bytes)
    # Each GPU stages its own rows: the trainer waits for one share's pack and device-to-host copy.
    share = bf16 / holders
    stall_s = share / (hardware.pack_gb_s * GB) + share / (hardware.d2h_gb_s * GB)
    # Per round, behind the step, the replica all-gathers each bucket: a node takes in and (ring)
    # sends on (1 - 1/nodes) x B over EFA; a replica inside one node gathers over NVLink.
    replica_nodes = max(holders // hardware.gpus_per_node, 1)
    across = bf16 * (1 - 1 / replica_nodes) if replica_nodes > 1 else 0.0
    gather_s = across / (hardware.node_broadcast_gb_s * GB) if across else bf16 / (hardware.nvlink_gather_gb_s * GB)
    # A server takes in B through its own GPUs' NICs (TP x 2 EFA, ~37.5 GB/s a GPU); its node's
    # NICs carry that B out beside the gather's share; the slower bounds the round.
    ingress = min(server_gpus, hardware.gpus_per_node) * hardware.server_ingress_gb_s
    if not ingress:  # a Hardware built by hand without NIC figures: the assumed EFA share
        ingress = min(server_gpus * hardware.broadcast_gb_s, hardware.node_broadcast_gb_s)
    # fp8: each gathered bf16 bucket is quantized on the GPU before it is sent. The broadcast of
    # bucket k is async (fanout.SLOTS) while bucket k+1 is gathered and quantized, one after the
    # other on the compute stream: the round is its slowest stage. So fp8 halves what a server
    # takes in, but where the node's egress or the gather binds (p5en-48) the round barely moves.
    quantize_s = 0.0 if rollout_precision == "bf16" else bf16 / (hardware.fp8_pack_gb_s * GB)
    transfer_s = max(wire / (ingress * GB), (wire + across) / (hardware.node_broadcast_gb_s * GB),
                     gather_s + quantize_s)
    publish = PublishCost(
        bytes=wire,
        buckets=buckets,
        rounds=math.ceil((servers or train_nodes) / train_nodes),
        servers=servers or train_nodes,
        stall_s=stall_s,
        gather_s=gather_s,
        transfer_s=transfer_s,
        overhead_s=buckets * BUCKET_OVERHEAD_S,
        load_s=architecture.tensors * LOAD_S_PER_TENSOR,
    )
    ckpt_bytes = 12 * params
    throughput = fsx_throughput_gb_s(fsx_storage_gib, fsx_mb_s_per_tib)
    checkpoint = CheckpointCost(
        bytes=ckpt_bytes,
        writer_nodes=max(holders // hardware.gpus_per_node, 1),
        stage_s=ckpt_bytes / holders / (hardware.d2h_gb_s * GB),
        write_s=ckpt_bytes / (throughput * GB),
        base_read_s=replicas * bf16 / (throughput * GB),
        broadcast_s=0.0 if replicas == 1 else ckpt_bytes / holders / (hardware.broadcast_gb_s * GB),
    )
    # keep_last complete ones plus the one being written, of each (exports in the rollout
    # servers' precision, payload/train/export.py); and the base model (and its FP8 copy the
    # servers start from, rollout.model_path).
    base = bf16 + (wire if rollout_precision == "fp8" else 0)
    needed = int(((keep_last + 1) * (ckpt_bytes + wire) + base) * FSX_HEADROOM)
    return Costs(
        architecture=architecture,
        train_nodes=train_nodes,
        publish=publish,
        checkpoint=checkpoint,
        export_bytes=wire,
        export_s=wire / (throughput * GB),
        fsx_throughput_gb_s=throughput,
        fsx_needed_bytes=needed,
    )



# WeightPublisher.Config.bucket_timeout_s: the most all dead rollout servers together may cost a publish.
BUCKET_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class DeadServerBound:
    """What dead rollout servers may cost a publish (payload/sync/publisher.py, fanout.py):
    at most `bucket_timeout_s` in all, however many servers die, on however many nodes.

    Every node's next bucket is a replica-wide all-gather, so whatever one node's leader waits
    for its own server, every node waits. The leader never waits for a server past:
      grace_s    bucket_timeout_s / (2 x servers): a bucket not taken this long after the
                 leader is ready to go on drops the server from the rest of the publish (its
                 broadcast is left in flight and aborted in the background bucket_timeout_s
                 after it started). A server is dropped at most once, and only its own node
                 waits for it, so all of them together cost the gathers <= servers x grace_s
                 = bucket_timeout_s / 2.
      control_s  bucket_timeout_s / (4 x rounds): each round's control phase before its first
                 bucket (probe, group, pause, begin) and after its last (end, version check,
                 continue), all calls of a phase sharing one deadline; a server not through by
                 then is dropped. Every leader runs its phases between the same two gathers, at
                 once, so nodes' phases overlap instead of adding: 2 x rounds x control_s =
                 bucket_timeout_s / 2.
    group_s: the server groups' NCCL timeout, 3 x bucket_timeout_s: a dropped broadcast is
    aborted bucket_timeout_s after it started (the trainer's side; the follower's within the
    others' graces of that), before the watchdog would take the trainer down with it.

    A new group's first bucket is not held to grace_s. Neither side creates the group's NCCL
    communicator when the group forms: SGLang 0.5.23's init_custom_process_group gets no
    device_id (weight_updater.py), so both create it lazily, inside the first broadcast:
    ncclCommInitRank across two nodes over EFA (bootstrap, topology, the OFI endpoints) takes
    seconds, against a 0.47 s grace at 235B. Held to grace_s, every server would be dropped in
    its first bucket, its group with it, and the next publish would form a new group and drop
    it again: no server would ever get a version. So the first bucket of a group is allowed
    first_bucket_s (bucket_timeout_s / 2). Forming the group (the TCP rendezvous, SGLang's side
    through its scheduler) is a phase of its own too, form_s (bucket_timeout_s / 2), not a
    share of control_s. A group forms once per server life (at start, after a restart or a
    drop), so this is what the first publish to a server adds, at most first_publish_s =
    rounds x (form_s + first_bucket_s).
    """

    bucket_timeout_s: float
    servers: int
    rounds: int

    @property
    def grace_s(self) -> float:
        return self.bucket_timeout_s / (2 * max(self.servers, 1))

    @property
    def control_s(self) -> float:
        return self.bucket_timeout_s / (4 * max(self.rounds, 1))

    @property
    def seconds(self) -> float:
        """All dead servers together: every server late once, every control phase at its deadline."""
        return self.servers * self.grace_s + 2 * self.rounds * self.control_s

    @property
    def group_s(self) -> float:
        return 3 * self.bucket_timeout_s

    @property
    def first_bucket_s(self) -> float:
        return self.bucket_timeout_s / 2

    @property
    def form_s(self) -> float:
        return self.bucket_timeout_s / 2

    @property
    def first_publish_s(self) -> float:
        return self.rounds * (self.form_s + self.first_bucket_s)

    def fanout_s(self, round_s: float) -> int:
        """The fan-out groups' timeout (payload/sync/fanout.py: the replica's gather, the node and
        leaders' groups): the longest a rank legitimately waits for a peer between two of their
        collectives is what all dead servers cost (`seconds`), forming a new group and its first
        bucket, and a round of live work; twice that, in whole 10 s."""
        return math.ceil(2 * (self.seconds + self.form_s + self.first_bucket_s + round_s) / 10) * 10


@dataclass(frozen=True)
class Timeouts:
    """Trainer timeouts that follow from the modeled work (seconds).

    stall: the phase watchdog and /healthz: longer than the slowest phase that only takes long
    (publish, export, waiting for the previous checkpoint write), never under 15 minutes.
    collective: the process groups' timeout: a collective that outlives the watchdog is dead.
    startup: the startup probe's window: a resume reads the base model and a checkpoint from FSx.
    grace: SIGTERM to SIGKILL: room for one checkpoint write when FSx is fast enough, else the
    last completed checkpoint stands (the trainer says which in its log).
    publish: the fan-out groups' timeout (DeadServerBound.fanout_s): dead servers cost a publish
    at most one bucket_timeout_s, so a peer is gone once it is that and a round of work late.
    The slowest phase counts a publish with that bound added.
    """

    stall_s: int
    collective_s: int
    startup_s: int
    grace_s: int
    publish_s: int = 0

    @classmethod
    def from_costs(cls, costs: Costs, minimum_stall_s: int = 900,
                   bucket_timeout_s: float = BUCKET_TIMEOUT_S) -> "Timeouts":
        dead = DeadServerBound(bucket_timeout_s, costs.publish.servers, costs.publish.rounds)
        slowest = max(costs.publish.seconds + dead.seconds + dead.first_publish_s, costs.export_s,
                      costs.checkpoint.write_s)
        stall = max(minimum_stall_s, math.ceil(2 * slowest / 60) * 60)
        write = costs.checkpoint.stage_s + costs.checkpoint.write_s
        grace = 120 if write * 1.25 <= 110 else min(600, math.ceil(write * 1.25 / 30) * 30 + 30)
        startup = max(900, math.ceil((2 * costs.checkpoint.resume_s + 300) / 60) * 60)
        return cls(stall_s=stall, collective_s=stall + 300, startup_s=startup, grace_s=grace,
                   publish_s=dead.fanout_s(costs.publish.pause_s))
