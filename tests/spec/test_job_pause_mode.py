"""job.rollout.pause_mode: SGLang's pause_generation mode for the trainer's publishes."""

import pytest

from spec.job import JobConfigError, parse_job_config


def test_pause_mode_defaults_to_retract_and_takes_in_place():
    assert parse_job_config({}, "job.yaml").rollout.pause_mode == "retract"
    assert parse_job_config({"rollout": {"pause_mode": "in_place"}}, "job.yaml").rollout.pause_mode == "in_place"


@pytest.mark.parametrize("bad", ["abort", "inplace", 1])
def test_a_bad_pause_mode_is_one_line_naming_the_field(bad):
    with pytest.raises(JobConfigError) as caught:
        parse_job_config({"rollout": {"pause_mode": bad}}, "job.yaml")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("job.yaml: job.rollout.pause_mode: ")
    assert "'retract' or 'in_place'" in message
