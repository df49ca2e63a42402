"""algorithm.off_policy_correction: the job setting, its one-line errors, and the masked fraction
reaching the step's metrics (the loss itself is checked against float64 references in
test_train_loss.py)."""

import pytest
import torch

from spec.job import JobConfigError, parse_job_config
from payload.train.batch import micro_batches
from payload.train.step import LossConfig, train_step
from train_cases import batch, tiny_model


def test_default_is_todays_tis():
    a = parse_job_config({}, "job.yaml").algorithm
    assert (a.off_policy_correction, a.tis_cap, a.off_policy_low, a.off_policy_high) == ("tis", 2.0, 0.5, 5.0)
    a = parse_job_config({"algorithm": {"off_policy_correction": "icepop", "off_policy_low": 0.4,
                                        "off_policy_high": 3.0}}, "job.yaml").algorithm
    assert (a.off_policy_correction, a.off_policy_low, a.off_policy_high) == ("icepop", 0.4, 3.0)


@pytest.mark.parametrize("algorithm, field", [
    ({"off_policy_correction": "mis"}, "job.algorithm.off_policy_correction: Input should be 'tis', 'sequence_mask' or 'icepop'"),
    ({"off_policy_low": 1.0}, "job.algorithm.off_policy_low: Input should be less than 1"),
    ({"off_policy_low": 0}, "job.algorithm.off_policy_low: Input should be greater than 0"),
    ({"off_policy_high": 0.9}, "job.algorithm.off_policy_high: Input should be greater than 1"),
    ({"off_policy_high": "wide"}, "job.algorithm.off_policy_high: Input should be a valid number"),
])
def test_bad_values_are_one_line_errors_naming_the_field(algorithm, field):
    with pytest.raises(JobConfigError) as raised:
        parse_job_config({"algorithm": algorithm}, "job.yaml")
    assert str(raised.value).startswith(f"job.yaml: {field}") and "\n" not in str(raised.value)


def _step(**loss):
    model = tiny_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
    return train_step(model, optimizer, micro_batches(batch(0), 12, 1), LossConfig(**loss))


def test_masked_fraction_is_in_the_step_metrics():
    assert _step(tis_cap=2.0)["off_policy_masked_fraction"] == 0.0
    for correction in ("sequence_mask", "icepop"):
        wide = _step(tis_cap=2.0, off_policy_correction=correction, off_policy_low=1e-6, off_policy_high=1e6)
        narrow = _step(tis_cap=2.0, off_policy_correction=correction, off_policy_low=0.999, off_policy_high=1.001)
        assert wide["off_policy_masked_fraction"] == 0.0, correction
        assert 0.0 < narrow["off_policy_masked_fraction"] <= 1.0, correction
        # Nothing masked: the same step as TIS (icepop's weight is the uncapped ratio, so only the
        # sequence mask with every sequence kept is TIS exactly).
        if correction == "sequence_mask":
            assert wide["loss"] == pytest.approx(_step(tis_cap=2.0)["loss"], rel=1e-12)
