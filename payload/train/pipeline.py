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

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import FSDPModule
from torch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleGPipe
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

    def forward(self, x, position_ids_BT, cu_seqlens, routed_experts_BTLK=None, next_tokens_BT=None, temperature=1.0):
        x_BTD = self.model.embed_tokens(x) if self.is_first else x
        t = x_BTD.shape[1]
        mask = PackedSequences.of(cu_seqlens, t, x_BTD.device)
        rope = self.model.rotary_emb(position_ids_BT, x_BTD.dtype)
        for key, layer in self.model.layers.items():
            i = int(key)
            replay = None
            if routed_experts_BTLK is not None and i in self.moe_column:
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


def _inputs(mb: MicroBatch, stage: PipelineStageModel, temperature: float = 1.0) -> tuple[tuple, dict]:
    ids = mb.input_ids_BT.long()
    kwargs = dict(position_ids_BT=mb.position_ids_BT, cu_seqlens=mb.cu_seqlens,
                  routed_experts_BTLK=None if mb.routed_experts_BTLK is None else mb.routed_experts_BTLK.long())
    if stage.is_last:
        kwargs.update(next_tokens_BT=ids[:, 1:], temperature=temperature)
    return ((ids,) if stage.is_first else ()), kwargs


def _schedule(stage_model, world: World, t: int, count: int, dtype: torch.dtype, loss_fn: Callable | None, schedule):
    """A pipeline stage with static shapes (no metadata-inference pass, whose forward would run
    the experts' collectives out of step) and the schedule over `count` micro-batches."""
    d = stage_model.config.hidden_size
    # Activations carry gradients (their receive buffers must require them, or no input
    # gradient is computed and sent back); token ids do not.
    meta = lambda *shape, dt=dtype: torch.empty(shape, dtype=dt, device="meta",  # noqa: E731
                                                requires_grad=dt.is_floating_point and loss_fn is not None)
    inputs = meta(1, t, dt=torch.int64) if stage_model.is_first else meta(1, t, d)
    outputs = meta(1, t - 1, dt=torch.float32) if stage_model.is_last else meta(1, t, d)
    stage = PipelineStage(stage_model, world.pp_rank, world.pp_size, world.device, input_args=inputs,
                          output_args=outputs, group=world.pp_group)
    # Loss shares already carry the global normalisation: sum over micro-batches, never average.
    return stage, schedule(stage, count, loss_fn=loss_fn, scale_grads=False)


def _run(schedule, stage: PipelineStage, args, kwargs, targets=None, return_outputs=False) -> None:
    # The list-of-micro-batches entry of the schedule: packed micro-batches are ragged (their
    # cu_seqlens differ in length), so they cannot be one tensor for `step` to chunk.
    stage.has_backward = schedule._has_backward
    stage.clear_runtime_states()
    schedule._step_microbatches(args, kwargs, targets, None, return_outputs=return_outputs)


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
    inputs = [_inputs(mb.to(device), model, config.temperature) for mb in micro]
    args, kwargs = [a for a, _ in inputs], [k for _, k in inputs]

    ref_logprobs: list[torch.Tensor | None] = [None] * len(micro)
    if reference is not None and config.kl_coef > 0:
        reference.eval()
        ref_stage, ref_schedule = _schedule(reference, world, t, len(micro), dtype, None, ScheduleGPipe)
        with torch.no_grad():
            _run(ref_schedule, ref_stage, args, kwargs, return_outputs=True)
        if reference.is_last:
            ref_logprobs = list(ref_stage.output_chunks)

    def loss_fn(logprobs_1N: torch.Tensor, index: int) -> torch.Tensor:
        mb = micro[index]
        logprobs = logprobs_1N[0][mb.unpack_BT1.to(device)]
        ref = ref_logprobs[index]
        loss, metrics = grpo_loss(
            logprobs, logprobs.detach(), mb.advantages_B.to(device), mb.loss_mask_BT1.to(device),
            clip_low=config.clip_low, clip_high=config.clip_high, dual_clip=config.dual_clip,
            ref_logprobs_BT=None if ref is None else ref[0][mb.unpack_BT1.to(device)], kl_coef=config.kl_coef,
            rollout_logprobs_BT=mb.rollout_logprobs_BT1.to(device), tis_cap=config.tis_cap,
            aggregation=config.aggregation, max_response_tokens=config.max_response_tokens, denominator=denominator,
        )
        totals.add(metrics, mb.loss_mask_BT1.to(device).sum(), mb.num_tokens)
        return loss

    # Gathered once and held for the step (the stage reduces its gradients once, after the
    # last backward): no re-gather per micro-batch.
    for module in model.modules():
        if isinstance(module, FSDPModule) and module is not model:
            module.set_reshard_after_forward(False, recurse=False)
    stage, schedule = _schedule(model, world, t, len(micro), dtype, loss_fn, Schedule1F1B)
    _run(schedule, stage, args, kwargs, targets=list(range(len(micro))))
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
        args, kwargs = _inputs(mb.to(world.device), self.model)
        self.model.eval()
        stage, schedule = _schedule(self.model, world, t, 1, self.dtype, None, ScheduleGPipe)
        _run(schedule, stage, [args], [kwargs], return_outputs=True)
        logprobs = stage.output_chunks[0].float() if self.model.is_last else torch.empty(1, t - 1, device=world.device)
        last = dist.get_process_group_ranks(world.pp_group)[-1]
        dist.broadcast(logprobs, src=last, group=world.pp_group)
        return _Logprobs(logprobs)


class _Logprobs:
    def __init__(self, logprobs: torch.Tensor) -> None:
        self.logprobs = logprobs
