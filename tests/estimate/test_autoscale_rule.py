"""The rollout scaling rule (estimate.autoscale): what each signal asks for, and its bounds."""

import pytest

from estimate.autoscale import RolloutScaler, Signals
from estimate.loop import BalanceError

SCALER = RolloutScaler(min_replicas=2, max_replicas=32)


def test_trainer_idle_with_less_than_a_batch_waiting_grows_by_what_would_have_fed_it():
    # 20% idle: 10 replicas would have needed 10 / 0.8 = 12.5 -> 13.
    assert SCALER.desired(10, Signals(0.20, 0.5, 0.0)) == 13
    # At most max_step replicas at once, never past the pool.
    assert SCALER.desired(10, Signals(0.90, 0.0, 0.0)) == 10 + SCALER.max_step
    assert SCALER.desired(31, Signals(0.50, 0.0, 0.0)) == 32


def test_batches_waiting_for_a_busy_trainer_or_stale_drops_shrink_by_a_tenth_never_below_the_floor():
    assert SCALER.desired(10, Signals(0.0, 2.5, 0.0)) == 9
    assert SCALER.desired(30, Signals(0.0, 2.5, 0.0)) == 27
    assert SCALER.desired(10, Signals(0.0, 0.3, 0.10)) == 9
    assert SCALER.desired(2, Signals(0.0, 5.0, 0.5)) == 2


def test_between_the_marks_holds():
    """Idle while a batch is already waiting is the trainer waiting on a publish, not on too
    few servers; a busy trainer with less than a batch waiting is balanced: hold."""
    assert SCALER.desired(10, Signals(0.20, 1.5, 0.0)) == 10
    assert SCALER.desired(10, Signals(0.01, 0.5, 0.01)) == 10


def test_bounds_are_checked():
    with pytest.raises(BalanceError, match="min_replicas 0"):
        RolloutScaler(min_replicas=0, max_replicas=4)
    with pytest.raises(BalanceError, match="max_replicas 2"):
        RolloutScaler(min_replicas=3, max_replicas=2)


def test_keda_formula_names_the_triggers_and_the_thresholds():
    formula = SCALER.keda_formula()
    for name in ("replicas", "idle", "batches", "stale"):
        assert name in formula
    for value in (SCALER.idle_high, SCALER.idle_low, SCALER.batches_high, SCALER.stale_high, SCALER.max_step):
        assert str(value) in formula
