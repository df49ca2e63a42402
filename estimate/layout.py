"""Choose the layout a job leaves `auto`, from the model's own shape and the pools.

    environment = resolve(environment)       # job.parallel with every size a number
    environment.layout                       # spec.layout.RunLayout, what every process runs

Trainer: of every layout the trainer runs on the train pool (estimate.footprint.candidate_layouts)
that keeps the job's fixed sizes, the one with the cheapest modeled step whose memory fits
FIT_FRACTION of a GPU (what `payload plan` has always printed as "picked"), with the largest
publish bucket (PUBLISH_BUCKET_CHOICES_MB) under which any layout fits where
rollout.publish_bucket_mb is auto: a bucket costs four times its size on every trainer GPU, and
a smaller one only a few ms a publish. Rollout servers: the
TP whose replica holds the weights and one group's KV cache and decodes most tokens a node
(estimate.throughput.engine_layouts), EP over the whole replica. A size the job sets is kept; a
layout that then does not fit is a LayoutError naming the model, the GB a GPU and the limit.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from estimate.buffer import routing_replay_choice
from spec.hardware import InstanceSpec
from spec.job import PUBLISH_BUCKET_MB
from spec.layout import LayoutError, TrainerLayout
from spec.model_shape import Qwen3MoeConfig, shape_of


# rollout.publish_bucket_mb auto: the largest of these (MiB) under which a layout fits.
PUBLISH_BUCKET_CHOICES_MB = tuple(PUBLISH_BUCKET_MB >> halvings for halvings in range(4))


class TrainerChoice(NamedTuple):
    layout: TrainerLayout
    publish_bucket_mb: int  # the publish bucket the layout's memory was counted with


def _fixed(value):
    return None if value == "auto" else value


def with_publish_bucket(job, mb: int):
    return job.model_copy(update={"rollout": job.rollout.model_copy(update={"publish_bucket_mb": mb})})


def choose_trainer(job, config: Qwen3MoeConfig, model: str, nodes: int, gpus_per_node: int, node: InstanceSpec,
                   gpu_memory_gb: float | None = None) -> TrainerChoice:
    """`node` gives the GPU's memory (or `gpu_memory_gb`, what a device reports) and the rates."""
    gpu_memory_gb = gpu_memory_gb or node.gpu_memory_gb
    from estimate.footprint import FIT_FRACTION, candidate_layouts, plan_layouts

    p = job.parallel
    pp, ep, shard, every_mb = (_fixed(p.pipeline_parallel_size), _fixed(p.expert_parallel_size),
                               _fixed(p.data_parallel_shard_size), _fixed(p.sync_gradients_every_micro_batch))
    # The sizes set, with the defaults every candidate has for the rest: a rule they break is
    # named before any search.
    probe = TrainerLayout(nodes, gpus_per_node, ep or gpus_per_node, shard or max(ep or gpus_per_node, gpus_per_node),
                          not every_mb, job.model.activation_checkpointing, pp or 1, p.expert_parallel_across_nodes)
    if error := probe.error():
        raise LayoutError(error)
    if None not in (pp, ep, shard, every_mb):
        candidates = [probe]
    else:
        # Pipeline stages pass one packed row a micro-batch, and the load-balancing loss would
        # span every stage's layers (spec.job's own rule for a set PP).
        pipelines_ok = job.batch.packing and job.algorithm.router_aux_loss_coef == 0
        everything = candidate_layouts(config, nodes, gpus_per_node, job.model.activation_checkpointing,
                                       (ep,) if ep is not None else None)
        candidates = [
            c for c in (replace(c, expert_parallel_across_nodes=p.expert_parallel_across_nodes) for c in everything)
            if (pp is None or c.pipeline == pp) and (shard is None or c.shard == shard)
            and (every_mb is None or c.per_step_sync != every_mb) and (pp is not None or c.pipeline == 1 or pipelines_ok)
            and not c.error()
        ]
        if not candidates:
            fixed = ", ".join(f"{k} {v}" for k, v in (("pipeline_parallel_size", pp), ("expert_parallel_size", ep),
                                                     ("data_parallel_shard_size", shard)) if v is not None)
            raise LayoutError(f"job.parallel: no trainer layout of {nodes} train nodes x {gpus_per_node} GPUs has "
                              f"{fixed or 'whole expert groups'} for {model} ({config.num_experts} experts)")
    auto_bucket = job.rollout.publish_bucket_mb == "auto"
    for mb in PUBLISH_BUCKET_CHOICES_MB if auto_bucket else (job.rollout.publish_bucket_mb,):
        rows, fitting, best = plan_layouts(config, with_publish_bucket(job, mb), nodes, gpus_per_node, node,
                                           gpu_memory_gb, candidates)
        if best is not None:
            return TrainerChoice(best[0], mb)
    layout, _, least = min(rows, key=lambda row: row[2].memory_total_gb)
    what = f"under {layout.describe()}" if len(rows) == 1 else f"under its least-memory layout ({layout.describe()})"
    buckets = f"{mb:,} MiB" + (" (the smallest auto tries)" if auto_bucket else "")
    raise LayoutError(
        f"job.parallel: {model} needs {least.memory_total_gb:,.1f} GB a GPU {what} with publish buckets of {buckets} "
        f"on {nodes} train nodes, more than the {FIT_FRACTION * gpu_memory_gb:,.1f} GB that fit ({FIT_FRACTION:.0%} of "
        f"a {gpu_memory_gb:g} GB GPU); " + ("leave the sizes auto, or " if len(rows) == 1 else "") + "add train nodes")


def choose_servers(job, config: Qwen3MoeConfig, model: str, node: InstanceSpec, instance_type: str) -> tuple[int, int]:
    """(tensor parallel, expert parallel) of one rollout replica on `node`'s GPUs."""
    gpus_per_node, gpu_memory_gb = node.gpus, node.gpu_memory_gb
    from estimate.engine_fit import engine_fit
    from estimate.throughput import Assumptions, engine_layouts

    p = job.parallel
    tp, ep = _fixed(p.rollout_tensor_parallel_size), _fixed(p.rollout_expert_parallel_size)
    if tp is None:
        b = job.batch
        layouts = engine_layouts(config, gpus_per_node=gpus_per_node, gpu_memory_gb=gpu_memory_gb,
                                 prompt_tokens=b.max_prompt_tokens / 4, response_mean=b.max_response_tokens / 2,
                                 response_sigma=0.8, group_size=job.algorithm.group_size, a=Assumptions().on(node.gpu_spec),
                                 precision=job.rollout.precision, max_prompt_tokens=b.max_prompt_tokens,
                                 max_response_tokens=b.max_response_tokens)
        if not layouts:
            raise LayoutError(
                f"job.parallel.rollout_tensor_parallel_size: no SGLang replica inside one {instance_type} holds {model}'s "
                f"{job.rollout.precision} weights and a KV cache for one group ({b.max_prompt_tokens:,} + "
                f"{job.algorithm.group_size} x {b.max_response_tokens:,} tokens); set a larger one, or rollout.precision fp8")
        tp = layouts[0].tensor_parallel
    else:
        b = job.batch

        def at(tensor_parallel: int):
            return engine_fit(config, tensor_parallel=tensor_parallel, precision=job.rollout.precision,
                              gpu_memory_gb=gpu_memory_gb, group_size=job.algorithm.group_size,
                              max_prompt_tokens=b.max_prompt_tokens, max_response_tokens=b.max_response_tokens)

        fit = at(tp)
        if not fit.fits:
            larger = [t for t in (1, 2, 4, 8, 16, 32) if t > tp and at(t).fits]
            raise LayoutError(
                f"job.parallel.rollout_tensor_parallel_size {tp}: {model} does not fit one replica on {instance_type} "
                f"({gpu_memory_gb:.0f} GB GPUs, mem_fraction_static {fit.budget_gb_per_gpu / gpu_memory_gb:.2f}): "
                f"{fit.describe()} ({b.max_prompt_tokens:,} + {job.algorithm.group_size} x {b.max_response_tokens:,}); "
                f"use {larger[0] if larger else 'more GPUs'}" + (", or rollout.precision fp8" if job.rollout.precision == "bf16" else ""))
    return tp, (ep if ep is not None else tp)


def resolve(environment):
    """`environment` with job.parallel's auto sizes chosen (spec.environment.Environment),
    rollout.publish_bucket_mb with them, and rollout.return_routed_experts where it is auto
    (estimate.buffer.routing_replay_choice)."""
    job, train, rollout = environment.job, environment.pools.train, environment.pools.rollout
    name, config = shape_of(job.model)
    nodes = train.desired_size or train.max_size
    trainer, bucket_mb = choose_trainer(job, config, name, nodes, train.spec.gpus, train.spec)
    tp, ep = choose_servers(job, config, name, rollout.spec, rollout.instance_type)
    parallel = job.parallel.model_copy(update=trainer.parallel_sizes() | {
        "rollout_tensor_parallel_size": tp, "rollout_expert_parallel_size": ep})
    job = with_publish_bucket(job, bucket_mb).model_copy(update={"parallel": parallel})
    resolved = environment.model_copy(update={"job": job})
    if job.rollout.return_routed_experts == "auto":
        replay, _ = routing_replay_choice(resolved)
        resolved = resolved.with_job("rollout", return_routed_experts=replay)
    return resolved
