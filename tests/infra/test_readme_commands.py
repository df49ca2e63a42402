"""Every command the README shows is one that exists, as written (issue 48 item 3).

The README's shell blocks and its inline `python -m payload …` spans are read out of the file:
- `make …` lines: `make -n` (the recipes printed, nothing run) accepts the target and its
  variables, as a newcomer's shell would run it (not as a sub-make of `make test`);
- `python -m payload …`: the subcommand exists and takes every `--flag` shown (its own
  argparse `--help`); the ones that need no AWS, cluster or GPU run for real (OFFLINE);
- anything else is one of the tools the deploy steps name (EXTERNAL), which need an AWS
  account or a cluster: a new kind of command must be added here, deliberately.
"""

import re
import shlex
import subprocess
import sys

import pytest

from tests.infra.environments import REPO, git_repo, head
from tests.infra.test_makefile import SHELL_ENV

README = (REPO / "README.md").read_text()
EXTERNAL = {"npx", "aws", "kubectl", "huggingface-cli", "jq"}
# README commands that run here as written (no AWS, cluster, GPU or network), in a scratch folder.
OFFLINE = [
    "python -m payload plan --env p5en-48 --model Qwen3-30B-A3B",
    "python -m payload plan --env smoke --model Qwen3-30B-A3B",
    "python -m payload redis-access --out redis-access/",
]
PLACEHOLDER = re.compile(r"^(<.*>|[A-Z]+|…|\.\.\.)$")  # NAME, <name>, URL, …


def shell_commands() -> list[str]:
    """Each command line of the README's ```bash blocks (continuations joined, comments cut)."""
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", README, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split(" #", 1)[0].strip()
            if line and not line.startswith("#"):
                commands.append(line)
    return commands


def payload_commands() -> list[str]:
    """Every `python -m payload …` the README shows, in its blocks or inline (one line each)."""
    inline = [" ".join(span.split()) for span in re.findall(r"`(python -m payload [^`]*)`", README)]
    blocks = [c for c in shell_commands() if c.startswith("python -m payload ")]
    return sorted(set(inline + blocks))


def test_the_readme_shows_commands_of_each_kind():
    # The extraction itself: a README rewritten into another form would leave nothing checked.
    kinds = {c.split()[0] for c in shell_commands()}
    assert {"make", "python", "kubectl", "aws"} <= kinds
    assert len(payload_commands()) >= 10
    assert set(OFFLINE) <= set(payload_commands())


@pytest.mark.parametrize("command", sorted({c for c in shell_commands() if c.startswith("make ")}))
def test_each_make_command_is_a_target_that_takes_its_variables(command):
    args = shlex.split(command)[1:]
    done = subprocess.run(["make", "-n", "-o", ".stamps/python", "-o", ".stamps/node", *args], cwd=REPO,
                          env=SHELL_ENV, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def _tool(command: str) -> str:
    """The program a line runs: its first word, or for `VAR="$(tool …)"` that tool."""
    assignment = re.match(r'^[A-Z_]+="?\$\(([\w-]+)', command)
    return assignment.group(1) if assignment else command.split()[0]


def test_every_other_shell_command_is_a_deploy_tool():
    others = {_tool(c) for c in shell_commands()} - {"make", "python"}
    assert others <= EXTERNAL, others - EXTERNAL


def _words(command: str) -> tuple[list[list[str]], list[str]]:
    """(the subcommand paths it names, its --flags): `accept-nccl|accept-deepep` names two."""
    words = command.split()[3:]
    path = []
    for word in words:
        if word.startswith("-") or PLACEHOLDER.match(word):
            break
        path.append(word)
    flags = [w.split("=")[0] for w in words if w.startswith("--")]
    if not path:
        return [[]], flags
    return [[*path[:-1], last] for last in path[-1].split("|")], flags


@pytest.mark.parametrize("command", payload_commands())
def test_each_payload_command_exists_and_takes_its_flags(command):
    if command.startswith("python -m payload."):  # a module of its own (payload.ep.probe)
        module = command.split()[2]
        done = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=REPO, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        return
    paths, flags = _words(command)
    for path in paths:
        done = subprocess.run([sys.executable, "-m", "payload", *path, "--help"], cwd=REPO, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, f"{command}: {' '.join(path)}: {done.stderr}"
        for flag in flags:
            assert re.search(rf"(^|[\s,\[]){re.escape(flag)}\b", done.stdout), f"{command}: {flag} not taken"


@pytest.mark.parametrize("command", OFFLINE)
def test_the_offline_commands_run_as_written(command, tmp_path):
    done = subprocess.run([sys.executable, *shlex.split(command)[1:]], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env={**SHELL_ENV, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr


def manifests_environments() -> list[str]:
    """The environments the README's `make manifests` lines render, and the seed's, which it says
    works as shipped."""
    return sorted({c.split("ENV=")[1].split()[0] for c in shell_commands() if c.startswith("make manifests ENV=")}
                  | {"p5en-48"})


@pytest.mark.parametrize("env", manifests_environments())
def test_make_manifests_runs_as_written(env, tmp_path):
    # For real (into tmp_path, not dist/), against a clean checkout (GIT_DIR: a commit of its own)
    # so `{commit}` in an image tag (smoke.yaml) resolves whatever state this one is in.
    source = git_repo(tmp_path / "src")
    done = subprocess.run(["make", "-o", ".stamps/python", "-o", ".stamps/node", "manifests", f"ENV={env}"], cwd=REPO,
                          env={**SHELL_ENV, "CDK8S_OUTDIR": str(tmp_path / "dist"), "GIT_DIR": str(source / ".git"),
                               "GIT_WORK_TREE": str(source)},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(list((tmp_path / "dist").glob("*.k8s.yaml"))) > 5
    if env == "smoke":
        assert f"placeholder-run-cdk-deploy:{head(source)}" in (tmp_path / "dist" / "0002-trainer.k8s.yaml").read_text()
