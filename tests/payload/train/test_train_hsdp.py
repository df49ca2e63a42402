"""HSDP + expert parallelism on 8 real gloo processes, laid out as 2 "nodes" x 4 ranks, equals
one process without either.

World 8, data_parallel_shard_size 4 (a "node"), so 2 replicas: every dense parameter is sharded
over the 4 ranks of its node and replicated across the two nodes (2-D mesh, HSDP); with EP 2
each node holds the 8 experts twice over (2 EP ranks) and shards each EP rank's experts over
its 2 edp_shard ranks, replicated across nodes again. EP 4 puts a whole node's ranks in one
expert group (edp_shard of size 1). Each rank trains on its eighth of every batch.

Gradients: with SGD at lr 1 the weights after a step are the weights before minus the clipped
global gradient, so comparing weights compares gradients (fp32 reduction-order noise, atol
1e-7); the loss and the global gradient norm (HSDP replicas must not be counted twice) are
compared step by step. AdamW checks parameters after the steps (bound as in
test_train_parallel.py).
"""

import math

import pytest
import torch
import torch.distributed as dist

from payload.train.batch import micro_batches, packed_for_rank, shard_for_rank, split_for_ranks
from payload.train.parallel import full_hf_tensors, init_world, parallelize
from spec.layout import TrainerLayout
from payload.train.step import train_step
from test_train_parallel import assert_matches_one_process, CONFIG, MICRO, STEPS, make_optimizer
from train_cases import batch, tiny_model
from train_dist_pool import GlooPool

WORLD, NODE = 8, 4
PROMPTS = 4  # 16 samples a step: 2 per rank


@pytest.fixture(scope="module")
def pool():
    pool = GlooPool(world_size=WORLD, timeout_s=300)
    yield pool
    pool.close()


def micro_count(n, world):
    return math.ceil(math.ceil(n / world) / MICRO)


def _distributed(rank, world_size, kind, ep, packed=False, sync_every=False):
    world = init_world(TrainerLayout(WORLD // NODE, NODE, ep, NODE))
    assert world.dense_mesh.mesh_dim_names == ("dp_replicate", "dp_shard")
    model = parallelize(tiny_model(), world, ep_backend="all_to_all")
    optimizer = make_optimizer(kind, model.parameters())
    history = []
    for step in range(STEPS):
        samples = batch(step, prompts=PROMPTS)
        if packed:  # the trainer's path: token-balanced shares, packed by a token budget
            micro = packed_for_rank(split_for_ranks(samples, world_size)[rank], 12, dist.group.WORLD)
        else:
            micro = micro_batches(shard_for_rank(samples, rank, world_size), MICRO, micro_count(len(samples), world_size))
        if sync_every:
            assert len(micro) > 1  # the cross-replica all-reduce is deferred past several micro-batches
        metrics = train_step(model, optimizer, micro, CONFIG, group=dist.group.WORLD, norm_group=world.replica_group,
                             sync_every_micro_batch=sync_every)
        history.append((metrics["grad_norm"], metrics["loss"]))
    placements = {str(p.placements) for p in model.parameters()}
    weights = {name: t.clone() for name, t in full_hf_tensors(model, world)}
    return history, weights, placements


@pytest.mark.parametrize("kind,ep,packed,sync_every", [("sgd", 2, False, False), ("adamw", 2, False, False),
                                                       ("sgd", 4, False, False), ("sgd", 2, True, False),
                                                       ("sgd", 2, True, True)])
def test_two_nodes_of_four_hsdp_with_expert_parallel_match_one_process(pool, kind, ep, packed, sync_every):
    """`sync_every`: reduce-scatter every micro-batch, all-reduce across the nodes once, after
    the last (FSDP2 adds the earlier reduce-scattered shards into it)."""
    results = pool.run(_distributed, kind, ep, packed, sync_every)
    history, weights, placements = results[0]
    assert all(r[0] == history for r in results)  # the same global numbers on every rank
    assert all(r[1] == {} for r in results[1:])
    # Dense and expert parameters alike: replicated across the nodes, sharded inside one.
    assert placements == {"(Replicate(), Shard(dim=0))"}

    model = tiny_model()
    optimizer = make_optimizer(kind, model.parameters())
    expected_history = []
    for step in range(STEPS):
        samples = batch(step, prompts=PROMPTS)
        metrics = train_step(model, optimizer, micro_batches(samples, MICRO, micro_count(len(samples), 1)), CONFIG)
        expected_history.append((metrics["grad_norm"], metrics["loss"]))
    assert_matches_one_process(history, expected_history, weights, model, kind, CONFIG.max_grad_norm)


def _checkpoint_round_trip(rank, world_size, directory):
    from payload.train.checkpoint import Checkpointer, TrainCounters, latest

    world = init_world(TrainerLayout(WORLD // NODE, NODE, 2, NODE))
    checkpointer = Checkpointer.Config(directory=directory).build(world)
    model = parallelize(tiny_model(), world, ep_backend="all_to_all")
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    train_step(model, optimizer, micro_batches(shard_for_rank(batch(0, prompts=PROMPTS), rank, world_size), MICRO, 1),
               CONFIG, group=dist.group.WORLD, norm_group=world.replica_group)
    checkpointer.save(model, optimizer, TrainCounters(step=1, policy_version=1, groups_consumed=PROMPTS))
    trained = dict(full_hf_tensors(model, world))
    fresh = parallelize(tiny_model(seed=1), world, ep_backend="all_to_all")
    checkpointer.load(latest(directory), fresh, torch.optim.AdamW(fresh.parameters(), lr=1e-2))
    return trained, dict(full_hf_tensors(fresh, world))


def test_hsdp_checkpoint_round_trip(pool, tmp_path):
    """DCP sees replicated expert shards once (the (ep, edp_shard, dp_replicate) global view)."""
    trained, loaded = pool.run(_checkpoint_round_trip, str(tmp_path))[0]
    assert trained.keys() == loaded.keys()
    for name in trained:
        assert torch.equal(trained[name], loaded[name]), name


def _load(rank, world_size, path):
    from payload.train.loading import load_sharded

    world = init_world(TrainerLayout(WORLD // NODE, NODE, 2, NODE))
    model, read = load_sharded(path, world, ep_backend="all_to_all")
    kept = sum(p.to_local().numel() for p in model.parameters())
    return read, kept, dict(full_hf_tensors(model, world))


def test_sharded_loading_reads_each_byte_once_per_replica(pool, tmp_path):
    """Meta build, shard, then each rank reads only its own rows of the bf16 safetensors."""
    from safetensors import safe_open

    from payload.model import save_pretrained

    save_pretrained(tiny_model(seed=3).to(torch.bfloat16), tmp_path, max_shard_bytes=64 << 10)
    assert len(list(tmp_path.glob("model-*.safetensors"))) > 1  # an index and several files
    on_disk = {}
    for file in tmp_path.glob("model-*.safetensors"):
        with safe_open(str(file), framework="pt") as f:
            on_disk.update({name: f.get_tensor(name) for name in f.keys()})
    total = sum(t.numel() * t.element_size() for t in on_disk.values())

    results = pool.run(_load, str(tmp_path))
    for read, kept, _ in results:
        assert read == 2 * kept  # bf16 on disk: exactly the rows it keeps, nothing else
    for node in range(WORLD // NODE):
        assert sum(read for read, _, _ in results[node * NODE : (node + 1) * NODE]) == total
    loaded = results[0][2]
    assert loaded.keys() == on_disk.keys()
    for name, tensor in on_disk.items():
        assert loaded[name].dtype == torch.float32 and torch.equal(loaded[name], tensor.float()), name
