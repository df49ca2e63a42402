"""What one trainer step costs per GPU for a model and a job's parallel layout: memory and
bytes per link. Arithmetic only (no torch), printed by `python -m payload plan --model-config`.

Memory per GPU (payload.train.parallel's layout: W ranks, EP size P, shard size S, G GPUs a node):
    master weights, gradients   4 B + 4 B per parameter / S  (FSDP2 shards, fp32)
    AdamW moments               8 B per parameter / S
    gathered for compute        bf16 of this rank's parameters (every dense one, its 1/P of the
                                experts): the whole set for the step when gradients are reduced
                                once per step (plus their fp32 unsharded gradients), two layers'
                                worth when reduced every micro-batch
    activations                 the largest micro-batch (the token budget, or the longest
                                sample when it is longer), per token and layer
                                2 B × (6·D + (2·Hq + 4·Hkv)·hd + K·(2·D + 3·F)) for every layer
                                (one layer's plus a D-wide checkpoint per layer with activation
                                checkpointing), plus one 4096-row fp32 + bf16 LM-head chunk.
                                An estimate: bench/train_step.py's 4-layer, 32 k-token run
                                measured 13 GiB beside its 46 GiB of state, this gives 18.

Bytes per GPU per step, and the link they cross:
    EP all-to-all     each token's K expert rows, D wide in bf16, to the other P − 1 ranks:
                      T·K·D·2·(P−1)/P per pass; 4 passes a layer (dispatch and combine, forward
                      and backward), 6 with activation checkpointing. NVLink while P ≤ G.
    FSDP all-gather   (S−1)/S of this rank's bf16 parameters, once per step (held) or twice per
                      micro-batch; reduce-scatter of fp32 gradients, once per step or per
                      micro-batch. NVLink while S ≤ G, else (S−G)/S of it over EFA.
    HSDP all-reduce   the fp32 gradient shard across the R = W/S replicas (ring: 2·(R−1)/R of
                      it), once per step or per micro-batch; EFA.
Seconds are bytes over the issue's link figures (NVLink 900 GB/s, EFA 50 GB/s per GPU): lower
bounds, overlap with compute not counted.
"""

from __future__ import annotations

from dataclasses import dataclass

NVLINK_BYTES_PER_S = 900e9
EFA_BYTES_PER_S_PER_GPU = 50e9
LM_HEAD_CHUNK_ROWS = 4096


@dataclass(frozen=True)
class Layout:
    nodes: int
    gpus_per_node: int
    expert_parallel: int
    shard: int
    per_step_sync: bool = True
    activation_checkpointing: bool = True

    @property
    def world(self) -> int:
        return self.nodes * self.gpus_per_node

    @property
    def replicas(self) -> int:
        return self.world // self.shard


@dataclass(frozen=True)
class StepShape:
    tokens: int  # every sample's prompt + response tokens in one step (all ranks)
    largest_micro_batch: int  # tokens


@dataclass(frozen=True)
class Footprint:
    params: float
    expert_params: float
    memory_gb: dict[str, float]
    traffic_gb: dict[str, tuple[str, float]]  # name -> (link, GB per GPU per step)

    @property
    def memory_total_gb(self) -> float:
        return sum(self.memory_gb.values())

    def link_gb(self, link: str) -> float:
        return sum(gb for l, gb in self.traffic_gb.values() if l == link)

    def link_seconds(self, link: str) -> float:
        return self.link_gb(link) * 1e9 / (NVLINK_BYTES_PER_S if link == "NVLink" else EFA_BYTES_PER_S_PER_GPU)


def parameter_counts(config) -> tuple[float, float, float]:
    """(all parameters, expert parameters, one decoder layer's dense parameters) of a Qwen3MoeConfig."""
    d, hd = config.hidden_size, config.head_dim
    attention = d * hd * (2 * config.num_attention_heads + 2 * config.num_key_value_heads) + 2 * hd + 2 * d
    moe_layers = sum(config.is_moe_layer(i) for i in range(config.num_hidden_layers))
    dense_layers = config.num_hidden_layers - moe_layers
    experts = moe_layers * config.num_experts * 3 * d * config.moe_intermediate_size
    routers = moe_layers * config.num_experts * d
    mlps = dense_layers * 3 * d * config.intermediate_size
    embeddings = config.vocab_size * d * (1 if config.tie_word_embeddings else 2)
    total = config.num_hidden_layers * attention + experts + routers + mlps + embeddings + d
    return total, experts, attention + config.num_experts * d


def footprint(config, layout: Layout, shape: StepShape) -> Footprint:
    total, experts, layer_dense = parameter_counts(config)
    dense = total - experts
    p, s, g, r = layout.expert_parallel, layout.shard, layout.gpus_per_node, layout.replicas
    local = dense + experts / p  # what this rank computes with, gathered
    layers = config.num_hidden_layers
    per_layer_local = layer_dense + experts / layers / p
    d, hd, k, f = config.hidden_size, config.head_dim, config.num_experts_per_tok, config.moe_intermediate_size
    act_per_token_layer = 2 * (6 * d + (2 * config.num_attention_heads + 4 * config.num_key_value_heads) * hd + k * (2 * d + 3 * f))
    t = shape.largest_micro_batch
    if layout.activation_checkpointing:
        activations = t * (act_per_token_layer + layers * 2 * d)
    else:
        activations = t * act_per_token_layer * layers
    activations += LM_HEAD_CHUNK_ROWS * config.vocab_size * 6
    gathered = local * (2 + 4) if layout.per_step_sync else 2 * per_layer_local * (2 + 4)
    memory = {
        "weights fp32 (sharded)": 4 * total / s,
        "gradients fp32 (sharded)": 4 * total / s,
        "AdamW moments fp32 (sharded)": 8 * total / s,
        "gathered bf16 weights + unsharded grads": gathered,
        f"activations ({t:,}-token micro-batch)": activations,
    }
    tokens_per_gpu = shape.tokens / layout.world
    micro_batches = max(1, round(tokens_per_gpu / max(shape.largest_micro_batch, 1) + 0.4999))
    syncs = 1 if layout.per_step_sync else micro_batches
    gathers = 1 if layout.per_step_sync else 2 * micro_batches
    moe_layers = sum(config.is_moe_layer(i) for i in range(layers))
    passes = 6 if layout.activation_checkpointing else 4
    a2a = tokens_per_gpu * k * d * 2 * (p - 1) / p * passes * moe_layers
    fsdp = (gathers * 2 + syncs * 4) * local * (s - 1) / s
    traffic: dict[str, tuple[str, float]] = {}
    if p > g:  # explicit cross-node EP: the share bound for other nodes goes over EFA
        traffic["EP all-to-all (in node)"] = ("NVLink", a2a * (g - 1) / (p - 1) / 1e9)
        traffic["EP all-to-all (across nodes)"] = ("EFA", a2a * (p - g) / (p - 1) / 1e9)
    else:
        traffic["EP all-to-all"] = ("NVLink", a2a / 1e9)
    if s > g:
        traffic["FSDP gather + reduce-scatter (in node)"] = ("NVLink", fsdp * (g - 1) / (s - 1) / 1e9)
        traffic["FSDP gather + reduce-scatter (across nodes)"] = ("EFA", fsdp * (s - g) / (s - 1) / 1e9)
    else:
        traffic["FSDP gather + reduce-scatter"] = ("NVLink", fsdp / 1e9)
    if r > 1:
        traffic["HSDP gradient all-reduce"] = ("EFA", syncs * 4 * total / s * 2 * (r - 1) / r / 1e9)
    return Footprint(total, experts, {k: v / 1e9 for k, v in memory.items()}, traffic)


def job_footprint(config, environment) -> tuple[Layout, StepShape, Footprint]:
    """The footprint of `config` under an environment's train pool and job."""
    job, train = environment.job, environment.pools.train
    gpus = train.spec.gpus
    layout = Layout(
        nodes=train.desired_size,
        gpus_per_node=gpus,
        expert_parallel=job.parallel.expert_parallel_size,
        shard=job.parallel.shard_size(gpus),
        per_step_sync=not job.parallel.sync_gradients_every_micro_batch,
        activation_checkpointing=job.model.activation_checkpointing,
    )
    samples = job.batch.prompts_per_step * job.algorithm.group_size
    # Lengths: a prompt at its cap and responses at half theirs on average (the planner's default).
    tokens = samples * (job.batch.max_prompt_tokens + job.batch.max_response_tokens // 2)
    longest = job.batch.max_prompt_tokens + job.batch.max_response_tokens
    largest = max(job.batch.micro_batch_tokens, longest) if job.batch.packing else job.batch.micro_batch_size * longest
    shape = StepShape(tokens, largest)
    return layout, shape, footprint(config, layout, shape)


def print_footprint(name: str, environment, layout: Layout, shape: StepShape, fp: Footprint, out) -> None:
    print(f"\nTrainer footprint: {name} ({fp.params / 1e9:.1f} B parameters, {fp.expert_params / 1e9:.1f} B in experts) on "
          f"{environment.name}: {layout.nodes} x {layout.gpus_per_node} GPUs, EP {layout.expert_parallel}, FSDP shard "
          f"{layout.shard}, {layout.replicas} HSDP replica(s), gradients reduced "
          f"{'once per step' if layout.per_step_sync else 'every micro-batch'}, "
          f"activation checkpointing {'on' if layout.activation_checkpointing else 'off'}", file=out)
    print("  memory per GPU", file=out)
    for what, gb in fp.memory_gb.items():
        print(f"    {what:<44} {gb:8.1f} GB", file=out)
    print(f"    {'total':<44} {fp.memory_total_gb:8.1f} GB", file=out)
    print(f"  bytes per GPU per step ({shape.tokens:,} tokens a step)", file=out)
    for what, (link, gb) in fp.traffic_gb.items():
        print(f"    {what:<44} {gb:8.1f} GB  {link}", file=out)
    for link in ("NVLink", "EFA"):
        print(f"    {link + ' total':<44} {fp.link_gb(link):8.1f} GB  >= {fp.link_seconds(link):.1f} s", file=out)
