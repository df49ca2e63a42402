"""What one trainer step costs per GPU for a model and a parallel layout: memory, bytes per link,
compute and the pipeline bubble. Arithmetic only (no torch), printed by
`python -m payload plan --model`, which lists every layout that fits and picks the
cheapest (`choose_layout`).

TrainerLayout (payload.train.parallel, payload.train.pipeline): PP stages of whole nodes; in each,
EP size P (inside a node unless said), FSDP shard size S (P divides S), R replicas (HSDP);
every rank of a stage trains its own share of the step (data-parallel width W / PP).

Memory per GPU, for the costliest stage (estimate.stages splits layers by compute; the
first stage carries the embedding, the last the norm and LM head):
    master weights, gradients   4 B + 4 B per stage parameter / S  (FSDP2 shards, fp32)
    AdamW moments               8 B per stage parameter / S
    gathered for compute        bf16 of this rank's stage parameters (every dense one, its 1/P
                                of the experts) plus their fp32 unsharded gradients, held for
                                the step when gradients are reduced once per step (always
                                under PP: the pipeline stage reduces after its last backward);
                                two layers' worth when reduced every micro-batch
    activations                 per micro-batch, per token and layer
                                2 B × (6·D + (2·Hq + 4·Hkv)·hd + K·(2·D + 3·F)) for every layer
                                (one layer's plus a D-wide checkpoint per layer with activation
                                checkpointing), plus one 4096-row fp32 + bf16 LM-head chunk
                                (plus the micro-batch's bf16 logits, 2 B × vocab per token,
                                when model.lm_head_keep_logits keeps them);
                                under 1F1B the first stage holds min(PP, M) micro-batches'
                                checkpoints. (bench/train_step.py's 4-layer, 32 k-token run
                                measured 13 GiB beside its 46 GiB of state, this gives 18.)
    pipeline receive buffers    (PP > 1) payload.train.pipeline's ring: min(M, PP − i) activation
                                buffers on stage i > 0 and one gradient buffer on every stage
                                but the last, each T × D × 2 B (torch's own PipelineStage would
                                keep M of each: 21.9 GB a direction at p5en-48's 235B job)
    DeepEP buffer               (EP > 1) deepep_buffer_bytes: DeepEP's calculate_buffer_size
                                (csrc/elastic/buffer.hpp at dd758ca) for the largest micro-batch
    publish buffers             the fan-out's SLOTS gathered buckets plus the all-gather's receive
                                tensor (payload/sync/fanout.py), alive during the next step
    KL reference                (kl_coef > 0) its fp32 shards (4 B per stage parameter / S) and,
                                on the last stage, M micro-batches' fp32 reference logprobs
    routing-replay routes       (return_routed_experts) int64 [T, this stage's MoE layers, K] of
                                each micro-batch in flight (routes stay on the host otherwise)
    NCCL communicators          NCCL_COMMUNICATOR_GB each (assumed, see the constant)
    CUDA context                CUDA_CONTEXT_GB (bench/pipeline_memory.py measures it)
    fragmentation               FRAGMENTATION of the transient bytes (TRANSIENT_TERMS: gathered
                                bf16 weights, unsharded grads, activations, receive buffers,
                                routing routes — allocated and freed every step); the persistent
                                ones (sharded weights, grads, moments, publish buckets, the KL
                                reference) are allocated alike every step and reuse their blocks.
                                (max reserved − max allocated) / transient, expandable segments
                                off (bench/pipeline_memory.py measures it)

Bytes per GPU per step, counted as the library sends them, and the link they cross:
    EP all-to-all     DeepEP sends a token's hidden row (D bf16) once per destination rank
                      holding any of its K experts, and across nodes once per destination node
                      (then NVLink inside it): with E experts over P ranks, a token reaches
                      (P − 1)·(1 − C(E − E/P, K)/C(E, K)) other ranks on average (Qwen3-235B-A22B
                      at P 8: 4.6 of 7, where K·(P − 1)/P = 7 rows). 4 passes a layer
                      (dispatch and combine, forward and backward), 6 with activation
                      checkpointing.
    FSDP all-gather   (S − 1)/S of this rank's stage bf16 parameters once per step (held) or
                      twice per micro-batch, and the reduce-scatter of fp32 gradients once per
                      step or per micro-batch. Over S > G ranks (N = S/G nodes) the ring
                      crosses each node's NICs once: (N − 1)/N of the tensor per node, shared
                      by its G GPUs' NICs; the rest is NVLink.
    HSDP all-reduce   the fp32 gradient shard over the R replicas (ring: 2·(R − 1)/R of it),
                      once per step: the trainer defers it to the last micro-batch in both
                      modes (payload.train.step); EFA, each GPU over its own NIC.
    PP send / recv    each micro-batch's [T, D] bf16 activations forward and their gradient
                      backward, between stages on different nodes: EFA.
Seconds: bytes over one direction of the node's link (spec.hardware: p5en NVLink 450 GB/s a GPU
each way: an all-to-all and a ring both send and receive at once; EFA 50 GB/s a GPU), lower
bounds without overlap.
Compute: 3 × the forward FLOPs per token of the costliest stage (2 per parameter a token
meets, K of the E experts, plus the causal attention scores at the step's mean sample length),
at the GPU's training rate (spec.hardware GpuSpec.train_flop_s, the same the throughput model
uses: 35.7 % of its bf16 matmul peak, 277 TFLOP/s measured on an H200 with activation checkpointing, which
counts model FLOPs only, so the recomputed forward is in the rate, and so is the fused logprob
backward's second LM-head forward — when model.lm_head_keep_logits keeps the logits that one
LM-head forward per token comes off the last stage; its "auto" keeps them where they fit, see
keeps_logits); under PP every micro-batch
runs padded to the longest (the largest micro-batch over the mean one). The bubble is 1F1B's
(PP − 1)/(M + PP − 1) of the pipelined time. A layout's step estimate is
compute / (1 − bubble) + NVLink s + EFA s (no overlap counted: a ranking, not a forecast).
"""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass
from typing import NamedTuple

from estimate.partition import balanced_partition, first_fit_bins
from estimate.stages import layer_costs, split_layers
from spec.hardware import InstanceSpec
from spec.job import PUBLISH_BUCKET_MB
from spec.layout import TrainerLayout

LM_HEAD_CHUNK_ROWS = 4096
# A layout fits when its modeled memory, every term counted (fragmentation, NCCL, DeepEP, the
# CUDA context and the publish buffers are terms of their own), stays within this fraction of
# the GPU's nominal memory (141 for an H200, which exposes 150e9 B). Kept at 90% with every term
# counted: the 10% (14 GB on an H200) is the margin for the activation model and the assumed NCCL
# figure (not measured); bench/pipeline_memory.py put the allocated peak at 0.97 / 0.97 / 1.03
# of the model on stages 0 / 1 / 3 (H100, 2026-12-07) and FRAGMENTATION is the largest share
# measured, so the margin is not spent twice over.
FIT_FRACTION = 0.9

# Publishing (payload/sync): the fan-out keeps PUBLISH_SLOTS gathered buckets alive at once
# (being pulled, held back, being broadcast: payload/sync/fanout.py runs this number) plus the
# all-gather's receive tensor (one bucket) on every trainer GPU while the next step runs; a
# bucket is the job's rollout.publish_bucket_mb.
PUBLISH_SLOTS = 3
# NCCL's own device memory per communicator: NCCL_BUFFSIZE (4 MiB default) per channel and
# connected peer, both directions, plus its work FIFO; an assumption (~0.3 GB for the rings and
# P2P connections of an 8-GPU NVLink node), not measured here: one GPU has no peers.
NCCL_COMMUNICATOR_GB = 0.3
# Communicators a trainer rank holds: the world, its stage, pipeline, EP, FSDP shard and replica
# groups (payload.train.parallel.init_world), DeepEP's own, and the publish's gather and node groups.
NCCL_COMMUNICATORS = 9
# The CUDA context, cuBLAS workspaces and loaded kernels: device memory outside torch's
# allocator (mem_get_info's used minus memory_reserved): 1.234 GB measured by
# bench/pipeline_memory.py on an H200 (torch 2.11), 2026-12-06.
CUDA_CONTEXT_GB = 1.23
# Allocator fragmentation (expandable segments off: k8s/pods.py gpu_security says why), as a
# fraction of the transient bytes (TRANSIENT_TERMS), the ones allocated and freed every step:
# the largest non-releasable share bench/pipeline_memory.py measured, on an H100 80GB (torch
# 2.11), 2026-12-07, PP 4 at 235B's shapes, warm-up step first: stages 0 / 1 / 3 read 0.47 /
# 0.58 / 0.39 (inactive split blocks over transient bytes). Non-releasable is the part that
# counts: before raising OOM the caching allocator frees every whole cached segment and retries
# (reserved minus allocated read 1.19 / 0.69 / 0.82, mostly such segments; the H200 run of
# 2026-12-06 read the same 1.19 on stage 0), but a free block split inside a used segment
# cannot be handed back. Measured at reduced scale (2 layers a stage, 4,096-token micro-batches):
# the share may differ at full scale, which is why FIT_FRACTION keeps a margin beside it.
FRAGMENTATION = 0.58
# DeepEP v2 (deep_ep/include/deep_ep/common/ptx.cuh kNumTMAAlignBytes, csrc/elastic/buffer.hpp
# kNumMaxChannels = 8 channels/SM x 160 SMs, kernels/backend/symmetric.hpp kNumAlignmentBytes).
DEEPEP_ALIGN = 32
DEEPEP_MAX_CHANNELS = 8 * 160
DEEPEP_BUFFER_ALIGN = 2 << 20


def _align(n: int, to: int) -> int:
    return (n + to - 1) // to * to


def deepep_buffer_bytes(max_tokens: int, hidden: int, top_k: int, ranks: int, gpus_per_node: int) -> int:
    """DeepEP v2's ElasticBuffer size in bytes: `calculate_buffer_size` (deepseek-ai/DeepEP dd758ca,
    csrc/elastic/buffer.hpp:652) with its defaults (bf16 dispatch, allow_hybrid_mode and
    allow_multiple_reduction on), scale-up over NVLink inside a node and scale-out over
    ranks / gpus_per_node nodes; the larger of the dispatch and combine layouts, 2 MiB aligned.
    A token's bytes: TokenLayout (deep_ep/include/deep_ep/common/layout.cuh) — the hidden row,
    and K × (4 + 4) B of top-k ids and weights (+ (1 + K) × 4 B of source metadata on dispatch),
    each 32-B aligned."""
    hidden_b = _align(hidden * 2, DEEPEP_ALIGN)
    dispatch_tok = hidden_b + _align(top_k * 8 + (1 + top_k) * 4, DEEPEP_ALIGN)
    combine_tok = hidden_b + _align(top_k * 8, DEEPEP_ALIGN)
    up = min(ranks, gpus_per_node)
    out = max(1, ranks // gpus_per_node)
    t = max_tokens
    if out == 1:  # direct: receive from every rank (sends over NVLink need no buffer)
        dispatch = dispatch_tok * ranks * t
        combine = combine_tok * min(ranks, top_k) * t
    else:  # hybrid: scale-up receive, scale-out send and receive
        dispatch = dispatch_tok * (up * out * t + t + out * (t + DEEPEP_MAX_CHANNELS))
        combine = combine_tok * (min(up, top_k) * out * t + out * (t + DEEPEP_MAX_CHANNELS)
                                 + min(out, top_k) * t)
    return _align(max(dispatch, combine), DEEPEP_BUFFER_ALIGN)


@dataclass(frozen=True)
class Residents:
    """What the job keeps on a trainer GPU besides the model and the step (the defaults: a
    plain GRPO job publishing with payload/sync's defaults over DeepEP)."""

    kl_reference: bool = False  # algorithm.kl_coef > 0: a second model's shards
    routing_replay: bool = False  # rollout.return_routed_experts: routes per micro-batch
    publish_bucket_bytes: int = PUBLISH_BUCKET_MB << 20  # 0: no publish buffers
    publish_precision: str = "bf16"  # rollout.precision: fp8 packs a quantized copy of each bucket
    deepep: bool = True  # EP > 1 dispatches through DeepEP's buffer (all_to_all: no buffer)

    @classmethod
    def of(cls, job) -> "Residents":
        # auto counts the routes: the layout is chosen before auto is decided (a megabyte or so).
        return cls(kl_reference=job.algorithm.kl_coef > 0, routing_replay=job.rollout.return_routed_experts is not False,
                   publish_bucket_bytes=job.rollout.publish_bucket_bytes, publish_precision=job.rollout.precision, deepep=job.parallel.ep_backend in ("auto", "deepep"))


class Traffic(NamedTuple):
    """One kind of bytes a GPU moves in a step."""

    link: str  # "NVLink" or "EFA"
    gb: float  # per GPU per step
    # What moves: "ep" (all-to-all, per token), "fsdp" (gathers and reduce-scatters, per
    # parameter), "hsdp" (the replicas' all-reduce) or "pp" (stage activations): what overlaps what
    # in the throughput model (estimate.throughput.trainer_estimate), whatever the label says.
    kind: str


@dataclass(frozen=True)
class StepShape:
    tokens: int  # every sample's prompt + response tokens in one step (all ranks)
    largest_micro_batch: int  # tokens
    micro_batches: int = 0  # per data-parallel rank, as the packer makes them (0: tokens / budget)
    mean_sample_tokens: int = 4096


@dataclass(frozen=True)
class Footprint:
    params: float
    expert_params: float
    memory_gb: dict[str, float]
    traffic_gb: dict[str, Traffic]  # label -> what it moves
    compute_s: float = 0.0
    bubble: float = 0.0
    micro_batches: int = 0
    # model.lm_head_keep_logits: the GB per GPU the last stage's kept logits take (whether or not
    # the switch is on) and the seconds of LM-head recompute a step it removes.
    logits_gb: float = 0.0
    logits_recompute_s: float = 0.0
    keeps_logits: bool = False  # whether memory_gb and compute_s count them kept
    # The node's links (spec.hardware): NVLink one direction a GPU, EFA a GPU's share; bytes/s.
    nvlink_bytes_per_s: float = 0.0
    efa_bytes_per_s: float = 0.0

    @property
    def memory_total_gb(self) -> float:
        return sum(self.memory_gb.values())

    def link_gb(self, link: str) -> float:
        return sum(t.gb for t in self.traffic_gb.values() if t.link == link)

    def link_seconds(self, link: str) -> float:
        return self.link_gb(link) * 1e9 / (self.nvlink_bytes_per_s if link == "NVLink" else self.efa_bytes_per_s)

    @property
    def step_s(self) -> float:
        return self.compute_s / (1 - self.bubble) + self.link_seconds("NVLink") + self.link_seconds("EFA")


def parameter_counts(config) -> tuple[float, float, float]:
    """(all parameters, expert parameters, one decoder layer's dense parameters) of a Qwen3MoeConfig."""
    d = config.hidden_size
    attention = _attention_params(config)
    moe_layers = sum(config.is_moe_layer(i) for i in range(config.num_hidden_layers))
    dense_layers = config.num_hidden_layers - moe_layers
    experts = moe_layers * config.num_experts * 3 * d * config.moe_intermediate_size
    routers = moe_layers * config.num_experts * d
    mlps = dense_layers * 3 * d * config.intermediate_size
    embeddings = config.vocab_size * d * (1 if config.tie_word_embeddings else 2)
    total = config.num_hidden_layers * attention + experts + routers + mlps + embeddings + d
    return total, experts, attention + config.num_experts * d


def _attention_params(config) -> int:
    d, hd = config.hidden_size, config.head_dim
    return d * hd * (2 * config.num_attention_heads + 2 * config.num_key_value_heads) + 2 * hd + 2 * d


def _stage_params(config, layers: range, first: bool, last: bool) -> tuple[float, float, int]:
    """(dense, expert parameters, MoE layers) of one pipeline stage."""
    d = config.hidden_size
    dense = experts = 0.0
    moe = 0
    for i in layers:
        dense += _attention_params(config)
        if config.is_moe_layer(i):
            experts += config.num_experts * 3 * d * config.moe_intermediate_size
            dense += config.num_experts * d
            moe += 1
        else:
            dense += 3 * d * config.intermediate_size
    if first:
        dense += config.vocab_size * d
    if last:
        dense += d + (0 if config.tie_word_embeddings else config.vocab_size * d)
    return dense, experts, moe


def remote_destinations(experts: int, top_k: int, groups: int) -> float:
    """Other groups (ranks, or nodes) out of `groups`, each holding experts / groups experts,
    that a token routed to `top_k` distinct experts uniformly at random reaches, on average."""
    if groups <= 1:
        return 0.0
    per = experts // groups
    none = math.comb(experts - per, top_k) / math.comb(experts, top_k)
    return (groups - 1) * (1 - none)


def footprint(config, layout: TrainerLayout, shape: StepShape, node: InstanceSpec,
              residents: Residents | None = None, stage: int | None = None) -> Footprint:
    """`stage`: that stage's memory (bench/pipeline_memory.py) instead of the costliest one's."""
    residents = residents or Residents()
    total, experts_total, _ = parameter_counts(config)
    p, s, g, r, pp = layout.expert_parallel, layout.shard, layout.gpus_per_node, layout.replicas, layout.pipeline
    d, k, f = config.hidden_size, config.num_experts_per_tok, config.moe_intermediate_size
    ranges = split_layers(config, pp, shape.mean_sample_tokens)
    stages = [_stage_params(config, rng, i == 0, i == pp - 1) for i, rng in enumerate(ranges)]
    tokens_per_gpu = shape.tokens / layout.data_parallel
    m = shape.micro_batches or max(1, math.ceil(tokens_per_gpu / max(shape.largest_micro_batch, 1)))
    per_step = layout.per_step_sync or pp > 1
    act_per_token_layer = 2 * (6 * d + (2 * config.num_attention_heads + 4 * config.num_key_value_heads) * config.head_dim
                               + k * (2 * d + 3 * f))
    t = shape.largest_micro_batch

    def memory_of(index: int) -> dict[str, float]:
        dense, experts, _ = stages[index]
        layers = len(ranges[index])
        local = dense + experts / p  # what this rank computes with, gathered
        in_flight = min(pp - index, m)  # 1F1B: stage i holds PP - i micro-batches' inputs
        if layout.activation_checkpointing:
            activations = t * (act_per_token_layer + in_flight * layers * 2 * d)
        else:
            activations = t * act_per_token_layer * layers * in_flight
        if index == pp - 1:
            activations += LM_HEAD_CHUNK_ROWS * config.vocab_size * 6
            if config.lm_head_keep_logits:  # the micro-batch's logits held for backward (bf16)
                activations += t * config.vocab_size * 2
        gathered = local * (2 + 4) if per_step else 2 * local / max(layers, 1) * (2 + 4)
        terms = {
            "weights fp32 (sharded)": 4 * (dense + experts) / s,
            "gradients fp32 (sharded)": 4 * (dense + experts) / s,
            "AdamW moments fp32 (sharded)": 8 * (dense + experts) / s,
            "gathered bf16 weights + unsharded grads": gathered,
            f"activations ({t:,}-token micro-batch x {in_flight})": activations,
        }
        terms.update(resident_terms(config, layout, residents, index, ranges[index], stages[index], t, m))
        return with_overheads(terms, layout, residents)

    # The stage whose memory is largest sets the layout's (its traffic is computed alike).
    index = stage if stage is not None else max(range(pp), key=lambda i: sum(memory_of(i).values()))
    memory = memory_of(index)
    dense, experts, moe_layers = stages[index]
    stage_params, local = dense + experts, dense + experts / p
    syncs = 1 if per_step else m
    gathers = 1 if per_step else 2 * m
    passes = 6 if layout.activation_checkpointing else 4
    row_pass = tokens_per_gpu * d * 2 * passes * moe_layers  # one D-wide bf16 row per token, every pass and layer
    traffic: dict[str, Traffic] = {}
    e = config.num_experts
    if p > g:  # explicit cross-node EP: one copy per other node over EFA, then per rank inside nodes
        traffic["EP all-to-all (in node)"] = Traffic("NVLink", row_pass * remote_destinations(e // (p // g), k, g) / 1e9, "ep")
        traffic["EP all-to-all (across nodes)"] = Traffic("EFA", row_pass * remote_destinations(e, k, p // g) / 1e9, "ep")
    elif p > 1:
        traffic["EP all-to-all"] = Traffic("NVLink", row_pass * remote_destinations(e, k, p) / 1e9, "ep")
    fsdp = (gathers * 2 + syncs * 4) * local * (s - 1) / s
    if s > g:
        n = s // g
        across = (gathers * 2 + syncs * 4) * local * (n - 1) / n / g
        traffic["FSDP gather + reduce-scatter (in node)"] = Traffic("NVLink", (fsdp - across) / 1e9, "fsdp")
        traffic["FSDP gather + reduce-scatter (across nodes)"] = Traffic("EFA", across / 1e9, "fsdp")
    elif s > 1:
        traffic["FSDP gather + reduce-scatter"] = Traffic("NVLink", fsdp / 1e9, "fsdp")
    if r > 1:
        traffic["HSDP gradient all-reduce (once a step)"] = Traffic("EFA", 4 * stage_params / s * 2 * (r - 1) / r / 1e9, "hsdp")
    if pp > 1:
        traffic["PP activations + their gradients"] = Traffic("EFA", 2 * tokens_per_gpu * d * 2 / 1e9, "pp")

    embedding, layer_flops, head = layer_costs(config, shape.mean_sample_tokens)
    # Forward + backward = 3 forwards; the measured rate already pays for the recomputed ones,
    # the LM head's logits among them (payload/model/logprobs.py) unless the job keeps them.
    padding = max(1.0, shape.largest_micro_batch / (tokens_per_gpu / m)) if pp > 1 else 1.0  # PP pads to the longest
    keep = config.lm_head_keep_logits
    stage_flops = max(3 * (sum(layer_flops[i] for i in rng) + (embedding if i == 0 else 0) + (head if i == pp - 1 else 0))
                      - (head if keep and i == pp - 1 else 0) for i, rng in enumerate(ranges))
    flop_s = node.gpu_spec.train_flop_s
    compute_s = tokens_per_gpu * stage_flops / flop_s * padding
    recompute_s = tokens_per_gpu * head / flop_s * padding
    bubble = (pp - 1) / (m + pp - 1)
    return Footprint(total, experts_total, {k_: v / 1e9 for k_, v in memory.items()}, traffic, compute_s, bubble, m,
                     logits_gb=t * config.vocab_size * 2 * (1 + FRAGMENTATION) / 1e9, logits_recompute_s=recompute_s, keeps_logits=keep,
                     nvlink_bytes_per_s=node.gpu_spec.nvlink_gb_s * 1e9, efa_bytes_per_s=node.efa_gb_s_per_gpu * 1e9)


# Terms outside torch's caching allocator (no fragmentation on them).
OUTSIDE_ALLOCATOR = ("DeepEP buffer", "NCCL communicators", "CUDA context")
# Terms allocated and freed every step (name prefixes): fragmentation is FRAGMENTATION of these.
TRANSIENT_TERMS = ("gathered bf16 weights + unsharded grads", "activations", "pipeline receive buffers",
                   "routing-replay routes")


def transient_bytes(terms: dict[str, float]) -> float:
    return sum(v for name, v in terms.items() if name.startswith(TRANSIENT_TERMS))

def resident_terms(config, layout: TrainerLayout, residents: Residents, index: int, layers: range,
                   stage: tuple[float, float, int], t: int, m: int) -> dict[str, float]:
    """Bytes stage `index` keeps beside its model state and activations (module docstring)."""
    d, k, pp = config.hidden_size, config.num_experts_per_tok, layout.pipeline
    dense, experts, moe_layers = stage
    terms: dict[str, float] = {}
    if pp > 1:
        activations = 0 if index == 0 else min(m, pp - index)
        gradients = 0 if index == pp - 1 else 1
        terms[f"pipeline receive buffers ({activations} + {gradients})"] = (activations + gradients) * t * d * 2
    if residents.kl_reference:
        terms["KL reference (fp32 shards, logprobs)"] = (4 * (dense + experts) / layout.shard
                                                         + (m * t * 4 if index == pp - 1 else 0))
    if residents.routing_replay:
        in_flight = min(pp - index, m) if pp > 1 else 1
        terms["routing-replay routes (int64)"] = in_flight * t * moe_layers * k * 8
    if residents.publish_bucket_bytes:
        terms[f"publish buffers ({PUBLISH_SLOTS} + 1 buckets)"] = publish_buffer_bytes(
            residents.publish_bucket_bytes, layout.shard, residents.publish_precision)
    if residents.deepep and layout.expert_parallel > 1:
        terms["DeepEP buffer"] = deepep_buffer_bytes(t, d, k, layout.expert_parallel, layout.gpus_per_node)
    return terms


def publish_buffer_bytes(bucket_bytes: int, shard: int, precision: str = "bf16") -> float:
    """A trainer GPU's device bytes while it publishes (payload/sync/fanout.py _assembled): the
    PUBLISH_SLOTS gathered buckets, the all-gather's receive tensor (a bucket) and its own share
    sent into it (a bucket over the `shard` ranks of the replica's gather); with fp8, the
    gathered bucket's block-FP8 copy packed for the wire (a byte a parameter, half a bucket).
    tests/payload/sync/test_sync_publish_memory_gpu.py measures it (H100: 1.000 of this)."""
    fp8_copy = bucket_bytes / 2 if precision == "fp8" else 0.0
    return (PUBLISH_SLOTS + 1) * bucket_bytes + bucket_bytes / shard + fp8_copy


def with_overheads(terms: dict[str, float], layout: TrainerLayout, residents: Residents) -> dict[str, float]:
    """`terms` plus NCCL's communicators, the CUDA context and the allocator's fragmentation (of
    the transient terms)."""
    communicators = NCCL_COMMUNICATORS - (0 if residents.deepep and layout.expert_parallel > 1 else 1)
    return terms | {
        "NCCL communicators": communicators * NCCL_COMMUNICATOR_GB * 1e9,
        "CUDA context": CUDA_CONTEXT_GB * 1e9,
        f"fragmentation ({FRAGMENTATION:.0%} of the transient)": FRAGMENTATION * transient_bytes(terms),
    }

def keeps_logits(setting: bool | str, recomputing: Footprint, gpu_memory_gb: float) -> bool:
    """model.lm_head_keep_logits resolved for one layout: true and false as set; "auto" keeps the
    logits when the layout's modeled memory (`recomputing`: its footprint without them) plus one
    micro-batch's logits stays within FIT_FRACTION of the GPU — the rule layouts are fitted by."""
    if setting == "auto":
        return recomputing.memory_total_gb + recomputing.logits_gb <= FIT_FRACTION * gpu_memory_gb
    return bool(setting)


def footprint_as_set(config, layout: TrainerLayout, shape: StepShape, setting: bool | str, node: InstanceSpec,
                     gpu_memory_gb: float | None = None, residents: Residents | None = None) -> Footprint:
    """The footprint on `node` with model.lm_head_keep_logits resolved (`keeps_logits`) against
    its GPU's memory (or `gpu_memory_gb`, what a device reports)."""
    recomputing = footprint(config.replace(lm_head_keep_logits=False), layout, shape, node, residents)
    if not keeps_logits(setting, recomputing, gpu_memory_gb or node.gpu_memory_gb):
        return recomputing
    return footprint(config.replace(lm_head_keep_logits=True), layout, shape, node, residents)


def device_memory_gb(total_bytes: int) -> float:
    """A GPU's memory as the instance table states it (cluster/instance_types' gpu_memory_gb, the
    nominal figure: 141 for an H200, 80 for an H100) from the bytes the device reports (an H200:
    150.0e9 = 139.7 GiB): GiB, within 1.5% below the nominal, so the trainer's "auto" decisions
    agree with `payload plan`'s (tests/payload/train/test_train_footprint.py)."""
    return total_bytes / 2**30


def trainer_keeps_logits(job, config, layout: TrainerLayout, node: InstanceSpec, gpu_memory_gb: float | None) -> tuple[bool, str]:
    """What the trainer runs with for job.model.lm_head_keep_logits under `layout` on `node`'s GPUs
    of `gpu_memory_gb` (None: not on GPUs), and a line saying why (the trainer logs it)."""
    setting = job.model.lm_head_keep_logits
    if setting != "auto":
        return bool(setting), f"model.lm_head_keep_logits: {'kept' if setting else 'recomputed'} (set in the job)"
    if gpu_memory_gb is None:  # the switch trades GPU memory for GPU time; on CPUs there is neither to weigh
        return False, "model.lm_head_keep_logits auto: recomputed (not on a GPU)"
    shape = step_shape(job, layout.data_parallel, pipelined=layout.pipeline > 1)
    recomputing = footprint(config.replace(lm_head_keep_logits=False), layout, shape, node, Residents.of(job))
    keep = keeps_logits(setting, recomputing, gpu_memory_gb)
    return keep, (f"model.lm_head_keep_logits auto: {'kept' if keep else 'recomputed'} (modeled "
                  f"{recomputing.memory_total_gb:.1f} GB + {recomputing.logits_gb:.1f} GB of logits a GPU against "
                  f"{FIT_FRACTION:.0%} of {gpu_memory_gb:.0f} GB)")


def packed_micro_batches(samples: list[int], ranks: int, budget: int) -> int:
    """Micro-batches per rank as the trainer makes them: samples split over the ranks by
    tokens (balanced_partition), each rank's packed first-fit decreasing by the budget, and
    every rank takes the count of the one that needs the most (payload.train.batch)."""
    return _packing(tuple(samples), ranks, budget)[0]


@functools.lru_cache(maxsize=64)
def _packing(samples: tuple[int, ...], ranks: int, budget: int) -> tuple[int, int]:
    """(micro-batches per rank, the longest micro-batch any rank makes). Each rank's share is
    split into that many near-equal parts (payload.train.batch.pack_micro_batches), whose
    longest is the longer of its longest sample and the mean part: the partition lands within a
    fraction of a percent of equal (tests/payload/train/test_train_partition.py)."""
    shares = [[samples[i] for i in part] for part in balanced_partition(list(samples), ranks)]
    count = max(first_fit_bins(share, budget) for share in shares)
    longest = max(max(max(share, default=0), math.ceil(sum(share) / count)) for share in shares)
    return count, longest


def pipeline_budget(job) -> int:
    """The token budget pipelined micro-batches are packed to: at least the longest sample,
    so the near-equal parts leave little padding to the step's longest (payload.train.pipeline)."""
    return max(job.batch.micro_batch_tokens, job.batch.max_prompt_tokens + job.batch.max_response_tokens)


def step_shape(job, data_parallel: int, seed: int = 0, pipelined: bool = False) -> StepShape:
    """A step of the job: prompts at their cap, responses uniform up to theirs (mean half, the
    planner's default), packed as the trainer packs them."""
    b = job.batch
    budget = pipeline_budget(job) if pipelined else b.micro_batch_tokens
    return _step_shape(b.prompts_per_step * job.algorithm.group_size, b.max_prompt_tokens, b.max_response_tokens,
                       b.packing, budget, b.micro_batch_size, data_parallel, seed)


@functools.lru_cache(maxsize=64)
def _step_shape(samples_per_step: int, max_prompt_tokens: int, max_response_tokens: int, packing: bool,
                micro_batch_tokens: int, micro_batch_size: int, data_parallel: int, seed: int) -> StepShape:
    rng = random.Random(seed)
    samples = [max_prompt_tokens + rng.randint(1, max_response_tokens) for _ in range(samples_per_step)]
    longest = max_prompt_tokens + max_response_tokens
    if packing:
        count, largest = _packing(tuple(samples), data_parallel, micro_batch_tokens)
    else:
        largest = micro_batch_size * longest
        count = math.ceil(math.ceil(len(samples) / data_parallel) / micro_batch_size)
    # The stage split weighs attention at the mean the trainer splits with (payload.train.pipeline).
    return StepShape(sum(samples), largest, count, max_prompt_tokens + max_response_tokens // 2)


def job_footprint(config, environment) -> tuple[TrainerLayout, StepShape, Footprint]:
    """The footprint of `config` under an environment's resolved trainer layout."""
    train = environment.pools.train
    layout = environment.layout.trainer
    shape = step_shape(environment.job, layout.data_parallel, pipelined=layout.pipeline > 1)
    setting = environment.job.model.lm_head_keep_logits
    return layout, shape, footprint_as_set(config, layout, shape, setting, train.spec,
                                           residents=Residents.of(environment.job))


def candidate_layouts(config, nodes: int, gpus_per_node: int, activation_checkpointing: bool = True,
                      expert_parallel: tuple[int, ...] | None = None) -> list[TrainerLayout]:
    """Every layout the trainer runs on `nodes` nodes: PP over whole nodes (dividing the node
    count, at most the layers), EP inside a node (or across two, with DeepEP; `expert_parallel`:
    these sizes instead), FSDP shard over whole EP groups and whole nodes of a stage, gradients
    once per step or (PP 1) every micro-batch."""
    layouts = []
    for pp in range(1, nodes + 1):
        if nodes % pp or pp > config.num_hidden_layers:
            continue
        stage_ranks = nodes // pp * gpus_per_node
        for ep in expert_parallel or (gpus_per_node, 2 * gpus_per_node):
            if config.num_experts % ep or ep > stage_ranks:
                continue
            shard = ep
            while shard <= stage_ranks:
                if stage_ranks % shard == 0:
                    for per_step in ((True, False) if pp == 1 else (True,)):
                        layouts.append(TrainerLayout(nodes, gpus_per_node, ep, shard, per_step, activation_checkpointing, pp))
                shard *= 2
    return layouts


def plan_layouts(config, job, nodes: int, gpus_per_node: int, node: InstanceSpec, gpu_memory_gb: float | None = None,
                 candidates: list[TrainerLayout] | None = None):
    """(every candidate with its footprint on `node`'s GPUs and links, the ones that fit its GPU's
    memory (or `gpu_memory_gb`), the cheapest that fits or None); candidates: default every
    layout the trainer runs on the nodes (candidate_layouts)."""
    gpu_memory_gb = gpu_memory_gb or node.gpu_memory_gb
    rows = []
    if candidates is None:
        candidates = candidate_layouts(config, nodes, gpus_per_node, job.model.activation_checkpointing)
    residents = Residents.of(job)
    for layout in candidates:
        shape = step_shape(job, layout.data_parallel, pipelined=layout.pipeline > 1)
        rows.append((layout, shape, footprint(config, layout, shape, node, residents)))
    fitting = [row for row in rows if row[2].memory_total_gb <= FIT_FRACTION * gpu_memory_gb]
    fitting.sort(key=lambda row: row[2].step_s)
    return rows, fitting, (fitting[0] if fitting else None)


def print_footprint(name: str, environment, layout: TrainerLayout, shape: StepShape, fp: Footprint, out) -> None:
    print(f"\nTrainer footprint: {name} ({fp.params / 1e9:.1f} B parameters, {fp.expert_params / 1e9:.1f} B in experts) on "
          f"{environment.name}: {layout.nodes} x {layout.gpus_per_node} GPUs, PP {layout.pipeline}, EP "
          f"{layout.expert_parallel}, FSDP shard {layout.shard}, {layout.replicas} HSDP replica(s), gradients reduced "
          f"{'once per step' if layout.per_step_sync or layout.pipeline > 1 else 'every micro-batch'}, "
          f"activation checkpointing {'on' if layout.activation_checkpointing else 'off'}", file=out)
    print("  memory per GPU", file=out)
    for what, gb in fp.memory_gb.items():
        print(f"    {what:<48} {gb:8.1f} GB", file=out)
    print(f"    {'total':<48} {fp.memory_total_gb:8.1f} GB", file=out)
    print(f"  bytes per GPU per step ({shape.tokens:,} tokens a step, {fp.micro_batches} micro-batches a rank)", file=out)
    for what, (link, gb, _) in fp.traffic_gb.items():
        print(f"    {what:<48} {gb:8.1f} GB  {link}", file=out)
    for link in ("NVLink", "EFA"):
        print(f"    {link + ' total':<48} {fp.link_gb(link):8.1f} GB  >= {fp.link_seconds(link):.1f} s", file=out)
    gpu = environment.pools.train.spec.gpu_spec
    print(f"  compute {fp.compute_s:.0f} s at {gpu.train_flop_s / 1e12:.0f} TFLOP/s ({gpu.train_mfu:.1%} MFU of "
          f"{gpu.matmul_tflops:.0f}), 1F1B bubble {100 * fp.bubble:.1f} %, "
          f"ranking cost {fp.step_s:.0f} s (no overlap counted: it orders layouts; the step to budget is above)", file=out)
    limit = FIT_FRACTION * environment.pools.train.spec.gpu_memory_gb
    setting = environment.job.model.lm_head_keep_logits
    name = f"model.lm_head_keep_logits {str(setting).lower()}:"
    if fp.keeps_logits:
        print(f"  {name} kept (counted above: {fp.logits_gb:.1f} GB, {fp.memory_total_gb:.1f} of {limit:.0f} GB; "
              f"{fp.logits_recompute_s:.1f} s of LM-head recompute saved a step)", file=out)
    elif fp.memory_total_gb + fp.logits_gb <= limit:
        print(f"  {name} recomputed; keeping them would fit ({fp.memory_total_gb + fp.logits_gb:.1f} of {limit:.0f} GB) "
              f"and save {fp.logits_recompute_s:.1f} s a step", file=out)
    else:
        print(f"  {name} recomputed; keeping them would not fit (+{fp.logits_gb:.1f} GB: "
              f"{fp.memory_total_gb + fp.logits_gb:.1f} of {limit:.0f} GB)", file=out)


def print_layouts(name: str, environment, config, out) -> TrainerLayout | None:
    """Every layout of the environment's train pool that fits `config`, cheapest first; returns
    the cheapest (None when nothing fits)."""
    train = environment.pools.train
    gpu_gb = train.spec.gpu_memory_gb
    rows, fitting, best = plan_layouts(config, environment.job, train.desired_size, train.spec.gpus, train.spec)
    print(f"\nLayouts for {name} on {environment.name} ({train.desired_size} x {train.spec.gpus} GPUs of {gpu_gb:.0f} GB; "
          f"fits: <= {FIT_FRACTION * gpu_gb:.0f} GB modeled): {len(fitting)} of {len(rows)} fit", file=out)
    print(f"  {'layout':<58} {'GB/GPU':>7} {'NVLink GB':>10} {'s':>6} {'EFA GB':>8} {'s':>6} {'M':>5} {'bubble':>7} "
          f"{'compute s':>9} {'step s':>7}", file=out)
    for layout, _, fp in fitting:
        mark = "  <- picked" if best is not None and layout == best[0] else ""
        print(f"  {layout.describe():<58} {fp.memory_total_gb:7.1f} {fp.link_gb('NVLink'):10.0f} "
              f"{fp.link_seconds('NVLink'):6.1f} {fp.link_gb('EFA'):8.1f} {fp.link_seconds('EFA'):6.1f} {fp.micro_batches:5d} "
              f"{100 * fp.bubble:6.1f}% {fp.compute_s:9.0f} {fp.step_s:7.0f}{mark}", file=out)
    limit = FIT_FRACTION * gpu_gb
    if best is not None:
        picked = best[2]
        faster = sorted((row for row in rows if row[2].step_s < picked.step_s and row not in fitting),
                        key=lambda row: row[2].step_s)
        bound = "memory (faster layouts do not fit)" if faster else "step time (no faster layout exists)"
        print(f"  bound: {bound}. The pick models {picked.memory_total_gb:.1f} of {limit:.0f} GB; "
              f"its largest terms: {largest_terms(picked)}", file=out)
        for layout, _, fp in faster[:3]:
            print(f"    faster but does not fit: {layout.describe()} ({fp.step_s:.0f} s): {fp.memory_total_gb:.1f} GB, "
                  f"largest terms: {largest_terms(fp)}", file=out)
    return None if best is None else best[0]


def largest_terms(fp: Footprint, count: int = 3) -> str:
    return ", ".join(f"{name} {gb:.1f}" for name, gb in sorted(fp.memory_gb.items(), key=lambda kv: -kv[1])[:count])
