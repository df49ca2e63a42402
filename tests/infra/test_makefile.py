"""The Makefile sets up only what a target uses, and refuses a variable that would run as shell.
`make -n` prints the recipes without running them (nothing is installed or synthesized)."""

import os
import re
import subprocess

import pytest

from tests.infra.environments import REPO


# As from a shell: under `make test` the parent make's variables would make this one a
# sub-make (MAKELEVEL 1), which prints "make[1]: Entering directory" and inherits its flags.
SHELL_ENV = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES")}


def make_n(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "-n", *args], cwd=REPO, capture_output=True, text=True, timeout=60, env=SHELL_ENV)


@pytest.mark.parametrize("target", ["synth", "infra", "manifests", "deploy", "scale", "image", "teardown", "docs",
                                    "demo"])
def test_no_target_but_test_installs_anything_system_wide(target):
    # Amazon Linux (CloudShell) has dnf, no apt-get or brew: `make manifests` stopped on redis-server.
    done = make_n(target, "POOL=train")
    assert done.returncode == 0, done.stderr
    assert "redis" not in done.stdout and "apt-get" not in done.stdout


def test_make_test_sets_up_redis():
    assert "apt-get install -y -qq redis-server" in make_n("test").stdout


def test_scale_and_demo_need_no_node():
    for target in ("scale", "demo"):
        assert "npm" not in make_n(target, "POOL=train").stdout


@pytest.mark.parametrize("assignment", ["ENV=default;touch {marker}", "ENV=default touch {marker}",
                                        "ENV=$(shell touch {marker})", "POOL=train;touch {marker}"])
def test_a_variable_that_is_not_a_plain_name_stops_make(tmp_path, assignment):
    marker = tmp_path / "ran"
    assignment = assignment.format(marker=marker)
    # Run for real, so an injected command would leave its marker; were the check to let it through,
    # the set-up stays untouched (-o) and the manifests go to tmp_path.
    done = subprocess.run(["make", "-o", ".stamps/python", "-o", ".stamps/node", "manifests", assignment], cwd=REPO,
                          env={**SHELL_ENV, "CDK8S_OUTDIR": str(tmp_path / "dist")}, capture_output=True, text=True,
                          timeout=120)
    name, value = assignment.split("=", 1)
    assert done.returncode == 2 and not marker.exists()
    assert re.fullmatch(rf"Makefile:\d+: \*\*\* {name}='{re.escape(value)}' is not a plain name: use letters, digits, "
                        r"'\.', '_' and '-'\.  Stop\.", done.stderr.strip()), done.stderr
    assert done.stdout == ""


def test_teardown_checks_lists_what_stays_then_deletes_in_order():
    # infra/teardown.py's steps: the guard first, what outlives the stack written before anything
    # is deleted, the job's namespace, and cdk destroy of the checked assembly last, asking first.
    recipe = make_n("teardown", "ENV=smoke").stdout
    steps = ["-m infra.teardown check --env smoke", "kubectl get pv -o json",
             "-m infra.teardown retained --env smoke", "kubectl delete namespace", "cdk destroy --app cdk.out MoeRl-smoke"]
    positions = [recipe.index(step) for step in steps]
    assert positions == sorted(positions)
    assert "--force" not in recipe and "cdk synth --quiet -c env=smoke" in recipe
