"""GPU capacity: pools created empty and sized by `make scale` (tests/infra/test_scale.py), example reservation ids
refused, node groups replaceable (no fixed names)."""

import json
import os
import subprocess
import sys

import aws_cdk as cdk
import pytest

from tests.infra.environments import REPO
from infra.capacity import is_placeholder_reservation
from spec.environment import GPU_POOLS, EnvironmentFileError
from estimate.checks import load_environment


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

    with pytest.raises(EnvironmentFileError, match=r"pools\.train\.capacity_reservation_id cr-0123456789abcdef0 is an example id"):
        MoeRlStack(cdk.App(), load_environment("p5en-48"))


def test_app_refuses_it_with_one_line_and_writes_nothing(tmp_path):
    env = {**os.environ, "CDK_OUTDIR": str(tmp_path / "cdk.out"), "CDK_CONTEXT_JSON": json.dumps({"env": "p5en-48"})}
    result = subprocess.run([sys.executable, "app.py"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: p5en-48.yaml: pools.train.capacity_reservation_id cr-0123456789abcdef0 is an example id")
    assert "aws ec2 describe-capacity-reservations" in line
    assert not (tmp_path / "cdk.out").exists() or not any((tmp_path / "cdk.out").iterdir())
