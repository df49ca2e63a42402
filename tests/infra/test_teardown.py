"""`make teardown` (infra/teardown.py): refused while a GPU pool has nodes; what outlives the
stack is read from the real synthesized template (DeletionPolicy Retain) and the cluster's
volumes, each with its cost and the command that deletes it, KMS keys last. CloudFormation's
and EKS's answers are played back by botocore's Stubber against their service models."""

import pytest
from botocore.stub import Stubber

from estimate.checks import load_environment
from infra.teardown import (FSX_USD_PER_GB_MONTH, TeardownRefused, check, ebs_volumes, report, retained,
                            retained_in_template, stack_resources)
from tests.infra.test_deploy_guard import OUTPUTS, STACK, client, running

# What `kubectl get pv -o json` lists on a running cluster: the static FSx volume (k8s/charts/base.py)
# and the EBS CSI volumes the StatefulSets' claims created.
PERSISTENT_VOLUMES = {"items": [
    {"spec": {"csi": {"driver": "fsx.csi.aws.com", "volumeHandle": "fs-0123456789abcdef0"},
              "capacity": {"storage": "1200Gi"}, "claimRef": {"namespace": "rl", "name": "fsx"}}},
    {"spec": {"csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-0aaa1111bbbb22223"},
              "capacity": {"storage": "100Gi"},
              "claimRef": {"namespace": "monitoring", "name": "prometheus-db-prometheus-0"}}},
    {"spec": {"csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-0ccc3333dddd44445"},
              "capacity": {"storage": "1Ti"}, "claimRef": {"namespace": "rl", "name": "data-buffer-0"}}},
]}


def described(cfn_stub):
    cfn_stub.add_response(
        "describe_stacks",
        {"Stacks": [{"StackName": STACK, "CreationTime": "2026-12-01T10:00:00Z", "StackStatus": "UPDATE_COMPLETE",
                     "Outputs": OUTPUTS}]},
        {"StackName": STACK},
    )


def test_refused_while_a_gpu_pool_has_nodes_and_without_a_stack():
    environment = load_environment("default")
    cloudformation, eks = client("cloudformation"), client("eks")
    with Stubber(cloudformation) as cfn_stub, Stubber(eks) as eks_stub:
        described(cfn_stub)
        running(eks_stub, "TrainNodesNodegroup-abc", 0)
        running(eks_stub, "RolloutNodesNodegroup-def", 1)
        with pytest.raises(TeardownRefused) as error:
            check(environment, cloudformation, eks)
        assert str(error.value) == ("pools.rollout runs 1 nodes: stop the job first (kubectl delete -f dist/), then "
                                    "make scale ENV=default POOL=rollout NODES=0, and make teardown again")
        described(cfn_stub)
        running(eks_stub, "TrainNodesNodegroup-abc", 0)
        running(eks_stub, "RolloutNodesNodegroup-def", 0)
        check(environment, cloudformation, eks)  # both at 0: allowed
        cfn_stub.add_client_error("describe_stacks", service_error_code="ValidationError",
                                  service_message=f"Stack with id {STACK} does not exist", http_status_code=400)
        with pytest.raises(TeardownRefused, match=f"^stack {STACK} does not exist in us-east-2: nothing to tear down$"):
            check(environment, cloudformation, eks)


def test_what_outlives_the_stack_in_deletion_order(default):
    kinds = retained_in_template(default.template)
    # infra/storage.py's RETAIN: the file system, the artifacts and access-log buckets, the
    # repository and its three customer managed keys; and the EKS secrets' key (CDK's default
    # for a KMS key); nothing else.
    assert sorted(kinds.values()) == ["AWS::ECR::Repository", "AWS::FSx::FileSystem", "AWS::KMS::Key",
                                      "AWS::KMS::Key", "AWS::KMS::Key", "AWS::KMS::Key", "AWS::S3::Bucket",
                                      "AWS::S3::Bucket"]
    ids = {logical: f"id-of-{logical}" for logical in kinds}
    cloudformation = client("cloudformation")
    with Stubber(cloudformation) as cfn_stub:
        summaries = [{"LogicalResourceId": logical, "PhysicalResourceId": physical, "ResourceType": kinds[logical],
                      "LastUpdatedTimestamp": "2026-12-01T10:00:00Z", "ResourceStatus": "CREATE_COMPLETE"}
                     for logical, physical in ids.items()]
        cfn_stub.add_response("list_stack_resources", {"StackResourceSummaries": summaries}, {"StackName": STACK})
        physical = stack_resources(cloudformation, STACK)
    environment = load_environment("default")
    volumes = ebs_volumes(PERSISTENT_VOLUMES)
    assert volumes == [("vol-0aaa1111bbbb22223", "monitoring/prometheus-db-prometheus-0", 100),
                       ("vol-0ccc3333dddd44445", "rl/data-buffer-0", 1024)]
    resources = retained(environment, default.template, physical, volumes)
    assert [r.kind.split(" (")[0] for r in resources] == [
        "EBS gp3 volume of claim monitoring/prometheus-db-prometheus-0", "EBS gp3 volume of claim rl/data-buffer-0",
        "FSx for Lustre file system", "S3 bucket", "S3 bucket", "ECR repository", "KMS key", "KMS key", "KMS key", "KMS key"]
    assert {r.id for r in resources} == set(ids.values()) | {"vol-0aaa1111bbbb22223", "vol-0ccc3333dddd44445"}
    fsx = resources[2]
    # default.yaml: 2400 GiB at 500 MB/s/TiB.
    assert fsx.monthly == f"${2400 * 2 ** 30 / 1e9 * FSX_USD_PER_GB_MONTH[500]:,.0f} (2,577 GB x $0.34/GB)" == \
        "$876 (2,577 GB x $0.34/GB)"
    assert fsx.delete.startswith(f"aws fsx delete-file-system --region us-east-2 --file-system-id {fsx.id}")
    assert resources[-1].delete.startswith("aws kms schedule-key-deletion --region us-east-2 --pending-window-in-days 7 "
                                           "--key-id id-of-")
    text = report(environment, resources)
    assert text.startswith("Retained after make teardown ENV=default (stack MoeRl-default, us-east-2): billed until deleted.")
    assert "aws ec2 delete-volume --region us-east-2 --volume-id vol-0ccc3333dddd44445" in text


def test_the_smoke_environment_synthesizes_and_leaves_what_the_seed_leaves(tmp_path, default):
    """environments/smoke.yaml as a CDK app deploys it (cdk-nag's checks included), on its own:
    the shipped environments' snapshot tests stay two. What `make teardown ENV=smoke` lists
    comes from this template."""
    import json

    import aws_cdk as cdk

    from infra.nag import check_with_cdk_nag
    from infra.stack import MoeRlStack
    from tests.infra.environments import REPO, deployable

    context = json.loads((REPO / "cdk.json").read_text())["context"]
    app = cdk.App(outdir=str(tmp_path), context=context)
    stack = MoeRlStack(app, deployable("smoke"))
    check_with_cdk_nag(stack)
    app.synth()
    template = json.loads((tmp_path / "MoeRl-smoke.template.json").read_text())
    assert sorted(retained_in_template(template).values()) == sorted(retained_in_template(default.template).values())
    sizes = {r["Properties"]["Labels"]["rl.aws/pool"]: r["Properties"]["ScalingConfig"]
             for r in template["Resources"].values() if r["Type"] == "AWS::EKS::Nodegroup"}
    # GPU pools are created empty (make scale sizes them); one node each at most.
    assert sizes["train"] == sizes["rollout"] == {"MinSize": 0, "DesiredSize": 0, "MaxSize": 1}
