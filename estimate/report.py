"""How `plan` and `simulate` show their answer: a rich table with hints, or JSON."""

from __future__ import annotations

import math
from dataclasses import asdict

from rich.console import Console
from rich.table import Table

from estimate.loop import LoopSpec
from estimate.measure import Measured
from estimate.planner import Plan, Prediction
from estimate.simulator import SimResult


def groups_to_fill_slots(spec: LoopSpec, replicas: int) -> int:
    """Groups in flight that keep every slot of `replicas` servers decoding."""
    longest = spec.lengths.mean_max(spec.group_size)
    return math.ceil(replicas * spec.server_slots * longest / (spec.group_size * spec.lengths.mean))


def hints(plan: Plan, spec: LoopSpec, measured: Measured | None) -> list[str]:
    best = plan.recommended
    out = list(measured.notes) if measured else []
    if best.replica_utilisation < 0.95:
        out.append(
            f"servers are under-fed: rollout.workers × rollout.worker_concurrency = {spec.groups_in_flight} groups in "
            f"flight run the replicas at {best.replica_utilisation:.0%} of their full decode rate; about "
            f"{groups_to_fill_slots(spec, best.split.replicas)} fill all {best.split.replicas} replicas"
        )
    if best.stale_dropped_fraction > 0.05:
        where = ("workers outrun the trainer and the buffer's oldest groups go stale"
                 if best.bound == "trainer" else "long groups finish too many versions late")
        out.append(
            f"{best.stale_dropped_fraction:.0%} of finished groups are dropped as stale ({where}): raise "
            f"rollout.max_staleness ({spec.max_staleness}) or lower batch.max_response_tokens ({spec.lengths.max_tokens})"
            + (f" or rollout.buffer_high_water_groups ({spec.high_water_groups})" if best.bound == "trainer" else "")
        )
    if plan.unconstrained is not None:
        u = plan.unconstrained.split
        out.append(
            f"outside the pools' limits {u.label} is faster ({plan.unconstrained.step_time_s:.0f} s a step): "
            f"set pools.train.desired_size {u.train_nodes} and pools.rollout.desired_size {u.rollout_nodes} "
            "(and their min_size/max_size to allow it)"
        )
    return out


def _row(table: Table, name: str, p: Prediction) -> None:
    table.add_row(
        name, p.split.label, str(p.split.replicas), f"{p.step_time_s:,.1f}", f"{p.trained_tokens_per_s:,.0f}",
        f"{p.trainer_idle_fraction:.1%}", f"{p.rollout_idle_fraction:.1%}", f"{p.staleness_mean:.2f}",
        f"{p.stale_dropped_fraction:.1%}", p.bound,
    )


def print_plan(plan: Plan, spec: LoopSpec, measured: Measured | None, env_name: str) -> None:
    r = spec.rates
    table = Table(title=f"train:rollout split for {plan.budget} nodes ({env_name})")
    for column in ("", "split", "replicas", "step s", "tokens/s", "trainer idle", "rollout idle",
                   "staleness", "stale", "bound"):
        table.add_column(column, justify="left" if column in ("", "bound") else "right", no_wrap=True)
    if plan.current is not None:
        _row(table, "current", plan.current)
    _row(table, "recommended", plan.recommended)
    if plan.unconstrained is not None:
        _row(table, "any limits", plan.unconstrained)
    console = Console(width=max(Console().width, 120))
    console.print(table)
    source = f"measured over {measured.steps} steps on {measured.train_nodes}:{measured.rollout_nodes}" if measured else "given"
    console.print(
        f"rates ({source}): rollout {r.rollout_tokens_per_s_per_node:,.0f} and trainer "
        f"{r.trainer_tokens_per_s_per_node:,.0f} response tokens/s per node, publish {r.publish_s:.1f} s, "
        f"responses {spec.lengths.mean:,.0f} tokens on average (max {spec.lengths.max_tokens}), "
        f"{spec.groups_in_flight} groups in flight"
    )
    for hint in hints(plan, spec, measured):
        console.print(f"- {hint}")


def print_costs(costs, env, name: str) -> None:
    """The modeled bulk data movements (estimate/costs.py) of the job on this environment."""
    from estimate.costs import Timeouts
    from spec.units import GB, GIB

    p, c, t = costs.publish, costs.checkpoint, Timeouts.from_costs(costs)
    console = Console(width=max(Console().width, 120))
    console.print(
        f"modeled for {name} ({costs.architecture.parameters / 1e9:.1f} B parameters) on {costs.train_nodes} training nodes:\n"
        f"- publish: {p.bytes / GB:,.0f} GB bf16 in {p.buckets} buckets; trainer stall {p.stall_s:.2f} s; each server "
        f"paused {p.pause_s:.2f} s (transfer {p.transfer_s:.2f} s, bucket overhead {p.overhead_s:.2f} s, load "
        f"{p.load_s:.2f} s); a training node feeds its {p.rounds} server(s) one after another, each round "
        f"re-gathering the replica's shares ({p.gather_s:.2f} s); whole publish {p.seconds:.1f} s\n"
        f"- checkpoint: {c.bytes / GB:,.0f} GB, staged by one replica ({c.host_bytes_per_node / GB:,.0f} GB a node on "
        f"{c.writer_nodes}) blocking {c.stage_s:.1f} s, written in the background in {c.write_s:,.0f} s at "
        f"{costs.fsx_throughput_gb_s:.2f} GB/s; resume {c.resume_s:,.0f} s (base model {c.base_read_s:,.0f} s, "
        f"checkpoint {c.read_s:,.0f} s, to the other replicas {c.broadcast_s:.1f} s)\n"
        f"- HF export: {costs.export_bytes / GB:,.0f} GB in {costs.export_s:,.0f} s; FSx needed "
        f"{costs.fsx_needed_bytes / GIB:,.0f} GiB of {env.storage.fsx_storage_gib:,}\n"
        f"- timeouts: stall {t.stall_s} s, collectives {t.collective_s} s, startup {t.startup_s} s, SIGTERM grace {t.grace_s} s"
    )


def plan_json(plan: Plan, spec: LoopSpec, measured: Measured | None) -> dict:
    return {
        "budget_nodes": plan.budget,
        "current": plan.current.as_dict() if plan.current else None,
        "recommended": plan.recommended.as_dict(),
        "unconstrained": plan.unconstrained.as_dict() if plan.unconstrained else None,
        "candidates": [p.as_dict() for p in plan.candidates],
        "rates": asdict(spec.rates) | {"response_tokens_mean": spec.lengths.mean},
        "measured_steps": measured.steps if measured else None,
        "hints": hints(plan, spec, measured),
    }


def print_simulation(result: SimResult, prediction: Prediction) -> None:
    table = Table(title=f"split {prediction.split.label}: simulated vs planner")
    for column in ("", "simulated", "planner"):
        table.add_column(column, justify="left" if not column else "right")
    for label, name, fmt in (
        ("step s", "step_time_s", "{:,.1f}"),
        ("tokens/s trained", "trained_tokens_per_s", "{:,.0f}"),
        ("trainer idle", "trainer_idle_fraction", "{:.1%}"),
        ("rollout idle", "rollout_idle_fraction", "{:.1%}"),
        ("staleness", "staleness_mean", "{:.2f}"),
        ("stale dropped", "stale_dropped_fraction", "{:.1%}"),
        ("group latency s", "group_latency_s", "{:,.0f}"),
    ):
        table.add_row(label, fmt.format(getattr(result, name)), fmt.format(getattr(prediction, name)))
    console = Console()
    console.print(table)
    if result.reclaims:
        console.print(f"{result.reclaims} spot reclaims in the simulated time")
