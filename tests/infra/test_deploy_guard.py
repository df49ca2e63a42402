"""`make deploy` refuses to change a GPU pool that has nodes (infra/deploy_guard.py).

The deployed and the new templates are real synthesized ones (the default environment, and the
same with other pool sizes); CloudFormation's and EKS's answers are played back by botocore's
Stubber against their service models.
"""

import json

import boto3
import pytest
from botocore.stub import Stubber

from infra.deploy_guard import DeployRefused, changes, check, gpu_pool_resources, main as guard

STACK = "MoeRl-default"
OUTPUTS = [{"OutputKey": "ClusterName", "OutputValue": "rl-default"},
           {"OutputKey": "TrainNodegroupName", "OutputValue": "TrainNodesNodegroup-abc"},
           {"OutputKey": "RolloutNodegroupName", "OutputValue": "RolloutNodesNodegroup-def"}]


def client(service):
    return boto3.client(service, region_name="us-east-2", aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="x")


def deployed_stack(cloudformation_stub, template):
    cloudformation_stub.add_response(
        "describe_stacks",
        {"Stacks": [{"StackName": STACK, "CreationTime": "2026-12-01T10:00:00Z", "StackStatus": "UPDATE_COMPLETE",
                     "Outputs": OUTPUTS}]},
        {"StackName": STACK},
    )
    cloudformation_stub.add_response("get_template", {"TemplateBody": json.dumps(template)},
                                     {"StackName": STACK, "TemplateStage": "Original"})


def running(eks_stub, nodegroup, desired):
    eks_stub.add_response(
        "describe_nodegroup",
        {"nodegroup": {"nodegroupName": nodegroup, "status": "ACTIVE",
                       "scalingConfig": {"minSize": 0, "maxSize": 6, "desiredSize": desired}}},
        {"clusterName": "rl-default", "nodegroupName": nodegroup},
    )


def test_only_a_changed_max_size_counts_as_a_change(default, variants):
    """Other min/desired sizes leave the template alone (GPU pools are created 0/0/max); a
    changed max_size is a scaling-config change, which CloudFormation would apply as 0/0/max."""
    before, after = gpu_pool_resources(default.template), gpu_pool_resources(variants["resized"].template)
    assert set(before) == set(after) == {"train", "rollout"}
    assert changes(before["train"], after["train"]) == []
    assert changes(before["rollout"], after["rollout"]) == ["Nodegroup.ScalingConfig"]
    # Each pool's launch template and (train) placement group are compared too.
    assert sorted(r["Type"] for r in before["train"].values()) == [
        "AWS::EC2::LaunchTemplate", "AWS::EC2::PlacementGroup", "AWS::EKS::Nodegroup"]


def test_refuses_while_the_changed_pool_has_nodes(default, variants):
    cloudformation, eks = client("cloudformation"), client("eks")
    with Stubber(cloudformation) as cfn_stub, Stubber(eks) as eks_stub:
        deployed_stack(cfn_stub, default.template)
        running(eks_stub, "RolloutNodesNodegroup-def", 3)
        with pytest.raises(DeployRefused) as error:
            check("default", variants["resized"].template, cloudformation, eks)
        eks_stub.assert_no_pending_responses()
    assert str(error.value) == (
        "pools.rollout: this deploy changes its node group (Nodegroup.ScalingConfig) while it runs 3 nodes, which "
        "CloudFormation would drain or replace: make scale ENV=default POOL=rollout NODES=0, deploy, then make scale again")


def test_allows_the_change_once_the_pool_is_at_zero(default, variants):
    cloudformation, eks = client("cloudformation"), client("eks")
    with Stubber(cloudformation) as cfn_stub, Stubber(eks) as eks_stub:
        deployed_stack(cfn_stub, default.template)
        running(eks_stub, "RolloutNodesNodegroup-def", 0)
        notes = check("default", variants["resized"].template, cloudformation, eks)
    assert notes == ["pools.rollout: changes (Nodegroup.ScalingConfig); the pool is at 0 nodes"]


def test_a_launch_template_change_counts(default):
    """Anything in a pool's launch template (here its root volume) rolls every node."""
    new = json.loads(json.dumps(default.template))
    (launch_template,) = [r for r in new["Resources"].values() if r["Type"] == "AWS::EC2::LaunchTemplate"
                          and "/TrainNodes/" in r["Metadata"]["aws:cdk:path"]]
    launch_template["Properties"]["LaunchTemplateData"]["BlockDeviceMappings"][0]["Ebs"]["VolumeSize"] = 80
    cloudformation, eks = client("cloudformation"), client("eks")
    with Stubber(cloudformation) as cfn_stub, Stubber(eks) as eks_stub:
        deployed_stack(cfn_stub, default.template)
        running(eks_stub, "TrainNodesNodegroup-abc", 2)
        with pytest.raises(DeployRefused, match=r"^pools.train: this deploy changes its node group \(LaunchTemplate.BlockDeviceMappings\)"):
            check("default", new, cloudformation, eks)


def test_first_deploy_and_unchanged_pools_pass_without_asking_eks(default):
    cloudformation, eks = client("cloudformation"), client("eks")
    with Stubber(cloudformation) as cfn_stub, Stubber(eks):
        cfn_stub.add_client_error("describe_stacks", service_error_code="ValidationError",
                                  service_message=f"Stack with id {STACK} does not exist", http_status_code=400)
        assert check("default", default.template, cloudformation, eks) == []
        deployed_stack(cfn_stub, default.template)
        assert check("default", default.template, cloudformation, eks) == []  # no describe_nodegroup stubbed: none made


def test_missing_assembly_is_one_line(tmp_path, capsys):
    assert guard(["--env", "default", "--assembly", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"error: {tmp_path}/MoeRl-default.template.json not found: synthesize first (make infra ENV=default)"
