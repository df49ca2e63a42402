"""What the demo shows: a live progress bar, then a summary table and a plot of the run."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table


class ProgressView:
    """step, mean reward, tokens/s, queue depth and staleness, refreshed by the launcher's loop."""

    def __init__(self, steps: int, enabled: bool = True, console: Console | None = None) -> None:
        self._progress = Progress(
            TextColumn("step"), MofNCompleteColumn(), BarColumn(bar_width=24),
            TextColumn("reward {task.fields[reward]}"), TextColumn("tok/s {task.fields[tokens_per_s]}"),
            TextColumn("queue {task.fields[queue]}"), TextColumn("buffer {task.fields[buffer]}"),
            TextColumn("staleness {task.fields[staleness]}"), TimeElapsedColumn(),
            console=console, disable=not enabled, refresh_per_second=4,
        )
        self._task = self._progress.add_task("train", total=steps, reward="-", tokens_per_s="-", queue=0, buffer=0,
                                             staleness="-")

    def __enter__(self) -> "ProgressView":
        self._progress.start()
        return self

    def __exit__(self, *_exc) -> None:
        self._progress.stop()

    def update(self, records: list[dict], stats, elapsed_s: float) -> None:
        fields = {"queue": stats.tasks_waiting + stats.tasks_in_flight + stats.verify_waiting + stats.verify_in_flight,
                  "buffer": stats.buffer_fill}
        if records:
            last = records[-1]
            fields |= {"reward": f"{last['mean_reward']:.2f}", "staleness": f"{last['staleness_mean']:.1f}",
                       "tokens_per_s": f"{sum(r['tokens'] for r in records) / max(elapsed_s, 1e-9):.0f}"}
        self._progress.update(self._task, completed=len(records), **fields)


# Steps of nothing but zero rewards after which a run says so: GRPO learns nothing from groups
# whose samples all score the same, so such a run is almost always a data or verifier mismatch.
ZERO_REWARD_STEPS = 5


def zero_reward_warning(records: list[dict]) -> str | None:
    """The warning for a run whose first ZERO_REWARD_STEPS steps all had mean reward 0, else None."""
    first = records[:ZERO_REWARD_STEPS]
    if len(first) < ZERO_REWARD_STEPS or any(r["mean_reward"] != 0 for r in first):
        return None
    return (f"mean reward 0 on each of the first {ZERO_REWARD_STEPS} steps: no sample has scored, so nothing is "
            "learned; check the data check's 'labels that can score 1', the verifier, and max_response_tokens")


def summary_table(summary: dict) -> Table:
    table = Table(title="python -m payload local", show_header=False)
    table.add_column(style="bold")
    table.add_column(overflow="fold")
    rows = [
        ("steps (weight version)", f"{summary['steps']} (trainer v{summary['policy_version']}, engine v{summary['engine_version'] or '-'})"),
        ("mean reward, step 1 (initial policy)", _num(summary["baseline_reward"])),
        ("mean reward, last 3 steps", _num(summary["final_reward"])),
        ("best step reward", _num(summary["best_reward"])),
        ("eval reward (held out, greedy), before → after",
         f"{_num(summary['eval_before'])} → {_num(summary['eval_after'])}"),
        *([("held-out reward without comparing digits", _num(summary["eval_shortcut"]))]
          if summary.get("eval_shortcut") is not None else []),
        *_data_rows(summary.get("data_check")),
        ("wall time", f"{summary['wall_s']:.0f} s"),
        ("trained response tokens / s (wall)", f"{summary['tokens_per_s']:.1f}"),
        ("tasks submitted / groups trained", f"{summary['tasks_submitted']} / {summary['groups_trained']}"),
        ("left in queue", ", ".join(f"{k}={v}" for k, v in summary["queue_left"].items() if v) or "nothing"),
        ("output", summary["output"]),
    ]
    rows += [("warning", w) for w in summary.get("warnings", [])]
    for name, value in rows:
        table.add_row(name, value)
    return table


def _data_rows(report: dict | None) -> list[tuple[str, str]]:
    if report is None:
        return []
    train = report["train"]
    filtered = ", ".join(f"{n} {reason}" for reason, n in train["filtered"].items() if n) or "none"
    return [("training rows: kept / filtered", f"{train['kept']} / {filtered}")]


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def reward_figure(records: list[dict], evals: list[dict] = (), eval_shortcut: float | None = None):
    """Mean training reward per step with the held-out eval's mean reward at the steps it ran
    (step 0: the initial policy), and trainer throughput per step. `eval_shortcut`: the best
    held-out reward a policy gets without learning the task (the generated problems' shortcuts),
    drawn so an eval point above it reads as learned, not guessed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [r["step"] for r in records]
    fig, (reward_ax, speed_ax) = plt.subplots(2, 1, figsize=(7, 5.5), sharex=True)
    reward_ax.plot(steps, [r["mean_reward"] for r in records], marker="o", markersize=3, label="training groups")
    if evals:
        # Points only: the eval runs at a few steps (before the first, after the last), and a
        # line between them would draw a path the held-out reward was never measured on.
        reward_ax.plot([e["step"] for e in evals], [e["mean_reward"] for e in evals], color="tab:red", marker="D",
                       markersize=7, linestyle="none", label="held-out eval")
    if eval_shortcut is not None:
        reward_ax.axhline(eval_shortcut, color="tab:red", linestyle=":", linewidth=1,
                          label="held-out: best without comparing")
    reward_ax.axhline(records[0]["mean_reward"], color="grey", linestyle="--", linewidth=1, label="step 1 (initial policy)")
    reward_ax.set_ylabel("mean reward")
    reward_ax.set_ylim(-0.02, 1.02)
    reward_ax.legend(loc="lower right")
    reward_ax.grid(alpha=0.3)
    speed_ax.plot(steps, [r["tokens_per_s"] for r in records], color="tab:green", marker="o", markersize=3)
    speed_ax.set_ylabel("trainer tokens / s")
    speed_ax.set_xlabel("step (policy version)")
    speed_ax.grid(alpha=0.3)
    fig.suptitle("GRPO on a tiny Qwen3-MoE, whole loop on one CPU machine (EP = 2)")
    fig.tight_layout()
    return fig


def write_plot(records: list[dict], path: Path, evals: list[dict] = (), eval_shortcut: float | None = None) -> Path:
    """The reward figure as a PNG."""
    import matplotlib.pyplot as plt

    fig = reward_figure(records, evals, eval_shortcut)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
