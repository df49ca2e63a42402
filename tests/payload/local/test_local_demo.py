"""`python -m payload local`, shortened: the real processes (engine over HTTP, shared memory queue,
rollout worker, verifier, 2-rank EP trainer over gloo) on loopback, run as a newcomer runs it.

The run is deterministic under --seed, so its reward curve is fixed; the asserts still read
the run's own files: the reward rose, the weights the engine serves advanced to the last
step's version, every submitted task was trained exactly once, and no process of the run
(children and grandchildren, found by the marker in their environment) outlives it.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import redis

from payload.local.launcher import processes_of_run as processes_of
from payload.local.task import shortcut_share
from payload.train.tracking import TAG_CHECKPOINTS, TAG_FINAL_EXPORT
from tests.mlflow_server import server as mlflow_server
from tests.payload.queue.redis_server import started

REPO = Path(__file__).resolve().parents[3]
ENV = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}


def local(*args: str) -> list[str]:
    return [sys.executable, "-m", "payload", "local", "--no-progress", *args]


def port_free(port: int) -> bool:
    """Nothing listens on it any more (SO_REUSEADDR: closed connections in TIME_WAIT do not count)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
            s.listen()
        except OSError:
            return False
    return True


def stop_run(launcher: subprocess.Popen | None, run: Path) -> None:
    """For a test's `finally`: a launcher still running (the test failed midway) is killed, and
    so is every process of its run still alive, so a failure leaves nothing behind on the
    machine (its children would die with it, but its grandchildren need not)."""
    if launcher is not None and launcher.poll() is None:
        launcher.kill()
        launcher.communicate(timeout=60)
    for pid in processes_of(run):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:  # exited meanwhile
            pass


@pytest.mark.slow
def test_short_demo_learns_publishes_loses_nothing_and_leaves_no_process(tmp_path):
    run = tmp_path / "run"
    steps = 30
    (tmp_path / "mlflow").mkdir()
    with mlflow_server.started(tmp_path / "mlflow") as (mlflow_url, mlflow_command):
        done = subprocess.run(local("--steps", str(steps), "--seed", "0", "--output", str(run), "--tracking-uri",
                                    mlflow_url), cwd=REPO, env=ENV, capture_output=True, text=True, timeout=540)
        assert done.returncode == 0, done.stdout + done.stderr
        tracked = mlflow_server.read_runs(mlflow_url, "moe-grpo", ["mean_reward", "loss", "eval/mean_reward"])
    assert str(run) in done.stdout  # the output folder is printed
    summary = json.loads((run / "summary.json").read_text())
    lines = (run / "metrics.jsonl").read_text().splitlines()
    records = [r for r in map(json.loads, lines) if r["kind"] == "train_step"]

    assert [r["step"] for r in records] == list(range(1, steps + 1))
    assert summary["final_reward"] >= summary["baseline_reward"] + 0.3, summary["rewards"]
    assert summary["policy_version"] == steps and summary["engine_version"] == str(steps)
    assert all(r["staleness_max"] == 0 for r in records)  # --max-staleness 0: on-policy
    assert summary["tasks_submitted"] == summary["groups_trained"] == steps * summary["config"]["prompts_per_step"]
    assert summary["groups_dropped_stale"] == 0
    assert not any(summary["queue_left"].values()), summary["queue_left"]
    assert {c["exit_code"] for c in summary["children"].values()} == {0}
    assert set(summary["children"]) == {"serve", "feed", "verify", "train-0", "train-1", "rollout"}
    assert (run / "reward.png").stat().st_size > 10_000
    assert processes_of(run) == []
    assert_eval_held_out(run, summary, steps)
    assert_tracked(tracked, run, summary, steps)
    assert_commands_are_the_manifests(summary, tmp_path, mlflow_command)


def assert_tracked(runs: list[dict], run, summary: dict, steps: int) -> None:
    """The trainer's MLflow run, read back with MLflow's client: one run, named after the output
    folder, with the job, every step's reward and loss, the held-out evals and the final export."""
    [tracked] = runs
    assert tracked["run_id"] == summary["mlflow_run"]["run_id"] and tracked["name"] == run.name
    assert tracked["status"] == "FINISHED"
    rewards = [r["mean_reward"] for r in map(json.loads, (run / "metrics.jsonl").read_text().splitlines())
               if r["kind"] == "train_step"]
    assert tracked["history"]["mean_reward"] == [[step, reward] for step, reward in enumerate(rewards, 1)]
    assert [s for s, _ in tracked["history"]["loss"]] == list(range(1, steps + 1))
    assert tracked["history"]["eval/mean_reward"] == [[0, summary["eval_before"]], [steps, summary["eval_after"]]]
    assert tracked["params"]["algorithm.group_size"] == str(summary["config"]["group_size"])
    assert tracked["params"]["data.verifier"] == "exact_match"
    assert tracked["tags"][TAG_CHECKPOINTS] == str(run / "checkpoints")
    assert tracked["tags"][TAG_FINAL_EXPORT] == str(run / "checkpoints" / "hf" / f"step-{steps:08d}")


# What may differ between a container of dist/ and the same command on one machine (either side
# may leave them to their defaults): addresses, paths, names, sizes and times (the cluster passes
# most of them through the environment).
LOCAL_ONLY_FLAGS = {
    "--queue-url", "--namespace", "--server-url", "--rollout-servers", "--host", "--port",
    "--metrics-port",  # addresses
    "--model-path", "--cache-dir", "--metrics-jsonl",  # paths
    "--name",  # consumer identity
    "--max-steps", "--max-batch-size", "--processes",  # sizes
    "--poll-s", "--drain-timeout-s", "--request-timeout-s", "--stall-timeout-s", "--publish-timeout-s",  # times
    "--seed",  # the embedded engine's sampling seed
}


def payload_command(command: list[str]) -> tuple[str, list[str]] | None:
    """(subcommand, its arguments) of a `python -m payload` / `torchrun ... -m payload` command."""
    for i in range(len(command) - 1):
        if command[i] == "-m" and command[i + 1] == "payload":
            return command[i + 2], command[i + 3:]
    return None


def flags(args: list[str]) -> dict[str, str | bool]:
    """--flag value / --flag=value pairs, up to a `--` (what follows is SGLang's own)."""
    args = args[: args.index("--")] if "--" in args else args
    out: dict[str, str | bool] = {}
    i = 0
    while i < len(args):
        if "=" in args[i]:
            key, value = args[i].split("=", 1)
            out[key] = value
            i += 1
        elif i + 1 < len(args) and not args[i + 1].startswith("--"):
            out[args[i]] = args[i + 1]
            i += 2
        else:
            out[args[i]] = True
            i += 1
    return out


def containers(node) -> list[dict]:
    if isinstance(node, dict):
        found = list(node["containers"]) if isinstance(node.get("containers"), list) else []
        return found + [c for value in node.values() for c in containers(value)]
    if isinstance(node, list):
        return [c for value in node for c in containers(value)]
    return []


# The tracking server's: its stores and the names it answers to are the machine's; workers a size.
TRACKING_LOCAL_ONLY_FLAGS = {"--backend-store-uri", "--artifacts-destination", "--host", "--port", "--allowed-hosts",
                             "--workers"}


SUBCOMMANDS = {"serve", "rollout", "verify", "feed", "train"}


def assert_commands_are_the_manifests(summary: dict, tmp_path, mlflow_command: list[str] | None = None,
                                      environment: str = "default", subcommands: set[str] = SUBCOMMANDS) -> None:
    """Every payload container command of the environment's dist/ (default: the default one) is
    a command this run started, with the same arguments apart from addresses, paths, names and
    sizes; and the run started no payload command the cluster does not run. The substitutions:
    the embedded engine (`serve --engine local`) stands in for SGLang (`serve --engine sglang`),
    and the tiny reward model (`reward-serve --engine local`) for the reward tier's SGLang. With
    `mlflow_command`, dist/'s MLflow tracking server is that command too."""
    import yaml

    from k8s.main import synth

    dist = tmp_path / "dist"
    synth(environment, tmp_path / "no-outputs.json", dist)
    # `sandbox` (the code verifier's pool) has no part in the demo's exact-match loop: its dist/
    # command is started by tests/payload/sandbox/test_sandbox.py instead.
    cluster = [parsed for path in sorted(dist.glob("*.k8s.yaml")) for doc in yaml.safe_load_all(path.read_text())
               for c in containers(doc) if (parsed := payload_command(c.get("command", []) + c.get("args", [])))
               and parsed[0] != "sandbox"]
    local: dict[str, dict] = {}
    for child in summary["children"].values():
        sub, args = payload_command(child["command"])
        assert local.setdefault(sub, flags(args)) == flags(args)  # both trainer ranks alike
    assert {sub for sub, _ in cluster} == set(local) == subcommands
    for sub, args in cluster:
        on_cluster, here = flags(args), local[sub]
        for flag, value in on_cluster.items():
            if flag == "--engine":
                assert (value, here[flag]) == ("sglang", "local")
            elif flag not in LOCAL_ONLY_FLAGS:
                assert here.get(flag) == value, (sub, flag)
        assert set(here) - set(on_cluster) <= LOCAL_ONLY_FLAGS, (sub, set(here) - set(on_cluster))
    if mlflow_command is None:
        return
    # The one process of dist/ that is not the payload: the MLflow tracking server, started above.
    [tracking] = [c["command"] for path in sorted(dist.glob("*.k8s.yaml")) for doc in yaml.safe_load_all(path.read_text())
                  for c in containers(doc) if c.get("command", [])[:2] == ["mlflow", "server"]]
    assert tracking[:2] == mlflow_command[:2]
    on_cluster, here = flags(tracking[2:]), flags(mlflow_command[2:])
    assert set(on_cluster) == set(here)
    assert {f: v for f, v in on_cluster.items() if f not in TRACKING_LOCAL_ONLY_FLAGS} == {
        f: v for f, v in here.items() if f not in TRACKING_LOCAL_ONLY_FLAGS}


@pytest.mark.slow
def test_demo_with_a_served_reward_model_trains_on_its_scores(tmp_path):
    """`make demo REWARD=model`, shortened: a real reward server on loopback (`reward-serve`, the
    reward tier's command, SGLang's /classify route) scores every group through the verifier,
    and the trainer trains on those scores: they are the model's (not 0/1 verdicts) and their
    mean rises as the policy learns what the reward model prefers."""
    import yaml

    from spec.environment import ENVIRONMENTS_DIR

    run = tmp_path / "run"
    steps = 8
    done = subprocess.run(local("--steps", str(steps), "--seed", "0", "--reward", "model", "--output", str(run)),
                          cwd=REPO, env=ENV, capture_output=True, text=True, timeout=540)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads((run / "summary.json").read_text())
    records = [r for r in map(json.loads, (run / "metrics.jsonl").read_text().splitlines()) if r["kind"] == "train_step"]
    assert [r["step"] for r in records] == list(range(1, steps + 1))
    assert summary["tasks_submitted"] == summary["groups_trained"] == steps * summary["config"]["prompts_per_step"]
    assert not any(summary["queue_left"].values()), summary["queue_left"]
    assert {c["exit_code"] for c in summary["children"].values()} == {0}
    assert "reward-serve" in summary["children"]
    job = yaml.safe_load((run / "job.yaml").read_text())
    assert job["rewards"]["default"] == {"verifier": 0.0, "model": 1.0}
    rewards = summary["rewards"]
    # Mean exact-match verdicts of 16 groups of 8 are multiples of 1/128; the model's scores are not.
    assert any(abs(r * 128 - round(r * 128)) > 1e-3 for r in rewards), rewards
    assert max(rewards[-3:]) > rewards[0], rewards
    assert processes_of(run) == []
    assert all(port_free(p) for p in summary["ports"].values()), summary["ports"]
    # The cluster's side: an environment whose job serves its own reward model renders the
    # reward tier, whose command is the one this run started (the demo's rewards section).
    environment = yaml.safe_load((ENVIRONMENTS_DIR / "default.yaml").read_text())
    environment["name"] = "reward-demo"
    environment["job"]["rewards"] = {"model": {"path": "/fsx/models/reward"}, "default": {"verifier": 0.0, "model": 1.0}}
    path = tmp_path / "reward-demo.yaml"
    path.write_text(yaml.safe_dump(environment))
    assert_commands_are_the_manifests(summary, tmp_path, environment=str(path),
                                      subcommands=SUBCOMMANDS | {"reward-serve"})


def assert_eval_held_out(run, summary: dict, steps: int) -> None:
    """The held-out problems were evaluated before the first step and after the last, on the
    weights of those steps, and are not among the training problems."""
    evals = [r for r in map(json.loads, (run / "metrics.jsonl").read_text().splitlines()) if r["kind"] == "eval"]
    assert [(e["step"], e["weight_versions"]) for e in evals] == [(0, ["0"]), (steps, [str(steps)])]
    assert summary["eval_before"] == evals[0]["mean_reward"] and summary["eval_after"] == evals[1]["mean_reward"]

    def rows(split: str) -> list[dict]:
        return [json.loads(line) for line in (run / "data" / f"{split}.jsonl").read_text().splitlines()]

    held_out, train = {r["prompt"] for r in rows("eval")}, {r["prompt"] for r in rows("train")}
    assert len(held_out) == 20 and len(train) == 80 and not held_out & train
    assert all(p[4] != p[6] for p in held_out)  # "max a b=" with a != b

    # The policy generalised to pairs it never trained on, by a clear margin, and not by always
    # giving the commonest held-out answer (a constant policy scores exactly that share).
    commonest = Counter(r["answer"] for r in rows("eval")).most_common(1)[0][1] / len(held_out)
    assert summary["eval_after"] >= summary["eval_before"] + 0.3, (summary["eval_before"], summary["eval_after"])
    assert summary["eval_after"] > commonest + 0.2, (summary["eval_after"], commonest)
    # Beating the copy-a-digit shortcut too needs more steps than CI can spend (seed 0: 0.65 at
    # 40 steps against 0.60, one prompt; 0.75 at 100): README's 3-seed table shows it. The bar
    # itself is reported, and is what shortcut_share says of these rows.
    assert summary["eval_shortcut"] == shortcut_share(rows("eval"))
    assert all(port_free(p) for p in summary["ports"].values()), summary["ports"]


@pytest.mark.slow
def test_ctrl_c_on_redis_with_overlap_stops_everything_and_loses_no_task(tmp_path):
    """--redis, --max-staleness 1 (rollouts of step s + 1 while step s trains) and a --model
    directory, interrupted like a newcomer's Ctrl-C: exit 130 with the summary, no process or
    listening port left, and every submitted task either trained or still in Redis."""
    from payload.local.task import write_policy

    model = write_policy(tmp_path / "model", seed=3)
    server = started()
    run = tmp_path / "run"
    launcher = None
    try:
        launcher = subprocess.Popen(local("--steps", "500", "--redis", server.url, "--max-staleness", "1",
                                          "--model", str(model), "--output", str(run)),
                                    cwd=REPO, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        metrics = run / "metrics.jsonl"
        # A bound on a hang, not a speed check: under `make test` other test files share the cores.
        deadline = time.monotonic() + 360
        while not metrics.is_file() or metrics.read_text().count("\n") < 4:  # the eval before training + 3 steps
            assert launcher.poll() is None and time.monotonic() < deadline, launcher.communicate()[0]
            time.sleep(0.1)
        assert len(processes_of(run)) >= 6  # serve, rollout, verify (+ its pool), two trainer ranks
        launcher.send_signal(signal.SIGINT)
        out, _ = launcher.communicate(timeout=120)
        assert launcher.returncode == 130, out
        assert "Traceback" not in out
        assert processes_of(run) == []
        summary = json.loads((run / "summary.json").read_text())
        assert all(port_free(p) for p in summary["ports"].values()), summary["ports"]
        lines = metrics.read_text().splitlines()
        records = [r for r in map(json.loads, lines) if r["kind"] == "train_step"]
        assert 3 <= summary["steps"] == len(records) < 500
        assert all(r["staleness_max"] <= 1 for r in records)  # overlapping, never past the bound
        left = summary["queue_left"]
        assert left["dead_letters"] == left["duplicates"] == left["stale_dropped"] == 0
        # buffer_fill counts the groups awaiting a verifier too (QueueStats).
        in_queue = left["tasks_waiting"] + left["tasks_in_flight"] + left["buffer_fill"]
        assert summary["tasks_submitted"] == summary["groups_trained"] + in_queue, summary
        # Every group the trainer took (Redis marks each task id it ingests) is a training row:
        # the eval set's prompts never enter the queue.
        from payload.data.source import content_hash

        namespace = summary["namespace"]
        client = redis.Redis.from_url(server.url)
        taken = [key.decode().rsplit(":", 1)[1] for key in client.scan_iter(f"{{{namespace}}}:consumed:*")]
        client.close()
        fingerprint = content_hash([run / "data" / "train.jsonl"])
        assert len(taken) >= summary["groups_trained"] > 0
        train_rows = len((run / "data" / "train.jsonl").read_text().splitlines())
        assert all(t.startswith(f"{fingerprint}-e") and int(t.rsplit("-r", 1)[1]) < train_rows for t in taken), taken
        assert not (run / "model").exists()  # --model is used as it is
    finally:
        stop_run(launcher, run)
        server.close()


@pytest.mark.parametrize("flag, value, message", [
    ("--steps", "0", "--steps 0: must be positive"),
    ("--group-size", "1", "--group-size 1: GRPO needs at least 2"),
    ("--redis", "localhost:6379", "--redis 'localhost:6379': expected redis://host:port/db"),
    ("--model", "/nonexistent", "--model /nonexistent: not a checkpoint directory"),
    ("--model", "Qwen/Qwen3-30B-A3B", "--model Qwen/Qwen3-30B-A3B: not a checkpoint directory (no config.json); a "
     "Hugging Face Hub id? download it first (huggingface-cli download Qwen/Qwen3-30B-A3B --local-dir Qwen3-30B-A3B)"),
    ("--temperature", "0", "--temperature 0.0: must be positive"),
])
def test_bad_flag_is_one_line_and_exit_2(flag, value, message):
    done = subprocess.run(local(flag, value), cwd=REPO, env=ENV, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"error: {message}")


def test_a_run_that_fails_after_writing_leaves_nothing_behind(tmp_path):
    """The model, data and job.yaml are written before the queue is reached; a Redis that does
    not answer then fails the run in one line, and the output folder it created is gone."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]  # nothing listens once the socket is closed
    output = tmp_path / "run"
    done = subprocess.run(local("--steps", "1", "--redis", f"redis://127.0.0.1:{closed}/0", "--output", str(output)),
                          cwd=REPO, env=ENV, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"error: --redis redis://127.0.0.1:{closed}/0: ")
    assert not output.exists(), sorted(p.name for p in output.iterdir())
    # A folder the user gave that already held something keeps it, and only it.
    output.mkdir()
    (output / "notes.txt").write_text("mine")
    done = subprocess.run(local("--steps", "1", "--redis", f"redis://127.0.0.1:{closed}/0", "--output", str(output)),
                          cwd=REPO, env=ENV, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and sorted(p.name for p in output.iterdir()) == ["notes.txt"]
