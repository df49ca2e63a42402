"""job.rollout.publish_bucket_mb: the trainer's publish bucket (auto: chosen with the trainer's
layout, estimate.layout; a job read on its own runs the largest)."""

import pytest

from spec.job import PUBLISH_BUCKET_MB, JobConfigError, parse_job_config


def test_auto_runs_the_largest_bucket_until_resolved_and_a_set_bucket_is_kept():
    assert parse_job_config({}, "job.yaml").rollout.publish_bucket_mb == "auto"
    assert parse_job_config({}, "job.yaml").rollout.publish_bucket_bytes == PUBLISH_BUCKET_MB << 20 == 4 << 30
    assert parse_job_config({"rollout": {"publish_bucket_mb": 512}}, "job.yaml").rollout.publish_bucket_bytes == 512 << 20


@pytest.mark.parametrize("bad", [0, -64, "big", True, 1.5])
def test_a_bad_bucket_is_one_line_naming_the_field(bad):
    with pytest.raises(JobConfigError) as caught:
        parse_job_config({"rollout": {"publish_bucket_mb": bad}}, "job.yaml")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("job.yaml: job.rollout.publish_bucket_mb: ")
    assert "expected a positive number of MiB, or auto" in message
