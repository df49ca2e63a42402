"""GRPO throughput from first principles: a step's trainer and rollout rates for a model on an
environment, fed to the loop model (planner and simulator), counted as NeMo-RL counts.

    estimate = estimate_rates(config, env, "Qwen3-30B-A3B")   # rates, engine layout, assumptions
    python -m payload plan --env p5en-48 --model Qwen3-30B-A3B

Trainer. FLOPs per token are the forward's (estimate.stages.layer_costs: 2 per active
matmul parameter, K of E experts, the LM head, causal attention scores at the job's mean
sample length) × 3 for forward + backward, i.e. 6 × active parameters + attention. They run at
`train_mfu` of `peak_tflops`, the train pool's GPU's unless given (spec.hardware; bench/README.md,
train_step.py: 35.7 % of the 775 TFLOP/s bf16 matmul peak measured on one H200 with activation checkpointing, which counts model FLOPs only,
so the recomputed forward is in the rate). Pipelined layouts add 1F1B's bubble. To that comes
the communication the layout cannot hide (estimate.footprint's bytes per link):
  - EP all-to-all: DeepEP's dispatch and combine sit between the router and the experts and the
    trainer runs no second micro-batch to overlap them with: all of it counts;
  - FSDP all-gather / reduce-scatter: prefetched under the previous layer's compute: only what
    exceeds the compute counts;
  - HSDP all-reduce: once a step after the last backward: all of it counts;
  - PP activations: sent while the next micro-batch computes: hidden.

Rollout (one SGLang replica of TP t GPUs, t in 1, 2, 4, 8 per node; EP = TP inside it). A
decode step reads every expert a batch of B requests touches (a layer's E experts are all
touched once B·K ≫ E; at the job's rollout.precision: fp8 linears are a byte a parameter) and
every running request's KV cache, bf16, at the GPU's HBM bandwidth times each kind of read's
measured share (`kv_hbm_efficiency` 0.88, `weights_hbm_efficiency` 0.38: bench/decode_bandwidth.py); its FLOPs (2 per active parameter a token) at `decode_mfu`; TP > 1 adds two
all-reduces a layer at `allreduce_latency_s` each. B is what the KV cache holds (SGLang's
--mem-fraction-static of the GPU, less the weights) at the time-averaged context of a running
request (prompt + E[r²] / 2E[r] of lognormal responses: mean · e^{σ²} / 2), at most
`max_running_requests`. KV heads split over TP up to their count (4 for both Qwen3 MoEs), beyond
it they are replicated. Prefill: a group's prompt once (the radix cache shares it across the
G samples; G times with `pause_mode: in_place`, whose servers run without it) at
`prefill_mfu`, spread over the group's G · mean response tokens. Only layouts
that hold their weights and one group's KV at the job's caps count (estimate.engine_fit);
the one giving the most tokens/s per node is picked, and the environment's layout for the
model (job.parallel auto, estimate/layout.py) is expected to be it.

Publish (estimate.costs.model_costs under the trainer's layout): the trainer stalls for
the device-to-host copy of its shard; a server pauses for its transfer and load, plus, in
`retract` mode (the job's rollout.pause_mode, default retract; `plan --pause-mode` overrides
it), the re-prefill of every running request's
context, which SGLang's retract drops with its KV cache. The loop model has one pause for both
sides: it takes the longer one.

Tokens/s per GPU, NeMo-RL's way (docs/about/performance-summary.md: total tokens of the
trained batch, prompts and responses, / step time / every GPU of the job).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

from estimate.buffer import routing_replay_choice
from estimate.engine_fit import (engine_fit, kv_bytes_per_token, sglang_decode_graph_max_bs,
                                 sglang_mem_fraction_static)
from estimate.loop import DecodeSpeed
from estimate.footprint import Footprint, Residents, footprint_as_set, step_shape
from estimate.stages import layer_costs
from spec.hardware import GpuSpec
from spec.layout import TrainerLayout
from spec.model_shape import shape_of

# NeMo-RL v0.6 (docs/about/performance-summary.md, "NeMo RL v0.6", H100 BF16, GRPO on
# OpenMathInstruct-2, Megatron-core): tokens/s/GPU, GPUs, generation TP, mean sequence length.
NEMO_RL_PUBLISHED = {
    "Qwen3-30B-A3B": [("on-policy", 1102, 32, 2, 3203), ("1-step off-policy", 1414, 32, 2, 3201)],
    "Qwen3-235B-A22B": [("on-policy", 58.9, 128, 16, 5698), ("1-step off-policy", 58.7, 256, 8, 5721)],
}

ENGINE_TENSOR_PARALLEL = (1, 2, 4, 8)


@dataclass(frozen=True)
class Assumptions:
    """Every number the estimate rests on that is not read from the model or the job."""

    # None: the pool's own GPU's figures (spec/hardware.py GPUS: measured where we had the GPU).
    train_mfu: float | None = None
    peak_tflops: float | None = None  # bf16 dense matmul
    hbm_gb_s: float | None = None
    # Decode's share of it, by kind of read, measured on an H200 (bench/decode_bandwidth.py, torch
    # kernels at 30B TP4's shapes): KV reads 0.88, the small-M expert GEMMs' weight reads 0.38
    # (dense weights assumed the same). Over a full 30B TP4 batch they blend to 0.75; as the batch
    # drains KV's share falls and the step's blend with it. hbm_efficiency (plan --hbm-efficiency):
    # one share for both, replacing them.
    hbm_efficiency: float | None = None
    kv_hbm_efficiency: float = 0.88
    weights_hbm_efficiency: float = 0.38
    decode_mfu: float = 0.4  # decode GEMMs' share of peak when compute-bound (assumed)
    prefill_mfu: float = 0.5  # prefill's share of peak (assumed)
    allreduce_latency_s: float = 15e-6  # one small NVLink all-reduce in a decode step (assumed)
    decode_overhead_s: float = 1e-3  # scheduler and sampling per decode step (assumed)
    # SGLang --mem-fraction-static (weights + KV cache), at most SGLang 0.5.23's own default for
    # the replica's GPU, TP and decode graph (estimate.engine_fit.sglang_mem_fraction_static:
    # 0.89 on an H200 at TP 4, 0.81 on an H100), which payload/rollout/sglang_args.py renders.
    mem_fraction_static: float = 0.85
    max_running_requests: int = 1024  # SGLang --max-running-requests cap on B
    # SGLang's decode CUDA-graph limit. None: the fitted batch, which sglang_args renders as
    # --cuda-graph-max-bs-decode, so no step runs eagerly; a number: that limit (e.g. SGLang
    # 0.5.23's default, estimate.engine_fit.sglang_decode_graph_max_bs: 512 at TP >= 4 on H100
    # and H200, 256 below), above which a step decodes eagerly and pays eager_decode_overhead_s.
    cuda_graph_max_bs: int | None = None
    # An eager decode step's kernel launches over a graph replay's: assumed (~1,000 launches a
    # step of a 48-layer MoE at ~5 us), not measured here.
    eager_decode_overhead_s: float = 5e-3
    prompt_tokens: int | None = None  # mean prompt; None: batch.max_prompt_tokens / 4
    pause_mode: str | None = None  # the publish's pause_generation mode; None: the job's rollout.pause_mode

    def on(self, gpu: GpuSpec) -> "Assumptions":
        """These assumptions with what they leave None taken from `gpu`."""
        return replace(self, train_mfu=self.train_mfu or gpu.train_mfu, peak_tflops=self.peak_tflops or gpu.matmul_tflops,
                       hbm_gb_s=self.hbm_gb_s or gpu.hbm_gb_s)

    def table(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class ServerOption:
    tensor_parallel: int
    replicas_per_node: int
    batch: int  # requests a replica decodes at once (KV capacity, capped)
    decode_step_s: float
    weights_gb_per_gpu: float
    kv_capacity_tokens: int
    tokens_per_s_per_node: float
    reprefill_s: float  # a replica re-prefilling its running requests after a retracting pause
    why: str = ""
    graph_max_bs: int = 0  # SGLang's decode CUDA-graph limit it runs with
    mem_fraction_static: float = 0.85  # the share of a GPU SGLang keeps for weights + KV
    decode: DecodeSpeed | None = None  # the step time as the running batch drains

    @property
    def flags(self):
        """The SGLang flags that make a replica run this fit (payload/rollout/sglang_args.py)."""
        from estimate.engine_fit import ServerFlags

        # The graph up to the batch (its reserve was sized for at least that); a lower limit set
        # in Assumptions stays, as the eager steps it costs are in decode_step_s.
        return ServerFlags(self.batch, min(self.graph_max_bs, self.batch), self.mem_fraction_static)

    def describe(self) -> str:
        return (f"TP {self.tensor_parallel} x {self.replicas_per_node}/node: batch {self.batch}, "
                f"decode step {self.decode_step_s * 1e3:.1f} ms, {self.tokens_per_s_per_node:,.0f} tok/s/node"
                + ("" if self.batch <= self.graph_max_bs else f", eager above SGLang's graph of {self.graph_max_bs}"))


@dataclass(frozen=True)
class TrainerEstimate:
    layout: TrainerLayout
    flops_per_token: float
    compute_s: float  # one step's tokens at train_mfu
    bubble: float
    unhidden: dict[str, float]  # seconds a step, by traffic name
    step_tokens: float  # prompt + response tokens a step (at the mean lengths)
    response_tokens: float
    memory_gb: float = 0.0  # a GPU's modeled peak (estimate.footprint)
    keeps_logits: bool = False  # model.lm_head_keep_logits as resolved for this layout

    @property
    def step_s(self) -> float:
        return self.compute_s / (1 - self.bubble) + sum(self.unhidden.values())


@dataclass(frozen=True)
class Estimate:
    model: str
    trainer: TrainerEstimate
    engines: list[ServerOption]  # every layout that fits, best first
    engine: ServerOption
    trainer_tokens_per_s_per_node: float  # response tokens, as the loop model counts
    publish_stall_s: float
    server_pause_s: float
    publish_s: float  # the one pause the loop model takes
    prompt_tokens: float
    response_tokens_mean: float
    assumptions: Assumptions


def active_parameters(config) -> float:
    """Matmul parameters a token meets: attention, router, K of E experts, dense MLPs, LM head."""
    _, layers, head = layer_costs(config, 0)
    return (sum(layers) + head) / 2


def _parameters(config) -> float:
    from estimate.footprint import parameter_counts

    return parameter_counts(config)[0]


def engine_layouts(config, *, gpus_per_node: int, gpu_memory_gb: float, prompt_tokens: float,
                   response_mean: float, response_sigma: float, group_size: int,
                   a: Assumptions, precision: str = "bf16", max_prompt_tokens: int | None = None,
                   max_response_tokens: int | None = None) -> list[ServerOption]:
    """Every TP that fits the model on a node (estimate.engine_fit: weights at
    `precision`, then KV for one group at the job's caps, default 4 x prompt and 2 x mean
    response), with its decode roofline; best first."""
    total = _parameters(config)
    active = active_parameters(config)
    # fp8 serves the attention and expert linears at a byte a parameter: decode reads that.
    served = config.publish_bytes(precision) / (2 * total)
    experts_per_layer_bytes = 3 * config.hidden_size * config.moe_intermediate_size * 2
    moe_layers = sum(config.is_moe_layer(i) for i in range(config.num_hidden_layers))
    expert_bytes = moe_layers * config.num_experts * experts_per_layer_bytes * served
    dense_bytes = 2 * total * served - expert_bytes
    context = prompt_tokens + response_mean * math.exp(response_sigma ** 2) / 2
    kv_hbm = a.hbm_gb_s * 1e9 * (a.hbm_efficiency or a.kv_hbm_efficiency)
    weights_hbm = a.hbm_gb_s * 1e9 * (a.hbm_efficiency or a.weights_hbm_efficiency)
    peak = a.peak_tflops * 1e12
    out, refused = [], []
    for t in ENGINE_TENSOR_PARALLEL:
        if t > gpus_per_node:
            continue
        def fitted(graph: int):
            fraction = min(a.mem_fraction_static, sglang_mem_fraction_static(gpu_memory_gb, t, graph))
            fit = engine_fit(config, tensor_parallel=t, precision=precision, gpu_memory_gb=gpu_memory_gb,
                             group_size=group_size, max_prompt_tokens=int(max_prompt_tokens or 4 * prompt_tokens),
                             max_response_tokens=int(max_response_tokens or 2 * response_mean),
                             mem_fraction_static=fraction)
            return fit, fraction, min(a.max_running_requests, int(fit.kv_capacity_tokens / context))

        # The graph's reserve comes out of the KV cache: size it for the batch that cache holds
        # (a second pass, whose batch can only be smaller, stays under the captured graph).
        graph = a.cuda_graph_max_bs or sglang_decode_graph_max_bs(gpu_memory_gb, t)
        fit, fraction, batch = fitted(graph)
        if a.cuda_graph_max_bs is None and fit.fits:
            graph = batch
            fit, fraction, batch = fitted(graph)
            batch = min(batch, graph)
        if not fit.fits:
            refused.append(fit)
            continue
        weights = fit.weights_gb_per_gpu * 1e9
        kv_token = kv_bytes_per_token(config, t)
        capacity = fit.kv_capacity_tokens
        # Above SGLang's decode graph a step is launched kernel by kernel (eager_s).
        decode = DecodeSpeed(
            dense_s=dense_bytes / t / weights_hbm, experts_s=expert_bytes / t / weights_hbm,
            expert_share=config.num_experts_per_tok / config.num_experts, kv_s=context * kv_token / kv_hbm,
            flops_s=2 * active / t / (peak * a.decode_mfu),
            fixed_s=a.decode_overhead_s + (2 * config.num_hidden_layers * a.allreduce_latency_s if t > 1 else 0.0),
            graph_max_bs=graph, eager_s=a.eager_decode_overhead_s)
        step = decode.step_s(batch)
        # The radix cache shares a group's prompt across its G samples; in_place servers run
        # without it (--disable-radix-cache, payload/rollout/sglang_args.py), and SGLang 0.5.23's
        # disabled cache matches no prefix (mem_cache/unified_radix_cache.py _match_tree), so
        # each sample prefills the prompt itself.
        prompts = group_size if a.pause_mode == "in_place" else 1
        prefill_per_token = prompts * prompt_tokens / (group_size * response_mean) * 2 * active / (t * peak * a.prefill_mfu)
        per_token = step / batch + prefill_per_token
        replicas = gpus_per_node // t
        reprefill = batch * context * 2 * active / (t * peak * a.prefill_mfu) if a.pause_mode != "in_place" else 0.0
        out.append(ServerOption(t, replicas, batch, step, weights / 1e9, capacity, replicas / per_token, reprefill,
                                graph_max_bs=graph, mem_fraction_static=fraction, decode=decode))
    out.sort(key=lambda e: -e.tokens_per_s_per_node)
    if out:
        best = out[0]
        others = ", ".join(f"TP {e.tensor_parallel} {e.tokens_per_s_per_node:,.0f}" for e in out[1:])
        why = (f"most tokens/s per node of the layouts that fit ({others or 'no other fits'}); "
               f"{best.weights_gb_per_gpu:.0f} GB of weights a GPU leave KV for {best.batch} requests of "
               f"{context:,.0f} tokens" + "".join(f"; TP {f.tensor_parallel} does not fit: {f.describe()}" for f in refused))
        out[0] = replace(best, why=why)
    return out


def trainer_estimate(env, prompt_tokens: float, response_mean: float, a: Assumptions,
                     layout: TrainerLayout | None = None) -> TrainerEstimate:
    """The job's model under `layout` (default the environment's resolved one), on the train
    pool's GPUs (what `a` leaves None is theirs)."""
    job, train = env.job, env.pools.train
    a = a.on(train.spec.gpu_spec)
    _, config = shape_of(job.model)
    layout = layout or env.layout.trainer
    shape = step_shape(job, layout.data_parallel, pipelined=layout.pipeline > 1)
    fp: Footprint = footprint_as_set(config, layout, shape, job.model.lm_head_keep_logits, train.spec,
                                     residents=Residents.of(job))
    samples = job.batch.prompts_per_step * job.algorithm.group_size
    mean_sample = prompt_tokens + response_mean
    embedding, layers, head = layer_costs(config, int(mean_sample))
    flops_per_token = 3 * (embedding + sum(layers) + head)
    # Kept logits (model.lm_head_keep_logits, where they fit) spare backward's second LM-head
    # forward: a token's work is one LM-head forward less at the same rate, which counts model
    # FLOPs with the recomputed ones inside it.
    work_per_token = flops_per_token - (head if fp.keeps_logits else 0)
    tokens = samples * mean_sample
    compute_s = tokens * work_per_token / (layout.world * a.train_mfu * a.peak_tflops * 1e12)
    # footprint's bytes are for its own step shape: scale them to this step's tokens.
    scale = tokens / shape.tokens
    unhidden: dict[str, float] = {}
    fsdp = 0.0
    for name, traffic in fp.traffic_gb.items():
        # Per-token bytes grow with the step's tokens; per-parameter ones (FSDP, HSDP) do not.
        per_step = traffic.kind in ("fsdp", "hsdp")
        seconds = traffic.gb * 1e9 * (1.0 if per_step else scale) / (
            fp.nvlink_bytes_per_s if traffic.link == "NVLink" else fp.efa_bytes_per_s)
        if traffic.kind in ("ep", "hsdp"):  # on the critical path
            unhidden[name] = seconds
        elif traffic.kind == "fsdp":  # prefetched behind compute, up to the compute's length
            fsdp += seconds
    if fsdp > compute_s:
        unhidden["FSDP gather + reduce-scatter beyond compute"] = fsdp - compute_s
    return TrainerEstimate(layout, flops_per_token, compute_s, fp.bubble, unhidden, tokens, samples * response_mean,
                           fp.memory_total_gb, fp.keeps_logits)


def estimate_rates(env, *, response_mean: float | None = None, response_sigma: float = 0.8,
                   a: Assumptions = Assumptions()) -> Estimate:
    """The trainer's and one rollout node's rates and the publish pause of the job's model on
    `env` (its resolved layout; estimate.checks.load_environment(name, model=...) for another)."""
    from estimate.costs import Hardware, model_costs

    model, config = shape_of(env.job.model)
    job = env.job
    a = replace(a, pause_mode=a.pause_mode or job.rollout.pause_mode)
    prompt = a.prompt_tokens if a.prompt_tokens is not None else job.batch.max_prompt_tokens / 4
    mean = response_mean or job.batch.max_response_tokens / 2
    trainer = trainer_estimate(env, prompt, mean, a)
    rollout = env.pools.rollout
    engines = engine_layouts(config, gpus_per_node=rollout.spec.gpus, gpu_memory_gb=rollout.spec.gpu_memory_gb,
                             prompt_tokens=prompt, response_mean=mean, response_sigma=response_sigma,
                             group_size=job.algorithm.group_size, a=a.on(rollout.spec.gpu_spec), precision=job.rollout.precision,
                             max_prompt_tokens=job.batch.max_prompt_tokens,
                             max_response_tokens=job.batch.max_response_tokens)
    if not engines:
        from estimate.loop import BalanceError

        raise BalanceError(f"{model}: no tensor-parallel layout of one {rollout.instance_type} holds its "
                           f"{job.rollout.precision} weights and a KV cache for one group at the job's lengths")
    engine = engines[0]
    costs = model_costs(config, train_nodes=env.pools.train.desired_size, shard_gpus=trainer.layout.shard, pipeline=trainer.layout.pipeline,
                        servers=rollout.desired_size * engine.replicas_per_node, server_gpus=engine.tensor_parallel,
                        fsx_storage_gib=env.storage.fsx_storage_gib,
                        fsx_mb_s_per_tib=env.storage.fsx_throughput_mb_s_per_tib, keep_last=job.checkpoint.keep_last,
                        rollout_precision=job.rollout.precision, bucket_bytes=job.rollout.publish_bucket_bytes,
                        hardware=Hardware.of(env.pools.train.spec))
    pause = costs.publish.pause_s + engine.reprefill_s
    return Estimate(
        model=model, trainer=trainer, engines=engines, engine=engine,
        trainer_tokens_per_s_per_node=trainer.response_tokens / trainer.step_s / env.pools.train.desired_size,
        publish_stall_s=costs.publish.stall_s, server_pause_s=pause, publish_s=max(costs.publish.stall_s, pause),
        prompt_tokens=prompt, response_tokens_mean=mean, assumptions=a.on(env.pools.train.spec.gpu_spec),
    )


def server_flags(env):
    """SGLang flags for the environment's own replica layout (env.layout.servers' TP), from
    the planner's fit of it (ServerOption.flags); None where that layout holds no group (the
    environment checks refuse it before anything is rendered)."""
    from estimate.loop import BalanceError

    try:
        engines = estimate_rates(env).engines
    except BalanceError:
        return None
    tp = env.layout.servers.tensor_parallel
    return next((e.flags for e in engines if e.tensor_parallel == tp), None)


def all_tokens_per_s_per_gpu(prediction, spec, prompt_tokens: float, split=None) -> float:
    """NeMo-RL's tokens/s/GPU: the trained batch's prompt and response tokens / step / every GPU.
    `prediction`: the planner's, or a simulator's result with its `split`."""
    split = split or prediction.split
    trained_groups_per_s = spec.prompts_per_step / prediction.step_time_s
    prompts = trained_groups_per_s * spec.group_size * prompt_tokens
    gpus = split.train_gpus + split.rollout_nodes * spec.rollout_gpus_per_node
    return (prediction.trained_tokens_per_s + prompts) / gpus


@dataclass(frozen=True)
class StalenessChoice:
    max_staleness: int
    prediction: object  # estimate.planner.Prediction
    tokens_per_s_per_gpu: float


def loop_spec(env, estimate: Estimate, response_sigma: float = 0.8):
    """The loop model's inputs for this estimate: the picked engine layout's replicas and batch."""
    from estimate.loop import LoopSpec, Rates

    # The transfer and load pause the loop on every publish; the re-prefill after a retracting one
    # is of the requests running then (LoopSpec.publish_s_at), which the loop knows, not the engine.
    transfer = max(estimate.publish_stall_s, estimate.server_pause_s - estimate.engine.reprefill_s)
    rates = Rates(estimate.engine.tokens_per_s_per_node, estimate.trainer_tokens_per_s_per_node, transfer,
                  estimate.response_tokens_mean, response_sigma)
    return LoopSpec.from_environment(env, rates, server_slots=estimate.engine.batch).with_(
        replica_gpus=estimate.engine.tensor_parallel, decode=estimate.engine.decode,
        reprefill_s=estimate.engine.reprefill_s)


def choose_staleness(spec, split, prompt_tokens: float, limits=(1, 2, 3, 4), max_dropped: float = 0.10):
    """Each max_staleness in `limits` at `split`; the pick: the most tokens/s/GPU among those
    dropping under `max_dropped` of the groups (else the fewest drops)."""
    from estimate.planner import predict

    rows = []
    for s in limits:
        spec_s = spec.with_(max_staleness=s)
        p = predict(spec_s, split)
        rows.append(StalenessChoice(s, p, all_tokens_per_s_per_gpu(p, spec_s, prompt_tokens)))
    under = [r for r in rows if r.prediction.stale_dropped_fraction < max_dropped]
    pick = max(under, key=lambda r: r.tokens_per_s_per_gpu) if under else min(
        rows, key=lambda r: r.prediction.stale_dropped_fraction)
    return rows, pick


def print_estimate(estimate: Estimate, env, rows, pick, out, label: str | None = None) -> None:
    """`label`: the model as the user named it (default its name)."""
    t, e, a = estimate.trainer, estimate.engine, estimate.assumptions
    print(f"\nGRPO step of {label or estimate.model} on {env.name} (first principles; estimate/throughput.py)", file=out)
    print(f"  step shape: {env.job.batch.prompts_per_step} prompts x {env.job.algorithm.group_size}, prompts "
          f"{estimate.prompt_tokens:,.0f} tokens, responses lognormal mean {estimate.response_tokens_mean:,.0f} "
          f"(max {env.job.batch.max_response_tokens:,}): {t.step_tokens / 1e6:.1f} M tokens", file=out)
    print(f"  trainer ({t.layout.describe()}, {t.layout.world} GPUs): {t.flops_per_token / 1e9:.1f} GFLOP a token "
          f"(6 x active + attention) at {a.train_mfu:.1%} MFU of {a.peak_tflops:.0f} TFLOP/s = {t.compute_s:.0f} s"
          + (" (LM-head logits kept: one LM-head forward a token less); " if t.keeps_logits else "; ")
          + f"1F1B bubble {t.bubble:.1%}; unhidden "
          + (", ".join(f"{k} {v:.1f} s" for k, v in t.unhidden.items()) or "nothing")
          + f"; {t.step_s:.0f} s of training a step = {estimate.trainer_tokens_per_s_per_node:,.0f} response tokens/s a node",
          file=out)
    print("  rollout engine layouts (decode roofline per node; best first):", file=out)
    for layout in estimate.engines:
        print(f"    {layout.describe()}; weights {layout.weights_gb_per_gpu:.0f} GB/GPU, KV for "
              f"{layout.kv_capacity_tokens:,} tokens, re-prefill after a retracting pause {layout.reprefill_s:.1f} s", file=out)
    runs = env.layout.servers
    f = e.flags
    default_graph = sglang_decode_graph_max_bs(env.pools.rollout.spec.gpu_memory_gb, e.tensor_parallel)
    print(f"  SGLang flags for it (payload/rollout/sglang_args.py): {' '.join(f.args())}"
          + (f" (without them SGLang 0.5.23 captures decode graphs up to {default_graph}: a batch of {e.batch} "
             f"would decode eagerly above it)" if e.batch > default_graph else ""), file=out)
    print(f"  picked TP {e.tensor_parallel}: {e.why} (the environment runs TP "
          f"{runs.tensor_parallel} / EP {runs.expert_parallel} for {estimate.model})", file=out)
    paused = pick.prediction.trainer_publish_fraction * pick.prediction.step_time_s
    print(f"  publish: trainer stall {estimate.publish_stall_s:.1f} s, server pause {estimate.server_pause_s:.1f} s "
          f"with a full batch (re-prefill {e.reprefill_s:.1f} s of it, pause mode {a.pause_mode}); at the picked staleness "
          f"the loop pauses {paused:.1f} s a publish (the re-prefill is of the requests running then"
          + ("; in place none: tails go on across versions)" if a.pause_mode == "in_place" else ")")
          + f"; buckets of {env.job.rollout.publish_bucket_bytes >> 20:,} MiB (rollout.publish_bucket_mb)", file=out)
    _, why = routing_replay_choice(env)
    print(f"  routing replay: rollout.return_routed_experts {str(env.job.rollout.routes_replayed).lower()} "
          f"(auto is {why})", file=out)
    print("  max_staleness at the environment's split "
          f"{pick.prediction.split.label} ({env.job.rollout.workers * env.job.rollout.worker_concurrency} groups in flight, "
          f"rollout.stale_tokens {env.job.rollout.stale_tokens}):", file=out)
    for r in rows:
        p = r.prediction
        mark = "  <- picked" if r is pick else ""
        print(f"    {r.max_staleness}: step {p.step_time_s:,.0f} s, stale dropped {p.stale_dropped_fraction:.1%}, trainer idle "
              f"{p.trainer_idle_fraction:.0%}, servers' slots fed {p.slots_fed:.0%}, bound {p.bound}, "
              + (f"stale tokens masked {p.stale_masked_fraction:.1%}, " if env.job.rollout.stale_tokens == "mask" else "")
              + f"{r.tokens_per_s_per_gpu:,.0f} tokens/s/GPU{mark}", file=out)
    gpus = pick.prediction.split.train_gpus + pick.prediction.split.rollout_nodes * env.pools.rollout.spec.gpus
    print(f"  predicted: {pick.tokens_per_s_per_gpu:,.0f} tokens/s/GPU (NeMo-RL's count: the trained batch's prompt + "
          f"response tokens / step / all {gpus} GPUs), environment max_staleness {env.job.rollout.max_staleness}", file=out)
    own = next((r for r in rows if r.max_staleness == env.job.rollout.max_staleness), None)
    if own is not None and own is not pick:
        print(f"    at the environment's own max_staleness {own.max_staleness}: {own.tokens_per_s_per_gpu:,.0f} tokens/s/GPU, "
              f"bound {own.prediction.bound}, {own.prediction.stale_dropped_fraction:.0%} dropped stale, servers' slots fed "
              f"{own.prediction.slots_fed:.0%}", file=out)
    for label, value, gpus_, tp, seq in NEMO_RL_PUBLISHED.get(estimate.model, []):
        print(f"    NeMo-RL v0.6 {label}: {value:,} tokens/s/GPU on {gpus_} H100 (generation TP {tp}, mean sequence "
              f"{seq:,} tokens)", file=out)
    print("  assumptions: " + ", ".join(f"{k} {v}" for k, v in a.table().items()), file=out)
    p = pick.prediction
    print(f"  budget: {p.step_time_s:,.0f} s a step (bound: {p.bound}; the trainer's own work {t.step_s:.0f} s of it) "
          f"and {p.trainer_publish_fraction * p.step_time_s:.1f} s a publish pauses each server "
          f"({estimate.server_pause_s - e.reprefill_s:.1f} s transfer and load + the re-prefill of what runs, at most "
          f"{e.reprefill_s:.1f} s, pause mode {a.pause_mode})", file=out)


def scaled_case(env, nodes: int, train_nodes: int, a: Assumptions = Assumptions()):
    """The loop of `model` on `nodes` nodes of env's kind (train_nodes of them training), the
    job's batch, groups in flight and buffer scaled by nodes / env's nodes, at the staleness
    the planner picks: (spec, split, picked row). The trainer's per-node rate is the shipped
    layout's (compute-bound; EP inside a node), its mesh one node."""
    estimate = estimate_rates(env, a=a)
    spec = loop_spec(env, estimate)
    scale = nodes / (env.pools.train.desired_size + env.pools.rollout.desired_size)
    spec = spec.with_(prompts_per_step=round(spec.prompts_per_step * scale),
                      groups_in_flight=round(spec.groups_in_flight * scale),
                      high_water_groups=round(spec.high_water_groups * scale),
                      train_gpu_multiple=spec.train_gpus_per_node)
    split = spec.split(train_nodes, nodes - train_nodes)
    _, pick = choose_staleness(spec, split, estimate.prompt_tokens)
    return spec.with_(max_staleness=pick.max_staleness), split, pick
