"""Pipeline parallelism (torch.distributed.pipelining, as torchtitan uses it) composed with
expert parallelism inside a node and FSDP2/HSDP inside each stage.

Layout: W ranks = PP stages × (R replicas × S shard ranks), S = (S / P) edp × P ep, and

    rank = stage · (W / PP) + replica · S + edp_shard · P + ep_rank     (payload.train.parallel)

so a stage is a block of whole nodes: the token all-to-all of its MoE layers and its FSDP
all-gather / reduce-scatter stay on its own nodes' NVLink (and, for S over two nodes, each
node's NICs), and only activations cross between stages (one [T, D] bf16 tensor per micro-batch
forward, its gradient backward: 2 · T · D · 2 B, 67 MB for a 4,096-D, 4,096-token micro-batch).
The W / PP ranks of a stage each train their own share of the step's samples; the PP ranks
with the same position in every stage form one pipeline and see the same micro-batches.

Stages are contiguous layer ranges balanced by compute (`split_layers`): a decoder layer costs
its forward FLOPs per token (attention projections, the K routed experts, the attention scores
at the step's mean sample length), the first stage also the embedding (a row gather: bytes,
no FLOPs, counted as its read time in FLOP-equivalents) and the last the LM head with the fused
logprob (2 · D · V per token: Qwen3-235B-A22B's is 2.4 decoder layers, so the last stage gets
fewer layers). Module names are the full model's (`model.layers.17....`), so checkpoints (DCP),
the HF export and publishing see each stage's tensors under their own names.

Schedule: 1F1B (`Schedule1F1B`). Its bubble is (PP − 1) / (M + PP − 1) of the step for M
micro-batches per pipeline; the packer makes M = tokens per data-parallel rank / token budget,
145 at p5en-48's Qwen3-235B-A22B job (PP 4: 2.0 %). Interleaved 1F1B divides the bubble by
its v stages per rank for v× the stage-to-stage sends; the zero-bubble schedules (torch's
InterleavedZeroBubble, ZBV) fill it by deferring each micro-batch's weight-gradient pass,
holding its activations longer and needing two or more stages per rank: both can win at most
the 2 %, so the plain schedule is kept. 1F1B keeps at most PP micro-batches' stage inputs alive on
the first stage (GPipe: all M). Its gradients are reduced once per step: the stage keeps them
unsharded through the micro-batches and FSDP reduce-scatters (and HSDP all-reduces) after the
last backward (torch's `perform_reduce_grad`), which is the "reduced once per step" row of
estimate.footprint.

Receive buffers: a ring, not one per micro-batch. torch's PipelineStage allocates one activation
receive buffer per micro-batch for all M when the schedule first runs (stage.py
`_setup_forward_recv_info`) and one gradient receive buffer per micro-batch
(`_setup_backward_recv_info`): M · T · D · 2 B each way, 21.9 GB at p5en-48's 235B job (M 145,
T 18,432). Fewer, larger micro-batches do not bound it (M · T is the rank's tokens whatever the
split) and stages built once keep the same M buffers for good. Under 1F1B a stage receives
micro-batch f's activations only after micro-batch f − w's backward, w = min(M, PP − stage) its
warm-up count, and a gradient only right before the backward that reads it; so `_RingStage`
keeps w activation buffers and one gradient buffer and maps micro-batch i to slot i mod w. A
slot is reused only after the backward that read it was enqueued: NCCL's stream waits on the
compute stream before a receive, and torch's `stage_backward` clears the input's `.grad` after
reading it (no accumulation across reuses). The forward-only passes (the KL reference, the
probe's scorer) run their own loop (`_forward_only`): one receive buffer, one send in flight,
no per-micro-batch outputs kept (torch's ScheduleGPipe keeps every micro-batch's stage output
in `fwd_cache` until the next step: M · T · D · 2 B more). Routing-replay routes stay on the
host and each forward moves its micro-batch's columns for this stage's layers only.

Micro-batches: the packer's (payload.train.batch), padded at the end to one length T for the
step (the pipeline's longest: P2P receive buffers have static shapes). The pad is a segment of
its own in `cu_seqlens`, so no real token attends to it, and it is masked from the loss; but
it does run through the layers, experts included. So the trainer packs pipelined micro-batches
to a budget of at least the longest sample (estimate.footprint.pipeline_budget): the
packer's near-equal parts then differ by little (p5en-48's Qwen3-235B-A22B job: 145 a rank,
the longest 2 % over the mean), where the 16,384-token budget left one 18,432-token sample
alone in a micro-batch and the rest padded up to it (14 %).

On the last stage the fused LM head gives the policy logprobs; "old" is their detached value
(one optimizer step per batch, as in payload.train.step), the reference model's come from a
forward-only pass of its own pipeline before the step, and the GRPO loss is computed there.
Gradient clipping is global: the sum of squares over one replica of every stage.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import FSDPModule
from torch.distributed.pipelining import PipelineStage, Schedule1F1B
from torch.utils.checkpoint import checkpoint

from payload.model import Qwen3MoeForCausalLM
from payload.model.logprobs import linear_logprobs
from payload.model.packed import PackedSequences
from payload.train.batch import MicroBatch
from payload.train.loss import grpo_loss, loss_denominator
from payload.train.parallel import ParallelConfigError, World, clip_grad_norm_
from estimate.stages import split_layers
from payload.train.step import LossConfig, StepTotals


class _Trunk(nn.Module):
    """The stage's share of `Qwen3MoeModel`, under the same attribute names."""


class PipelineStageModel(nn.Module):
    """One stage of a Qwen3-MoE causal LM: its decoder layers (a ModuleDict keyed by their
    index in the whole model), the embedding on the first stage, the final norm and LM head on
    the last. Parameter names are the whole model's.

    forward(x, position_ids_BT, cu_seqlens, routed_experts_BTLK, next_tokens_BT, temperature):
    x is the token ids [1, T] on the first stage, the hidden states [1, T, D] elsewhere; returns
    the hidden states, or on the last stage the fused logprobs of `next_tokens_BT` [1, T - 1]
    under softmax(logits / temperature)."""

    def __init__(self, full: Qwen3MoeForCausalLM, layers: range, stage: int, stages: int) -> None:
        super().__init__()
        if full.config.tie_word_embeddings and stages > 1:
            raise ParallelConfigError("tied word embeddings cannot be split over pipeline stages "
                                      "(the embedding is on the first, the LM head on the last)")
        self.config = full.config
        self.is_first, self.is_last = stage == 0, stage == stages - 1
        self.model = _Trunk()
        if self.is_first:
            self.model.embed_tokens = full.model.embed_tokens
        self.model.layers = nn.ModuleDict({str(i): full.model.layers[i] for i in layers})
        if self.is_last:
            self.model.norm = full.model.norm
            self.lm_head = full.lm_head
        self.model.rotary_emb = full.model.rotary_emb
        moe = full.config.moe_layer_ids
        # Routing replay: which column of the whole model's [B, T, L_moe, K] routes each layer reads.
        self.moe_column = {i: moe.index(i) for i in layers if i in moe}

    @property
    def moe_blocks(self):
        return [layer.mlp for layer in self.model.layers.values() if layer.is_moe]

    @property
    def route_columns(self) -> list[int]:
        """The whole model's routing-replay columns this stage's MoE layers read, in order."""
        return sorted(self.moe_column.values())

    def forward(self, x, position_ids_BT, cu_seqlens, routed_experts_BTLK=None, next_tokens_BT=None, temperature=1.0,
                stage_routes_BTLK=None):
        """`stage_routes_BTLK`: instead of the whole model's routes, only this stage's columns
        (`route_columns`), anywhere (moved here, once per call)."""
        x_BTD = self.model.embed_tokens(x) if self.is_first else x
        if stage_routes_BTLK is not None:
            columns = {c: j for j, c in enumerate(self.route_columns)}
            local = stage_routes_BTLK.to(x_BTD.device, non_blocking=True)
        t = x_BTD.shape[1]
        mask = PackedSequences.of(cu_seqlens, t, x_BTD.device)
        rope = self.model.rotary_emb(position_ids_BT, x_BTD.dtype)
        for key, layer in self.model.layers.items():
            i = int(key)
            replay = None
            if stage_routes_BTLK is not None and i in self.moe_column:
                replay = local[:, :, columns[self.moe_column[i]]]
            elif routed_experts_BTLK is not None and i in self.moe_column:
                replay = routed_experts_BTLK[:, :, self.moe_column[i]]
            args = (x_BTD, rope, mask, None, replay, None)
            if self.config.activation_checkpointing and self.training and torch.is_grad_enabled():
                x_BTD, _, _ = checkpoint(layer, *args, use_reentrant=False)
            else:
                x_BTD, _, _ = layer(*args)
        if not self.is_last:
            return x_BTD
        h_BTD = self.model.norm(x_BTD)
        n = next_tokens_BT.shape[1]
        return linear_logprobs(h_BTD[0, :n], self.lm_head.weight, next_tokens_BT[0], temperature,
                               keep_logits=self.config.lm_head_keep_logits).view(1, n)


def build_stage(full: Qwen3MoeForCausalLM, world: World, mean_sample_tokens: int = 4096) -> PipelineStageModel:
    """This rank's stage of `full` (on any device, meta included); the rest of `full` is dropped.
    `mean_sample_tokens` weighs attention in the split (the trainer and `payload plan` pass the
    job's: max_prompt_tokens + max_response_tokens / 2)."""
    ranges = split_layers(full.config, world.pp_size, mean_sample_tokens)
    return PipelineStageModel(full, ranges[world.pp_rank], world.pp_rank, world.pp_size)


def _padded(mb: MicroBatch, t: int, pad_id: int = 0) -> MicroBatch:
    """`mb` as one packed row of exactly `t` tokens: the tail is a sample of pads of its own."""
    n = mb.input_ids_BT.shape[1]
    if mb.packed:
        cu, positions, unpack = mb.cu_seqlens, mb.position_ids_BT, mb.unpack_BT1
    else:  # the packer's filler row for a rank without samples: one "sample" of pads
        cu = torch.tensor([0, n], dtype=torch.int32)
        positions = torch.arange(n, dtype=torch.int32)[None]
        unpack = torch.zeros(mb.loss_mask_BT1.shape, dtype=torch.int64)
    extra = t - n
    routed = mb.routed_experts_BTLK
    if extra:
        cu = torch.cat([cu, torch.tensor([t], dtype=cu.dtype)])
        positions = torch.cat([positions, torch.arange(extra, dtype=positions.dtype)[None]], 1)
        if routed is not None:  # pads reuse the last route rather than all going to expert 0
            routed = torch.cat([routed, routed[:, -1:].expand(1, extra, *routed.shape[2:])], 1)
    return MicroBatch(
        torch.cat([mb.input_ids_BT, torch.full((1, extra), pad_id, dtype=mb.input_ids_BT.dtype)], 1),
        torch.cat([mb.attention_mask_BT, torch.zeros(1, extra, dtype=torch.bool)], 1),
        mb.loss_mask_BT1, mb.rollout_logprobs_BT1, mb.advantages_B, routed,
        cu_seqlens=cu, position_ids_BT=positions, unpack_BT1=unpack,
    )


def _inputs(mb: MicroBatch, stage: PipelineStageModel, device: torch.device, temperature: float = 1.0) -> tuple[tuple, dict]:
    """The stage's args and kwargs for `mb`, on `device` except the routing-replay routes: only
    this stage's columns, kept on the host (pinned on CUDA) and moved by each forward, so M
    micro-batches' routes never sit on the GPU together (int64, T · L · K · 8 B each)."""
    routes = mb.routed_experts_BTLK
    mb = replace(mb, routed_experts_BTLK=None).to(device)
    ids = mb.input_ids_BT.long()
    kwargs = dict(position_ids_BT=mb.position_ids_BT, cu_seqlens=mb.cu_seqlens)
    if routes is not None and stage.route_columns:
        mine = routes[:, :, stage.route_columns].long().contiguous()
        kwargs.update(stage_routes_BTLK=mine.pin_memory() if device.type == "cuda" else mine)
    if stage.is_last:
        kwargs.update(next_tokens_BT=ids[:, 1:], temperature=temperature)
    return ((ids,) if stage.is_first else ()), kwargs


class _RingStage(PipelineStage):
    """A PipelineStage whose receive buffers are a ring: `activations` slots for the stage's
    inputs, `gradients` for its outputs' gradients, micro-batch i in slot i mod size (the module
    docstring says why that is safe under 1F1B). Overrides two private methods of torch's
    PipelineStage (pinned by tests/payload/train/test_pipeline_torch_api.py)."""

    def __init__(self, *args, activations: int, gradients: int, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.ring_activations, self.ring_gradients = activations, gradients

    def _setup_forward_recv_info(self, num_microbatches: int, has_backward: bool) -> None:
        ring = min(num_microbatches, self.ring_activations)
        super()._setup_forward_recv_info(ring, has_backward)
        for i in range(ring, num_microbatches):
            self.args_recv_info[i] = self.args_recv_info[i % ring]

    def _setup_backward_recv_info(self, num_microbatches: int) -> None:
        ring = min(num_microbatches, self.ring_gradients)
        super()._setup_backward_recv_info(ring)
        self.chunks = num_microbatches
        for i in range(ring, num_microbatches):
            self.grad_recv_info[i] = self.grad_recv_info[i % ring]


def ring_sizes(stage: int, stages: int, micro_batches: int) -> tuple[int, int]:
    """(activation, gradient) receive buffers a 1F1B stage keeps: its warm-up count
    min(M, PP − stage), none on the first stage; one gradient buffer, none on the last
    (estimate.footprint counts the same)."""
    return (0 if stage == 0 else min(micro_batches, stages - stage)), (0 if stage == stages - 1 else 1)


def _schedule(stage_model, world: World, t: int, count: int, dtype: torch.dtype, loss_fn: Callable):
    """A 1F1B pipeline stage with static shapes (no metadata-inference pass, whose forward would
    run the experts' collectives out of step) and ring receive buffers, and its schedule over
    `count` micro-batches."""
    d = stage_model.config.hidden_size
    # Activations carry gradients (their receive buffers must require them, or no input
    # gradient is computed and sent back); token ids do not.
    meta = lambda *shape, dt=dtype: torch.empty(shape, dtype=dt, device="meta",  # noqa: E731
                                                requires_grad=dt.is_floating_point)
    inputs = meta(1, t, dt=torch.int64) if stage_model.is_first else meta(1, t, d)
    outputs = meta(1, t - 1, dt=torch.float32) if stage_model.is_last else meta(1, t, d)
    activations, gradients = ring_sizes(world.pp_rank, world.pp_size, count)
    stage = _RingStage(stage_model, world.pp_rank, world.pp_size, world.device, input_args=inputs,
                       output_args=outputs, group=world.pp_group, activations=max(activations, 1),
                       gradients=max(gradients, 1))
    # Loss shares already carry the global normalisation: sum over micro-batches, never average.
    return stage, Schedule1F1B(stage, count, loss_fn=loss_fn, scale_grads=False)


def _run(schedule, stage: PipelineStage, args, kwargs, targets) -> None:
    # The list-of-micro-batches entry of the schedule: packed micro-batches are ragged (their
    # cu_seqlens differ in length), so they cannot be one tensor for `step` to chunk.
    stage.has_backward = schedule._has_backward
    stage.clear_runtime_states()
    schedule._step_microbatches(args, kwargs, targets, None, return_outputs=False)


@torch.no_grad()
def _forward_only(stage_model: PipelineStageModel, world: World, t: int, dtype: torch.dtype, args, kwargs) -> list:
    """Every micro-batch forward through the pipeline, in order, no schedule object: one
    receive buffer, one send in flight; returns the last stage's outputs (others: [])."""
    ranks = dist.get_process_group_ranks(world.pp_group)
    s = world.pp_rank
    buffer = None if stage_model.is_first else torch.empty(1, t, stage_model.config.hidden_size, dtype=dtype,
                                                          device=world.device)
    outputs, sending = [], None
    for a, k in zip(args, kwargs):
        if buffer is not None:
            dist.recv(buffer, src=ranks[s - 1], group=world.pp_group)
        y = stage_model(*(a if stage_model.is_first else (buffer,)), **k)
        if stage_model.is_last:
            outputs.append(y)
            continue
        if sending is not None:
            sending.wait()
        sending = dist.isend(y.to(dtype).contiguous(), dst=ranks[s + 1], group=world.pp_group)
    if sending is not None:
        sending.wait()
    return outputs


def pipeline_train_step(
    model: PipelineStageModel,
    optimizer: torch.optim.Optimizer,
    micro: list[MicroBatch],
    config: LossConfig,
    world: World,
    reference: PipelineStageModel | None = None,
    compute_dtype: torch.dtype | None = None,
) -> dict[str, float]:
    """payload.train.step.train_step's contract on a pipelined layout: `micro` is this rank's
    pipeline's packed micro-batches (the same on every stage of it, the same count on every
    rank); returns the step's metrics over the whole global batch on every rank."""
    if config.router_aux_loss_coef > 0:
        raise ParallelConfigError("algorithm.router_aux_loss_coef > 0 is not supported with pipeline_parallel_size > 1 "
                                  "(the load-balancing statistics span every stage's layers)")
    started = time.perf_counter()
    device, dtype = world.device, compute_dtype or torch.float32
    model.train()
    # One T for every micro-batch of the step, agreed along the pipeline only (its stages'
    # receive buffers); other pipelines pad to their own longest.
    lengths = torch.tensor([max(mb.input_ids_BT.shape[1] for mb in micro)], device=device)
    dist.all_reduce(lengths, op=dist.ReduceOp.MAX, group=world.pp_group)
    t = int(lengths.item())
    micro = [_padded(mb, t) for mb in micro]
    denominator = loss_denominator([mb.loss_mask_BT1 for mb in micro], config.aggregation, world.stage_group, device)
    totals = StepTotals(device)
    inputs = [_inputs(mb, model, device, config.temperature) for mb in micro]
    args, kwargs = [a for a, _ in inputs], [k for _, k in inputs]

    ref_logprobs: list[torch.Tensor | None] = [None] * len(micro)
    if reference is not None and config.kl_coef > 0:
        reference.eval()
        if reference.is_last:
            ref_logprobs = _forward_only(reference, world, t, dtype, args, kwargs)
        else:
            _forward_only(reference, world, t, dtype, args, kwargs)

    def loss_fn(logprobs_1N: torch.Tensor, index: int) -> torch.Tensor:
        mb = micro[index]
        logprobs = logprobs_1N[0][mb.unpack_BT1.to(device)]
        ref = ref_logprobs[index]
        loss, metrics = grpo_loss(
            logprobs, logprobs.detach(), mb.advantages_B.to(device), mb.loss_mask_BT1.to(device),
            clip_low=config.clip_low, clip_high=config.clip_high, dual_clip=config.dual_clip,
            ref_logprobs_BT=None if ref is None else ref[0][mb.unpack_BT1.to(device)], kl_coef=config.kl_coef,
            rollout_logprobs_BT=mb.rollout_logprobs_BT1.to(device), tis_cap=config.tis_cap,
            correction=config.off_policy_correction, correction_low=config.off_policy_low,
            correction_high=config.off_policy_high,
            aggregation=config.aggregation, max_response_tokens=config.max_response_tokens, denominator=denominator,
        )
        totals.add(metrics, mb.loss_mask_BT1.to(device).sum(), mb.num_tokens)
        return loss

    # Gathered once and held for the step (the stage reduces its gradients once, after the
    # last backward): no re-gather per micro-batch.
    for module in model.modules():
        if isinstance(module, FSDPModule) and module is not model:
            module.set_reshard_after_forward(False, recurse=False)
    stage, schedule = _schedule(model, world, t, len(micro), dtype, loss_fn)
    _run(schedule, stage, args, kwargs, targets=list(range(len(micro))))
    del stage, schedule  # its ring of receive buffers goes now, not at the next step
    result = totals.reduce(dist.group.WORLD)  # the last stages hold the shares, the others zeros
    grad_norm = clip_grad_norm_(list(model.parameters()), config.max_grad_norm, world.replica_group)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    result.update(grad_norm=float(grad_norm), step_seconds=time.perf_counter() - started)
    return result


class PipelineScorer:
    """`compute_logprobs`' view of a pipelined model, for the post-publish probe: every rank
    calls it together with the same tokens; one forward through the stages, and the last
    stage's logprobs are sent to every stage of the pipeline."""

    def __init__(self, model: PipelineStageModel, world: World, compute_dtype: torch.dtype | None = None) -> None:
        self.model, self.world, self.dtype = model, world, compute_dtype or torch.float32

    @torch.no_grad()
    def __call__(self, input_ids_BT, next_tokens=None, **_):
        world, t = self.world, input_ids_BT.shape[1]
        mb = MicroBatch(input_ids_BT.cpu(), torch.ones(1, t, dtype=torch.bool), torch.zeros(1, t - 1, dtype=torch.bool),
                        torch.zeros(1, t - 1), torch.zeros(1), None, cu_seqlens=torch.tensor([0, t], dtype=torch.int32),
                        position_ids_BT=torch.arange(t)[None], unpack_BT1=torch.zeros(1, t - 1, dtype=torch.int64))
        args, kwargs = _inputs(mb, self.model, world.device)
        self.model.eval()
        outputs = _forward_only(self.model, world, t, self.dtype, [args], [kwargs])
        logprobs = outputs[0].float() if self.model.is_last else torch.empty(1, t - 1, device=world.device)
        last = dist.get_process_group_ranks(world.pp_group)[-1]
        dist.broadcast(logprobs, src=last, group=world.pp_group)
        return _Logprobs(logprobs)


class _Logprobs:
    def __init__(self, logprobs: torch.Tensor) -> None:
        self.logprobs = logprobs
