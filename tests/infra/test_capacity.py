"""GPU capacity: pools created empty and sized by `make scale`, example reservation ids
refused, node groups replaceable (no fixed names)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import aws_cdk as cdk
import pytest

from tests.infra.environments import REPO
from infra.capacity import is_placeholder_reservation
from infra.environment import GPU_POOLS, EnvironmentError, load_environment
from infra.scale import main as scale


def nodegroups(synth) -> dict[str, tuple[str, dict]]:
    return {ng["Properties"]["Labels"]["rl.aws/pool"]: (logical, ng["Properties"])
            for logical, ng in synth.resources("AWS::EKS::Nodegroup").items()}


@pytest.mark.parametrize("name", ["default", "p5en-48"])
def test_gpu_pools_are_created_empty_the_others_at_their_size(synthesized, name):
    environment = load_environment(name)
    for pool, (_, props) in nodegroups(synthesized[name]).items():
        spec = getattr(environment.pools, pool)
        if pool in GPU_POOLS:
            assert props["ScalingConfig"] == {"MinSize": 0, "DesiredSize": 0, "MaxSize": spec.max_size}, pool
        else:
            assert props["ScalingConfig"] == {
                "MinSize": spec.min_size, "DesiredSize": spec.desired_size, "MaxSize": spec.max_size
            }, pool
    outputs = synthesized[name].template["Outputs"]
    for pool in GPU_POOLS:
        logical, _ = nodegroups(synthesized[name])[pool]
        assert outputs[f"{pool.title()}NodegroupName"]["Value"] == {"Fn::GetAtt": [logical, "NodegroupName"]}


def test_node_groups_carry_no_fixed_name(synthesized):
    for synth in synthesized.values():
        for pool, (_, props) in nodegroups(synth).items():
            assert "NodegroupName" not in props, pool


def test_changed_instance_types_replace_or_update_in_place(default, variants):
    """A new instance type: the same resources (logical ids) with new properties, and no
    custom name on the node group CloudFormation must replace."""
    before, after = nodegroups(default), nodegroups(variants["new-types"])
    assert {pool: logical for pool, (logical, _) in before.items()} == {pool: logical for pool, (logical, _) in after.items()}
    assert before["cpu"][1]["InstanceTypes"] == ["c7i.8xlarge"] and after["cpu"][1]["InstanceTypes"] == ["c7i.16xlarge"]
    assert "NodegroupName" not in after["cpu"][1]
    # GPU pools keep the type in the launch template: a new template version, a rolling update.
    _, template = variants["new-types"].one("AWS::EC2::LaunchTemplate", "/TrainNodes/")
    assert template["Properties"]["LaunchTemplateData"]["InstanceType"] == "p5e.48xlarge"


@pytest.mark.parametrize(
    "reservation, placeholder",
    [("cr-0123456789abcdef0", True), ("cr-1234567890abcdef0", True), ("cr-02168da1478b509e0", True),
     ("cr-00000000000000000", True), ("cr-0f3a9c1e5b7d24680", False), ("cr-07e1a2b3c4d5e6f70", False)],
)
def test_example_reservation_ids_are_recognised(reservation, placeholder):
    assert is_placeholder_reservation(reservation) is placeholder


def test_the_shipped_example_reservation_is_refused():
    from infra.stack import MoeRlStack

    with pytest.raises(EnvironmentError, match=r"pools\.train\.capacity_reservation_id cr-0123456789abcdef0 is an example id"):
        MoeRlStack(cdk.App(), load_environment("p5en-48"))


def test_app_refuses_it_with_one_line_and_writes_nothing(tmp_path):
    env = {**os.environ, "CDK_OUTDIR": str(tmp_path / "cdk.out"), "CDK_CONTEXT_JSON": json.dumps({"env": "p5en-48"})}
    result = subprocess.run([sys.executable, "app.py"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: p5en-48.yaml: pools.train.capacity_reservation_id cr-0123456789abcdef0 is an example id")
    assert "aws ec2 describe-capacity-reservations" in line
    assert not (tmp_path / "cdk.out").exists() or not any((tmp_path / "cdk.out").iterdir())


# ---- make scale (python -m infra.scale) against a recording `aws` on PATH ----

FAKE_AWS = """#!/bin/sh
echo "$*" >> "$AWS_LOG"
case "$2" in
  describe-capacity-reservations) echo "$BLOCK_STATE	2026-12-01T11:30:00Z	2026-12-08T11:30:00Z" ;;
  describe-nodegroup) echo "$NODEGROUP_ISSUES" ;;
esac
"""


@pytest.fixture
def aws(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "aws").write_text(FAKE_AWS)
    (bin_dir / "aws").chmod(0o755)
    log = tmp_path / "aws.log"
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.setenv("AWS_LOG", str(log))
    monkeypatch.setenv("BLOCK_STATE", "active")
    monkeypatch.setenv("NODEGROUP_ISSUES", "None")
    outputs = tmp_path / "cdk-outputs.json"
    outputs.write_text(json.dumps({
        f"MoeRl-{name}": {"ClusterName": f"rl-{name}", "TrainNodegroupName": f"train-{name}-ng", "RolloutNodegroupName": f"rollout-{name}-ng"}
        for name in ("default", "p5en-48")
    }))
    return lambda: log.read_text().splitlines() if log.exists() else [], outputs


def test_scale_sets_the_file_sizes_after_checking_the_block(aws, capsys):
    calls, outputs = aws
    assert scale(["train", "--env", "p5en-48", "--outputs", str(outputs)]) == 0
    reservation, update, wait, health = calls()
    assert reservation.startswith("ec2 describe-capacity-reservations --region us-east-2 --capacity-reservation-ids cr-0123456789abcdef0")
    assert update == ("eks update-nodegroup-config --region us-east-2 --cluster-name rl-p5en-48 "
                      "--nodegroup-name train-p5en-48-ng --scaling-config minSize=16,maxSize=16,desiredSize=16")
    assert wait.startswith("eks wait nodegroup-active") and health.startswith("eks describe-nodegroup")
    assert "active until 2026-12-08T11:30:00Z" in capsys.readouterr().err


def test_scale_refuses_a_block_that_is_not_active(aws, capsys, monkeypatch):
    calls, outputs = aws
    monkeypatch.setenv("BLOCK_STATE", "scheduled")
    assert scale(["train", "--env", "p5en-48", "--outputs", str(outputs)]) == 2
    assert [c.split()[1] for c in calls()] == ["describe-capacity-reservations"]  # nothing resized
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == ("error: pools.train: Capacity Block cr-0123456789abcdef0 is scheduled (starts 2026-12-01T11:30:00Z); "
                   "EC2 launches its instances only while it is active")


def test_scale_to_zero_and_capacity_misses(aws, capsys, monkeypatch):
    calls, outputs = aws
    assert scale(["rollout", "--env", "default", "--nodes", "0", "--outputs", str(outputs)]) == 0
    assert "--scaling-config minSize=0,maxSize=4,desiredSize=0" in calls()[0]
    monkeypatch.setenv("NODEGROUP_ISSUES", "AsgInstanceLaunchFailures\tCould not launch Spot Instances. InsufficientInstanceCapacity")
    assert scale(["rollout", "--env", "default", "--outputs", str(outputs)]) == 2
    assert capsys.readouterr().err.strip().endswith("reports: AsgInstanceLaunchFailures\tCould not launch Spot Instances. InsufficientInstanceCapacity")


@pytest.mark.parametrize(
    "args, expected",
    [(["rollout", "--env", "default", "--nodes", "9"], "error: NODES=9: must be between 0 and the pool's max_size 4"),
     (["train", "--env", "default", "--outputs", "/nonexistent/cdk-outputs.json"], "error: cdk-outputs.json not found: deploy first")],
)
def test_scale_user_mistakes_are_one_line(aws, capsys, args, expected):
    calls, outputs = aws
    assert scale(args if "--outputs" in args else [*args, "--outputs", str(outputs)]) == 2
    assert capsys.readouterr().err.strip().startswith(expected)
    assert calls() == []
