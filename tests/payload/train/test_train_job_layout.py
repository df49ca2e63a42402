"""payload.train.parallel.job_layout: the layout a trainer process runs, with the publish bucket
its memory was counted with (what its publisher then allocates)."""

import pytest

from payload.train.parallel import job_layout
from spec.job import parse_job_config

FIXED = {"pipeline_parallel_size": 1, "expert_parallel_size": 1, "data_parallel_shard_size": 1,
         "sync_gradients_every_micro_batch": False}


@pytest.mark.parametrize("bucket, runs", [(64, 64), ("auto", 4096)])
def test_a_rendered_job_runs_its_own_bucket(monkeypatch, bucket, runs):
    monkeypatch.setenv("WORLD_SIZE", "1")
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "1")
    job = parse_job_config({"parallel": FIXED, "rollout": {"publish_bucket_mb": bucket}}, "job.yaml")
    choice = job_layout(job)
    assert choice.publish_bucket_mb == runs
    assert (choice.layout.pipeline, choice.layout.expert_parallel, choice.layout.shard) == (1, 1, 1)
