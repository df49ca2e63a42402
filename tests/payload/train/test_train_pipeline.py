"""Pipeline parallelism × expert parallelism × FSDP2 on 8 real gloo processes equals one process.

World 8 = PP 2 stages × (EP 2 × edp_shard 2): stage 0 is ranks 0-3 (the embedding and layer 0),
stage 1 ranks 4-7 (layer 1, norm, LM head); inside a stage every dense parameter is sharded
over its 4 ranks and each EP rank's 4 experts over its 2 edp_shard ranks. Each stage's 4 ranks
are the data-parallel ranks: pipeline i (ranks i and 4 + i) trains on share i of every batch,
packed by a token budget and padded to one length per step (payload.train.pipeline), under the
1F1B schedule with the GRPO loss on the last stage and the global gradient norm over both
stages. The reference: a plain model in one process, the whole batch, the same loss.

With SGD at lr 1 the weights after a step are the weights before minus the clipped global
gradient, so comparing weights compares gradients (fp32 reduction-order noise); the loss and
the gradient norm are compared step by step.
"""

import json
import math

import pytest
import torch
import torch.distributed as dist

from payload.model import iter_hf_tensors
from payload.train.batch import micro_batches, packed_for_rank, split_for_ranks
from payload.train.parallel import full_hf_tensors, init_world, parallelize
from spec.layout import TrainerLayout
from payload.train.pipeline import build_stage, pipeline_train_step, split_layers
from payload.train.step import LossConfig, train_step
from test_train_parallel import assert_matches_one_process, CONFIG, make_optimizer
from train_cases import batch, tiny_model
from train_dist_pool import GlooPool

WORLD, PP, EP, SHARD = 8, 2, 2, 4
PROMPTS = 4  # 16 samples a step: 4 per pipeline
STEPS = 2
BUDGET = 12  # tokens: a few micro-batches per pipeline, so 1F1B has warm-up, steady state and drain
KL = LossConfig(kl_coef=0.1, tis_cap=2.0, dual_clip=3.0, max_grad_norm=0.05)


@pytest.fixture(scope="module")
def pool():
    pool = GlooPool(world_size=WORLD, timeout_s=300)
    yield pool
    pool.close()


def _pipelined_model(world, seed=0):
    return parallelize(build_stage(tiny_model(seed), world), world, ep_backend="all_to_all")


def _distributed(rank, world_size, kind, config):
    world = init_world(TrainerLayout(PP, WORLD // PP, EP, SHARD, pipeline=PP))
    model = _pipelined_model(world)
    reference = _pipelined_model(world, seed=5).requires_grad_(False) if config.kl_coef else None
    optimizer = make_optimizer(kind, model.parameters())
    history, counts = [], []
    for step in range(STEPS):
        mine = split_for_ranks(batch(step, prompts=PROMPTS), world.stage_world_size)[world.dp_rank]
        micro = packed_for_rank(mine, BUDGET, dist.group.WORLD)
        counts.append(len(micro))
        metrics = pipeline_train_step(model, optimizer, micro, config, world, reference=reference)
        history.append((metrics["grad_norm"], metrics["loss"]))
    layers = sorted({int(n.split(".")[2]) for n, _ in model.named_parameters() if n.startswith("model.layers.")})
    weights = {name: t.clone() for name, t in full_hf_tensors(model, world)}
    return history, weights, layers, counts


@pytest.mark.parametrize("kind,config", [("sgd", CONFIG), ("adamw", KL)], ids=["sgd", "adamw-kl-reference"])
def test_pp2_ep2_fsdp2_matches_one_process(pool, kind, config):
    results = pool.run(_distributed, kind, config)
    history, weights, _, counts = results[0]
    assert all(r[0] == history for r in results)  # the same global numbers on every rank
    assert all(r[1] == {} for r in results[1:])  # rank 0 received every stage's tensors
    assert [r[2] for r in results] == [[0]] * 4 + [[1]] * 4  # stage 0: layer 0, stage 1: layer 1
    assert all(c > PP for c in counts)  # more micro-batches than stages: 1F1B's steady state ran

    model = tiny_model()
    reference = tiny_model(seed=5) if config.kl_coef else None
    optimizer = make_optimizer(kind, model.parameters())
    expected_history = []
    for step in range(STEPS):
        samples = batch(step, prompts=PROMPTS)
        metrics = train_step(model, optimizer, micro_batches(samples, 2, 8), config, reference=reference)
        expected_history.append((metrics["grad_norm"], metrics["loss"]))
    assert_matches_one_process(history, expected_history, weights, model, kind, config.max_grad_norm)


@pytest.mark.parametrize("stages", [4, 8])
def test_split_layers_balances_cost_with_the_lm_head_counted(stages):
    import json

    from payload.model import Qwen3MoeConfig
    from spec.model_shape import ARCHITECTURE_CONFIGS
    from estimate.stages import layer_costs

    path = ARCHITECTURE_CONFIGS["Qwen3-235B-A22B"]
    config = Qwen3MoeConfig.from_hf_dict(json.loads(path.read_text()), str(path))
    ranges = split_layers(config, stages)
    assert [i for r in ranges for i in r] == list(range(config.num_hidden_layers))  # contiguous, complete
    embedding, layers, head = layer_costs(config)
    costs = [sum(layers[i] for i in r) for r in ranges]
    costs[0] += embedding
    costs[-1] += head
    ideal = sum(costs) / stages
    assert max(costs) <= ideal + max(layers)  # no stage is more than one layer over an even split
    assert len(ranges[-1]) < len(ranges[0])  # the LM head (2.4 layers' FLOPs) takes layers off the last stage


def _step(model, optimizer, world, step):
    mine = split_for_ranks(batch(step, prompts=PROMPTS), world.stage_world_size)[world.dp_rank]
    return pipeline_train_step(model, optimizer, packed_for_rank(mine, BUDGET, dist.group.WORLD), CONFIG, world)


def _checkpoint_resume_export(rank, world_size, directory, export_path):
    from payload.train.checkpoint import Checkpointer, TrainCounters, latest
    from payload.train.export import export_hf
    from payload.train.pipeline import PipelineScorer

    world = init_world(TrainerLayout(PP, WORLD // PP, EP, SHARD, pipeline=PP))
    checkpointer = Checkpointer.Config(directory=directory).build(world)
    model = _pipelined_model(world)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    _step(model, optimizer, world, 0)
    checkpointer.save(model, optimizer, TrainCounters(step=1, policy_version=1, groups_consumed=PROMPTS))
    continued = _step(model, optimizer, world, 1)
    expected = dict(full_hf_tensors(model, world))

    fresh = _pipelined_model(world, seed=1)
    fresh_optimizer = torch.optim.AdamW(fresh.parameters(), lr=1e-2)
    counters = checkpointer.load(latest(directory), fresh, fresh_optimizer)
    resumed = _step(fresh, fresh_optimizer, world, 1)
    got = dict(full_hf_tensors(fresh, world))

    writer = export_hf(fresh, world, export_path, dtype=torch.bfloat16, shard_bytes=48 * 1024)
    exported = dict(full_hf_tensors(fresh, world, torch.bfloat16))
    ids = torch.randint(1, 256, (1, 12), generator=torch.Generator().manual_seed(0))
    probe = PipelineScorer(fresh, world)(ids, next_tokens=ids[:, 1:]).logprobs
    return (counters.step, continued["loss"], resumed["loss"], continued["grad_norm"], resumed["grad_norm"],
            expected, got, writer.total_bytes, exported, probe)


def test_pipelined_checkpoint_resumes_bitwise_and_exports_for_transformers(pool, tmp_path):
    import transformers

    from payload.model import compute_logprobs, load_hf_state_dict
    from payload.model.qwen3_moe import Qwen3MoeForCausalLM

    path = tmp_path / "hf" / "step-00000002"
    results = pool.run(_checkpoint_resume_export, str(tmp_path / "ckpt"), str(path))
    step, loss, resumed_loss, norm, resumed_norm, expected, got, _, exported, probe = results[0]
    assert step == 1
    # The step after the resume is bitwise the step the uninterrupted run took.
    assert (resumed_loss, resumed_norm) == (loss, norm)
    assert expected.keys() == got.keys() == dict(iter_hf_tensors(tiny_model())).keys()
    for name in expected:
        assert torch.equal(expected[name], got[name]), name
    assert all(r[7] > 0 for r in results)  # every rank of both stages wrote a share of the export

    hf = transformers.Qwen3MoeForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
    ours = Qwen3MoeForCausalLM(tiny_model().config).eval()
    load_hf_state_dict(ours, {k: v.float() for k, v in exported.items()})
    ids = torch.randint(1, 256, (1, 12), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        torch.testing.assert_close(hf(ids).logits, ours(ids).logits, rtol=0, atol=1e-4)
        # The post-publish probe scores through the stages what the whole model scores.
        whole = Qwen3MoeForCausalLM(tiny_model().config).eval()
        load_hf_state_dict(whole, got)
        torch.testing.assert_close(probe, compute_logprobs(whole, ids)[0], rtol=1e-5, atol=1e-5)
    for r in results:  # every rank of the pipeline got the last stage's logprobs
        assert torch.equal(r[9], probe)


def test_the_trainer_runs_a_pipelined_layout_end_to_end(tmp_path):
    """`python -m payload train` on 2 ranks as 2 pipeline stages (the layout set in job.parallel): trains on packed micro-batches, checkpoints and exports from
    both stages, exits 0."""
    import socket

    import yaml

    from payload.model import load_pretrained
    from test_train_cli import PROMPTS_PER_STEP, fill, save_pretrained, train, write_job
    from tests.payload.queue.redis_server import started

    model_dir = tmp_path / "Qwen3-Tiny"
    save_pretrained(tiny_model(), model_dir)
    server = started()
    try:
        fill(server.url, "pp", 0, 2 * PROMPTS_PER_STEP)
        job = yaml.safe_load(write_job(tmp_path / "job.yaml", model_dir, tmp_path / "ckpt").read_text())
        job["parallel"] |= {"pipeline_parallel_size": 2, "expert_parallel_size": 1}
        # Pipelined micro-batches are packed to the longest sample (max_prompt_tokens +
        # max_response_tokens, 16 here): several a step through the stages.
        job["batch"].update(micro_batch_tokens=16, max_prompt_tokens=8)
        (tmp_path / "job.yaml").write_text(yaml.safe_dump(job))
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = str(s.getsockname()[1])
        metrics = tmp_path / "metrics.jsonl"
        procs = [train(tmp_path / "job.yaml", server.url, "pp", "--max-steps", "2", "--metrics-jsonl", str(metrics),
                       wait=False, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE="2", MASTER_ADDR="127.0.0.1",
                       MASTER_PORT=port, LOCAL_WORLD_SIZE="1")  # two one-GPU nodes: a stage is whole nodes
                 for rank in (0, 1)]
        outs = [p.communicate(timeout=240)[0] for p in procs]
    finally:
        server.close()
    assert [p.returncode for p in procs] == [0, 0], outs
    records = [json.loads(line) for line in metrics.read_text().splitlines()]
    assert len(records) == 2 and all(math.isfinite(r["loss"]) and r["grad_norm"] > 0 for r in records)
    assert (tmp_path / "ckpt" / "step-00000002" / ".metadata").is_file()
    exported = load_pretrained(tmp_path / "ckpt" / "hf" / "step-00000002", dtype=torch.float32)
    assert {n for n, _ in iter_hf_tensors(exported)} == {n for n, _ in iter_hf_tensors(tiny_model())}
