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
    for name in ("asked", "up", "started", "idle", "batches", "stale"):
        assert name in formula
    for value in (SCALER.idle_high, SCALER.idle_low, SCALER.batches_high, SCALER.stale_high, SCALER.max_step):
        assert str(value) in formula


def _expr(formula: str, env: dict) -> float:
    """The subset of expr-lang the formula uses (?:, ||, &&, comparisons, + - * /, min, max, ceil,
    floor), as Python: the ternary rewritten by a small recursive-descent parser."""
    import math
    import re

    tokens = re.findall(r"\d+\.\d+|\d+|&&|\|\||>=|<=|[A-Za-z_]\w*|[-+*/()<>?:,]", formula)
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def take(expected=None):
        nonlocal pos
        tok = tokens[pos]
        assert expected is None or tok == expected, (tok, expected)
        pos += 1
        return tok

    def ternary():
        cond = orr()
        if peek() == "?":
            take("?")
            a = ternary()
            take(":")
            b = ternary()
            return a if cond else b
        return cond

    def orr():
        v = andd()
        while peek() == "||":
            take()
            w = andd()
            v = bool(v) or bool(w)
        return v

    def andd():
        v = cmp()
        while peek() == "&&":
            take()
            w = cmp()
            v = bool(v) and bool(w)
        return v

    def cmp():
        v = add()
        if peek() in (">", "<", ">=", "<="):
            op = take()
            w = add()
            return {">": v > w, "<": v < w, ">=": v >= w, "<=": v <= w}[op]
        return v

    def add():
        v = mul()
        while peek() in ("+", "-"):
            op = take()
            w = mul()
            v = v + w if op == "+" else v - w
        return v

    def mul():
        v = atom()
        while peek() in ("*", "/"):
            op = take()
            w = atom()
            v = v * w if op == "*" else v / w
        return v

    def atom():
        tok = take()
        if tok == "(":
            v = ternary()
            take(")")
            return v
        if tok == "-":
            return -atom()
        if tok in ("min", "max", "ceil", "floor"):
            take("(")
            args = [ternary()]
            while peek() == ",":
                take(",")
                args.append(ternary())
            take(")")
            return {"min": min, "max": max, "ceil": math.ceil, "floor": math.floor}[tok](*args)
        if tok[0].isdigit():
            return float(tok)
        return env[tok]

    value = ternary()
    assert pos == len(tokens)
    return float(value)


def test_the_keda_formula_computes_what_the_simulator_hands_the_hpa():
    import itertools

    scaler = RolloutScaler(min_replicas=1, max_replicas=64)
    formula = scaler.keda_formula()
    for asked, up, idle, batches, stale, started in itertools.product(
        (1, 5, 9, 10, 19, 40, 58, 64), (0, 3, 30, 64), (0.0, 0.03, 0.06, 0.3, 1.0), (0.0, 0.5, 1.0, 2.5), (0.0, 0.1), (0, 1)
    ):
        env = dict(asked=asked, up=up, idle=idle, batches=batches, stale=stale, started=started)
        expected = scaler.metric_value(asked, Signals(idle, batches, stale), up, bool(started))
        assert _expr(formula, env) == pytest.approx(expected), env


def test_every_step_the_rule_takes_survives_the_hpa_tolerance():
    """The HPA (estimate.hpa) gives back the rule's count for every grow and shrink from every
    count up to 64, with status.replicas equal to the spec; a hold keeps it."""
    from estimate.hpa import external_per_pod_replicas, keda_milli

    scaler = RolloutScaler(min_replicas=1, max_replicas=64)
    for asked in range(1, 65):
        for signals in (Signals(0.06, 0.0, 0.0), Signals(0.5, 0.0, 0.0), Signals(0.0, 2.0, 0.0), Signals(0.03, 0.5, 0.0)):
            want = scaler.desired(asked, signals, up=asked)
            value = scaler.metric_value(asked, signals, up=asked)
            assert min(64, external_per_pod_replicas(asked, keda_milli(value), 1000)) == want, (asked, signals)
