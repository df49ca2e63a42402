"""Bad environments are rejected with one line naming the field; no traceback, no cdk.out."""

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from spec.environment import EnvironmentFileError
from estimate.checks import job_costs, load_environment, parse_environment

REPO = Path(__file__).resolve().parents[2]
DEFAULT = yaml.safe_load((REPO / "environments" / "default.yaml").read_text())


def with_change(change) -> dict:
    data = copy.deepcopy(DEFAULT)
    change(data)
    return data


CASES = {
    "missing field": (lambda d: d.pop("region"), "default.yaml: region: required field is missing"),
    "zone outside region": (
        lambda d: d.update(availability_zone="eu-west-1a"),
        "availability_zone 'eu-west-1a' is not a zone of region us-east-2",
    ),
    "efa on a type without efa": (
        lambda d: d["pools"]["cpu"].update(efa=True),
        "pools.cpu: efa is true but c7i.8xlarge does not support EFA",
    ),
    "min above max": (
        lambda d: d["pools"]["train"].update(min_size=3, max_size=2),
        "pools.train: min_size 3 is greater than max_size 2",
    ),
    "reservation on spot": (
        lambda d: d["pools"]["rollout"].update(capacity_reservation_id="cr-0123456789abcdef0"),
        "pools.rollout: capacity_reservation_id cannot be used with capacity_type SPOT",
    ),
    "capacity block without reservation": (
        lambda d: d["pools"]["train"].update(capacity_type="CAPACITY_BLOCK"),
        "pools.train: capacity_type CAPACITY_BLOCK needs capacity_reservation_id",
    ),
    # EC2 places a Capacity Block's instances together itself (EC2 API Reference, CapacityBlock).
    "placement group on a capacity block": (
        lambda d: d["pools"]["train"].update(capacity_type="CAPACITY_BLOCK", capacity_reservation_id="cr-0f3a9c1e5b7d24680"),
        "pools.train: placement_group cannot be used with capacity_type CAPACITY_BLOCK: a Capacity Block's instances "
        "are already co-located; set placement_group: false",
    ),
    # The trainer is one gang on all its nodes: only the rollout pool follows its replicas.
    "autoscaled train pool": (
        lambda d: d["pools"]["train"].update(autoscale=True),
        "default.yaml: pools.train.autoscale: only the rollout pool may be autoscaled (the trainer is one gang that "
        "needs all its nodes at once)",
    ),
    "autoscaled capacity block": (
        lambda d: d["pools"]["rollout"].update(capacity_type="CAPACITY_BLOCK", capacity_reservation_id="cr-0f3a9c1e5b7d24680"),
        "pools.rollout: autoscale cannot be used with capacity_type CAPACITY_BLOCK: EC2 launches a block's instances "
        "only inside its window and reclaims them at its end; size it with make scale",
    ),
    "root volume sized for images on an nvme node": (
        lambda d: d["pools"]["train"].update(root_volume_gib=1000),
        "pools.train: root_volume_gib 1000: on p5en.48xlarge images, pod volumes and pod logs live on the local NVMe "
        "RAID0, not the root volume; use at most 100 (or leave it out)",
    ),
    "unknown capacity type": (
        lambda d: d["pools"]["train"].update(capacity_type="RESERVED"),
        "pools.train.capacity_type: 'RESERVED': Input should be 'ON_DEMAND', 'SPOT' or 'CAPACITY_BLOCK'",
    ),
    # No key is close to it: the error lists those there are.
    "unknown pool field": (lambda d: d["pools"]["memory"].update(gpus=1),
                           "default.yaml: unknown key 'gpus' in pools.memory (known keys: instance_type, min_size,"),
    "same zone twice": (
        lambda d: d.update(control_plane_availability_zone="us-east-2a"),
        "control_plane_availability_zone must differ from availability_zone",
    ),
    "expert parallel across nodes by default": (
        lambda d: d["job"]["parallel"].update(expert_parallel_size=16, data_parallel_shard_size=16),
        "job.parallel.expert_parallel_size 16 is more than one node's 8 GPUs: every MoE layer's all-to-all would "
        "cross EFA; use at most 8, or set expert_parallel_across_nodes: true with ep_backend: deepep",
    ),
    "expert parallel across nodes without deepep": (
        lambda d: d["job"]["parallel"].update(expert_parallel_size=16, data_parallel_shard_size=16, expert_parallel_across_nodes=True),
        "job.parallel: expert_parallel_across_nodes needs ep_backend deepep",
    ),
    "expert group straddling nodes": (
        lambda d: d["job"]["parallel"].update(expert_parallel_size=3, data_parallel_shard_size=None),
        "job.parallel.expert_parallel_size 3 must divide, or be a multiple of, one node's 8 GPUs",
    ),
    "expert group outside the shard group": (
        lambda d: d["job"]["parallel"].update(expert_parallel_size=8, data_parallel_shard_size=4),
        "job.parallel.data_parallel_shard_size 4 must be a multiple of expert_parallel_size 8",
    ),
    "shard group larger than the trainer": (
        lambda d: d["job"]["parallel"].update(data_parallel_shard_size=32),
        "job.parallel.data_parallel_shard_size 32 must divide the trainer's world size 16 (2 train nodes x 8 GPUs)",
    ),
    "bad job field": (
        lambda d: d["job"]["batch"].update(micro_batch_size=0),
        "job.batch.micro_batch_size: 0: Input should be greater than or equal to 1",
    ),
    # Storage is sized from the job (estimate/costs.py): 4 x 366 GB checkpoints + 4 x 61 GB
    # exports + the 61 GB base model of Qwen3-30B-A3B do not fit 1200 GiB.
    "fsx too small for the checkpoints": (
        lambda d: d["storage"].update(fsx_storage_gib=1200),
        "storage.fsx_storage_gib 1200: Qwen3-30B-A3B needs 1,732 GiB (4 checkpoints of 366 GB and 4 HF exports of "
        "61 GB for checkpoint.keep_last 3, plus the base model); use 2400 or more",
    ),
    "fsx too small for more kept checkpoints": (
        lambda d: d["job"].update(checkpoint={"keep_last": 5}),
        "storage.fsx_storage_gib 2400: Qwen3-30B-A3B needs 2,568 GiB (6 checkpoints",
    ),
    "fsx too slow for the checkpoint write": (
        lambda d: d["storage"].update(fsx_throughput_mb_s_per_tib=125),
        "storage: writing a Qwen3-30B-A3B checkpoint (366 GB) at 0.29 GB/s (2400 GiB x 125 MB/s/TiB) takes 1,251 s, "
        "more than the 900 s the trainer's stall timeout and startup probe allow; it needs 0.41 GB/s",
    ),
    # default.yaml's EP 8 x FSDP 8 on 2 nodes: no layout of 2 nodes holds 235B (before it, a
    # replica of one node was refused for staging 2,821 GB of checkpoint in its host memory).
    "235B on two train nodes": (
        lambda d: (d["job"]["model"].update(path="/fsx/models/Qwen3-235B-A22B"),
                   d["storage"].update(fsx_storage_gib=14400, fsx_throughput_mb_s_per_tib=1000)),
        "job.parallel: Qwen3-235B-A22B needs 450.9 GB a GPU under its least-memory layout (PP 2 x EP 8 x FSDP 8 x 1 repl) "
        "with publish buckets of 512 MiB (the smallest auto tries) on 2 train nodes, more than the 126.9 GB that fit (90% of a 141 GB GPU); add train nodes",
    ),
    # Groups already being generated when the buffer reaches its byte mark (80% of Redis's
    # maxmemory) still land: with routing replay they no longer fit the 20% above it.
    "routed experts in flight past redis maxmemory": (
        lambda d: d["job"].setdefault("rollout", {}).update(return_routed_experts=True, workers=16, worker_concurrency=64),
        "job.rollout: 1024 groups in flight (workers 16 x worker_concurrency 64) of up to 0.03 GB each with routed "
        "experts can land after the buffer's byte mark: 33 GB, more than the 8.2 GB of Redis maxmemory (41 GB on "
        "r7i.4xlarge) above it",
    ),
    "model of unknown size": (
        lambda d: d["job"]["model"].update(path="/fsx/models/my-moe"),
        "job.model.path '/fsx/models/my-moe': 'my-moe' is not a released model (Qwen3-30B-A3B, Qwen3-235B-A22B) and its "
        "config.json is not readable here; set job.model.architecture",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_rejected_with_one_clear_line(case):
    change, expected = CASES[case]
    with pytest.raises(EnvironmentFileError) as error:
        parse_environment(with_change(change), "default.yaml")
    message = str(error.value)
    assert expected in message and "\n" not in message


def test_both_shipped_environments_are_valid():
    seed = load_environment("p5en-48")
    assert (seed.pools.train.desired_size, seed.pools.rollout.desired_size) == (16, 32)
    assert seed.pools.train.instance_type == seed.pools.rollout.instance_type == "p5en.48xlarge"
    assert load_environment("default").pools.train.efa
    parallel = load_environment("default").job.parallel  # Qwen3-30B-A3B: EP and FSDP inside a node, HSDP across
    assert (parallel.expert_parallel_size, parallel.data_parallel_shard_size) == (8, 8)
    # p5en-48: the layouts `payload plan --model` picks (tests/estimate/test_footprint.py).
    parallel = seed.job.parallel
    assert (parallel.expert_parallel_size, parallel.data_parallel_shard_size) == (8, 128)
    big = load_environment("p5en-48", model="Qwen3-235B-A22B").layout.trainer
    assert (big.pipeline, big.expert_parallel, big.shard) == (16, 8, 8)


def test_235b_fits_where_the_sizing_says():
    """The storage and layout the p5en-48 file gives for Qwen3-235B-A22B are accepted."""
    data = yaml.safe_load((REPO / "environments" / "p5en-48.yaml").read_text())
    data["job"]["model"]["path"] = "/fsx/models/Qwen3-235B-A22B"
    with pytest.raises(EnvironmentFileError, match="storage.fsx_storage_gib 4800: Qwen3-235B-A22B needs 13,334 GiB"):
        parse_environment(data, "p5en-48.yaml")
    data["storage"] = {"fsx_storage_gib": 14400, "fsx_throughput_mb_s_per_tib": 1000}
    costs = job_costs(parse_environment(data, "p5en-48.yaml"))
    assert round(costs.checkpoint.write_s) == 201 and costs.checkpoint.bytes == 12 * costs.architecture.parameters
    # One replica's nodes stage it; a resume reads the checkpoint once, whatever the replicas.
    ckpt = costs.checkpoint
    assert ckpt.host_bytes_per_node == ckpt.bytes // ckpt.writer_nodes
    assert ckpt.resume_s == ckpt.base_read_s + ckpt.write_s + ckpt.broadcast_s


def run_app(tmp_path, context: dict) -> subprocess.CompletedProcess:
    outdir = tmp_path / "cdk.out"
    env = {**os.environ, "CDK_OUTDIR": str(outdir), "CDK_CONTEXT_JSON": json.dumps(context)}
    return subprocess.run([sys.executable, "app.py"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(
    "env_name, expected",
    [
        ("nope", "error: unknown environment 'nope': choose one of default, p5en-48, smoke (files in environments/)"),
        ("bad-env.yaml", "error: bad-env.yaml: pools.train: min_size 3 is greater than max_size 2"),
    ],
)
def test_app_exits_without_traceback_or_output(tmp_path, env_name, expected):
    if env_name.endswith(".yaml"):
        bad = with_change(lambda d: d["pools"]["train"].update(min_size=3, max_size=2))
        (tmp_path / env_name).write_text(yaml.safe_dump(bad))
        env_name = str(tmp_path / env_name)
    result = run_app(tmp_path, {"env": env_name})
    assert result.returncode == 1
    assert result.stderr.strip() == expected
    assert "Traceback" not in result.stderr + result.stdout
    outdir = tmp_path / "cdk.out"
    assert not outdir.exists() or not any(outdir.iterdir())


def test_a_non_utf8_environment_file_is_one_line_and_no_output(tmp_path):
    path = tmp_path / "latin1.yaml"
    text = "# r\u00e9gion de test\n" + yaml.safe_dump(DEFAULT)
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(EnvironmentFileError, match=r"^latin1.yaml: not UTF-8 text \(byte 0xe9 at offset 3\)$"):
        load_environment(str(path))
    result = run_app(tmp_path, {"env": str(path)})
    assert result.returncode == 1
    assert result.stderr.strip() == "error: latin1.yaml: not UTF-8 text (byte 0xe9 at offset 3)"
    assert "Traceback" not in result.stderr + result.stdout
    outdir = tmp_path / "cdk.out"
    assert not outdir.exists() or not any(outdir.iterdir())
