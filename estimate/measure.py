"""Measured rates from a finished (or running) job: its metrics JSONL or a Prometheus text export.

    measured = read_metrics("run/metrics.jsonl", train_nodes=16, rollout_nodes=32, group_size=16)
    measured.rates                 → estimate.loop.Rates for the planner

Both inputs carry the signals of spec.signals. Per node means per node of the run
that wrote them (`train_nodes`, `rollout_nodes`: the split it ran on).

The trainer's rate is exact: tokens trained / seconds busy. The rollout side's flat-out rate is
what it produced per second of decoding time it had: wall time minus weight-publish pauses,
minus the share its workers spent paused at the buffer's high-water mark. When only the
trainer's records are there and the trainer hardly waited, the rollout side was faster than it
had to be and its rate is a lower bound; `notes` says so.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from spec import signals
from estimate.loop import BalanceError, Rates

# Below this share of wall time spent waiting, the trainer did not see the rollout side's limit.
_WAITED = 0.05


@dataclass(frozen=True)
class Measured:
    rates: Rates
    steps: int
    train_nodes: int
    rollout_nodes: int
    trainer_wait_fraction: float
    notes: list[str] = field(default_factory=list)
    # What the run says it ran on (train_step records' optional `device` and `model` fields);
    # empty when its records do not say.
    devices: frozenset[str] = frozenset()
    models: frozenset[str] = frozenset()


@dataclass
class _Totals:
    steps: int = 0
    groups: float = 0.0
    tokens: float = 0.0  # trained
    busy_s: float = 0.0
    wait_s: float = 0.0
    publish_s: float = 0.0
    stale: float = 0.0
    filtered: float = 0.0
    # Σ groups × mean response length, when every record says (the trainer's JSONL does).
    response_tokens: float | None = None
    # Rollout side, when its own records or series are there.
    produced_tokens: float | None = None
    rollout_busy_s: float = 0.0
    rollout_idle_s: float = 0.0
    devices: frozenset = frozenset()
    models: frozenset = frozenset()


def read_metrics(path: str | Path, train_nodes: int, rollout_nodes: int, group_size: int) -> Measured:
    path = Path(path)
    if not path.is_file():
        raise BalanceError(f"--from-metrics {path}: no such file")
    if train_nodes < 1 or rollout_nodes < 1:
        raise BalanceError(f"measured split {train_nodes}:{rollout_nodes}: both sides need at least one node")
    text = path.read_text()
    first = next((line for line in text.splitlines() if line.strip()), None)
    if first is None:
        raise BalanceError(f"--from-metrics {path}: empty")
    totals = _from_jsonl(text, path) if first.lstrip().startswith("{") else _from_prometheus(text, path)
    return _rates(totals, path, train_nodes, rollout_nodes, group_size)


def _from_jsonl(text: str, path: Path) -> _Totals:
    steps, rollout = [], []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            raise BalanceError(f"{path}:{number}: not a JSON object") from None
        kind = record.get("kind") if isinstance(record, dict) else None
        if kind == signals.KIND_TRAIN_STEP:
            missing = [f for f in ("groups", "tokens", "trainer_busy_s", "trainer_wait_s", "publish_s") if f not in record]
            if missing:
                raise BalanceError(f"{path}:{number}: train_step record without {', '.join(missing)}")
            steps.append(record)
        elif kind == signals.KIND_ROLLOUT:
            rollout.append(record)
    steps = signals.current_records(steps)  # a step a restarted trainer replayed counts once
    if len(steps) < 2:
        raise BalanceError(f"{path}: {len(steps)} train_step record(s); the planner needs at least 2")
    # The first step pays for start-up (compilation, an empty buffer): leave it out.
    steps = steps[1:]
    t = _Totals(steps=len(steps))
    t.devices = frozenset(str(r["device"]) for r in steps if r.get("device"))
    t.models = frozenset(str(r["model"]) for r in steps if r.get("model"))
    for r in steps:
        t.groups += r["groups"]
        t.tokens += r["tokens"]
        t.busy_s += r["trainer_busy_s"]
        t.wait_s += r["trainer_wait_s"]
        t.publish_s += r["publish_s"]
        t.stale += r.get("groups_dropped_stale", 0)
        t.filtered += r.get("groups_dropped_filtered", 0)
    if all("response_length_mean" in r for r in steps):
        t.response_tokens = float(sum(r["response_length_mean"] * r["groups"] for r in steps))
    start = steps[0]["wall_time"] - (steps[0]["trainer_busy_s"] + steps[0]["trainer_wait_s"] + steps[0]["publish_s"])
    window = [r for r in rollout if start <= r["wall_time"] <= steps[-1]["wall_time"]]
    if window:
        t.produced_tokens = float(sum(r["tokens"] for r in window))
        t.rollout_busy_s = float(sum(r["busy_s"] for r in window))
        t.rollout_idle_s = float(sum(r["idle_s"] for r in window))
    return t


def _from_prometheus(text: str, path: Path) -> _Totals:
    from prometheus_client.parser import text_string_to_metric_families

    sums: dict[str, float] = {}
    dropped: dict[str, float] = {}
    try:
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if sample.name == signals.ROLLOUT_GROUPS_DROPPED:
                    reason = sample.labels.get(signals.DROP_REASON_LABEL, "")
                    dropped[reason] = dropped.get(reason, 0.0) + sample.value
                sums[sample.name] = sums.get(sample.name, 0.0) + sample.value
    except ValueError as exc:
        raise BalanceError(f"{path}: neither metrics JSONL nor Prometheus text ({exc})") from None
    if sums.get(signals.TRAINER_STEPS, 0) < 1 or signals.TRAINER_BUSY_SECONDS not in sums:
        raise BalanceError(f"{path}: no {signals.TRAINER_STEPS} / {signals.TRAINER_BUSY_SECONDS} series (a trainer's /metrics)")
    t = _Totals(
        steps=int(sums[signals.TRAINER_STEPS]),
        groups=sums.get(signals.TRAINER_GROUPS_CONSUMED, 0.0),
        tokens=sums.get(signals.TRAINER_TOKENS_CONSUMED, 0.0),
        busy_s=sums[signals.TRAINER_BUSY_SECONDS],
        wait_s=sums.get(signals.TRAINER_IDLE_SECONDS, 0.0),
        publish_s=sums.get(signals.TRAINER_PUBLISH_SECONDS, 0.0),
        stale=dropped.get(signals.DROP_REASON_STALE, 0.0),
        filtered=dropped.get(signals.DROP_REASON_FILTERED, 0.0),
    )
    if signals.ROLLOUT_TOKENS_GENERATED in sums:
        t.produced_tokens = sums[signals.ROLLOUT_TOKENS_GENERATED]
        t.rollout_busy_s = sums.get(signals.ROLLOUT_BUSY_SECONDS, 0.0)
        t.rollout_idle_s = sums.get(signals.ROLLOUT_IDLE_SECONDS, 0.0)
    return t


def _rates(t: _Totals, path: Path, train_nodes: int, rollout_nodes: int, group_size: int) -> Measured:
    if t.tokens <= 0 or t.groups <= 0 or t.busy_s <= 0:
        raise BalanceError(f"{path}: the trainer trained no tokens (or spent no time doing it)")
    notes = []
    wall = t.busy_s + t.wait_s + t.publish_s
    decoding = wall - t.publish_s
    group_tokens = t.tokens / t.groups
    if t.produced_tokens is not None:
        produced = t.produced_tokens
        worker_time = t.rollout_busy_s + t.rollout_idle_s
        paused = t.rollout_idle_s / worker_time if worker_time > 0 else 0.0
        decoding *= 1 - paused
    else:
        produced = t.tokens + (t.stale + t.filtered) * group_tokens
        if t.wait_s / wall < _WAITED:
            notes.append(
                f"the trainer waited {t.wait_s / wall:.0%} of the time: the rollout rate is a lower bound "
                "(add the rollout workers' records or series for the real one)"
            )
    if produced <= 0 or decoding <= 0:
        raise BalanceError(f"{path}: the rollout side produced nothing in the measured steps")
    looked = t.groups + t.filtered
    rates = Rates(
        rollout_tokens_per_s_per_node=produced / decoding / rollout_nodes,
        trainer_tokens_per_s_per_node=t.tokens / t.busy_s / train_nodes,
        publish_s=t.publish_s / t.steps,
        response_tokens_mean=(t.response_tokens / t.groups if t.response_tokens is not None
                              else group_tokens / group_size),
        filtered_fraction=t.filtered / looked if looked > 0 else 0.0,
    )
    return Measured(rates, t.steps, train_nodes, rollout_nodes, t.wait_s / wall, notes, t.devices, t.models)


def same_device(said: str, wanted: str) -> bool:
    """A recorded device name against an environment's ("NVIDIA H200" both, or "cpu"). Driver
    names carry suffixes ("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB"), so the wanted name
    must start the recorded one, ending at a word boundary (an H20 is not an H200)."""
    return re.match(re.escape(wanted.strip().lower()) + r"(\W|$)", said.strip().lower()) is not None


def check_provenance(measured: Measured, path, device: str, model: str) -> list[str]:
    """Refuse rates a run says it measured on another device or model than `device` / `model`
    (the environment's train GPU, spec.hardware' `gpu`, and job model); label them
    when it does not say."""
    for what, said, wanted, same in (("device", measured.devices, device, same_device),
                                     ("model", measured.models, model, str.__eq__)):
        if said and not all(same(s, wanted) for s in said):
            raise BalanceError(f"--from-metrics {path}: measured on {what} {', '.join(sorted(said))}, not this "
                               f"environment's {wanted}: its rates do not transfer (use --model for a "
                               f"first-principles estimate)")
    unsaid = [what for what, said in (("device", measured.devices), ("model", measured.models)) if not said]
    if unsaid:
        return [f"UNVERIFIED RATES: {path}'s records do not say their {' or '.join(unsaid)}; they are used as if "
                f"measured on {device} with {model}"]
    return []
