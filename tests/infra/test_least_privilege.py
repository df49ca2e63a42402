"""Least privilege in the synthesized templates: the API endpoint, IAM, KMS, instance metadata
and disks, Grafana's admin password."""

from __future__ import annotations

import json

import pytest

from cluster.identities import TRACKING_ARTIFACTS_PREFIX, TRACKING_SERVICE_ACCOUNT, WORKLOAD_NAMESPACE
from infra.addons import GRAFANA_ADMIN_KEYS, GRAFANA_ADMIN_SECRET
from spec.environment import EnvironmentFileError
from infra.gpu_node_group import IMDS_HOP_LIMIT as GPU_IMDS_HOP_LIMIT
from infra.node_group import IMDS_HOP_LIMIT
from infra.storage import FSX_S3_ROLE
from tests.infra.environments import PUBLIC_API_CIDRS, deployable
from infra.storage import NODE_SOURCES_PREFIX


def vpc_config(synth) -> dict:
    ((_, cluster),) = synth.resources("AWS::EKS::Cluster").items()
    return cluster["Properties"]["ResourcesVpcConfig"]


def eks1_suppressions(synth) -> dict[str, list[str]]:
    found = {}
    for logical_id, resource in synth.template["Resources"].items():
        rules = resource.get("Metadata", {}).get("cdk_nag", {}).get("rules_to_suppress", [])
        reasons = [r["reason"] for r in rules if r["id"] == "AwsSolutions-EKS1"]
        if reasons:
            found[logical_id] = reasons
    stack_rules = json.dumps(synth.template.get("Metadata", {}))
    assert "AwsSolutions-EKS1" not in stack_rules, "EKS1 must never be acknowledged stack-wide"
    return found


def test_the_api_endpoint_is_private_unless_networks_are_listed(synthesized):
    for synth in synthesized.values():
        config = vpc_config(synth)
        assert (config["EndpointPublicAccess"], config["EndpointPrivateAccess"]) == (False, True)
        assert "PublicAccessCidrs" not in config
        assert eks1_suppressions(synth) == {}


def test_listed_networks_are_the_only_public_access_and_the_only_nag_exception(variants):
    synth = variants["public-api"]
    config = vpc_config(synth)
    assert (config["EndpointPublicAccess"], config["EndpointPrivateAccess"]) == (True, True)
    assert config["PublicAccessCidrs"] == PUBLIC_API_CIDRS
    ((cluster_id, _),) = synth.resources("AWS::EKS::Cluster").items()
    suppressions = eks1_suppressions(synth)
    assert list(suppressions) == [cluster_id]
    assert all(cidr in suppressions[cluster_id][0] for cidr in PUBLIC_API_CIDRS)


@pytest.mark.parametrize("cidr, message", [
    ("0.0.0.0/0", "opens the API endpoint to the whole Internet"),
    ("10.20.0.0/16", "is a private range"),
    ("52.95.110.1/24", "not an IPv4 CIDR with its host bits zero"),
    ("my-office", "not an IPv4 CIDR"),
])
def test_a_wrong_api_network_is_one_line(cidr, message):
    with pytest.raises(EnvironmentFileError, match=rf"default.yaml: api_public_cidrs: '{cidr}'.*{message}"):
        deployable("default", lambda d: d.update(api_public_cidrs=[cidr]))


@pytest.mark.parametrize("cidrs", [["0.0.0.0/1", "128.0.0.0/1"], ["2.0.0.0/7"], ["11.0.0.0/8", "52.0.0.0/24"]])
def test_networks_covering_more_than_a_slash_8_are_refused_by_what_they_cover(cidrs):
    with pytest.raises(EnvironmentFileError) as raised:
        deployable("default", lambda d: d.update(api_public_cidrs=cidrs))
    message = str(raised.value)
    assert "\n" not in message and message.startswith("default.yaml: api_public_cidrs: the listed networks together cover "), message
    assert "more than a /8 (16,777,216)" in message


def test_a_slash_8_in_pieces_is_accepted():
    # Overlaps are counted once: a /8 listed whole and again as its halves is still a /8.
    deployable("default", lambda d: d.update(api_public_cidrs=["11.0.0.0/8", "11.0.0.0/9", "11.128.0.0/9"]))


def statements(synth):
    for logical_id, resource in synth.template["Resources"].items():
        if resource["Type"] in ("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy"):
            for statement in resource["Properties"]["PolicyDocument"]["Statement"]:
                actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
                yield logical_id, actions, statement


def test_no_payload_role_exists_and_only_the_tracking_server_may_touch_the_bucket(synthesized):
    for synth in synthesized.values():
        associations = [a["Properties"] for a in synth.resources("AWS::EKS::PodIdentityAssociation").values()]
        in_workloads = [a["ServiceAccount"] for a in associations if a["Namespace"] == WORKLOAD_NAMESPACE]
        assert in_workloads == [TRACKING_SERVICE_ACCOUNT], "no payload pod has an AWS role"
        assert not any(k.endswith("RoleArn") for k in synth.template["Outputs"])
        bucket_id, _ = synth.one("AWS::S3::Bucket", "/Storage/Artifacts/")
        tracking_policy, _ = synth.one("AWS::IAM::Policy", "/Tracking/Policy")
        for logical_id, actions, statement in statements(synth):
            if any(a.startswith("s3:") for a in actions) and bucket_id in json.dumps(statement["Resource"]):
                if actions == ["s3:GetObject"] and f'"/{NODE_SOURCES_PREFIX}*"' in json.dumps(statement["Resource"]):
                    continue  # the nodes' boot-time sources (GDRCopy), read only (infra/storage.py)
                # The MLflow server's artifact store, its prefix only (tests/infra/test_tracking.py).
                assert logical_id == tracking_policy, f"{logical_id} grants {actions} on the bucket"
                assert f"{TRACKING_ARTIFACTS_PREFIX}/" in json.dumps(statement), statement


def key(synth, reference) -> dict:
    return synth.template["Resources"][reference["Ref"] if "Ref" in reference else reference["Fn::GetAtt"][0]]


def test_fsx_s3_and_ecr_use_their_own_rotated_customer_keys(synthesized):
    for synth in synthesized.values():
        _, fs = synth.one("AWS::FSx::FileSystem", "/Storage/Lustre")
        _, bucket = synth.one("AWS::S3::Bucket", "/Storage/Artifacts/")
        _, repository = synth.one("AWS::ECR::Repository", "/Storage/PayloadImage")
        (rule,) = bucket["Properties"]["BucketEncryption"]["ServerSideEncryptionConfiguration"]
        assert rule["ServerSideEncryptionByDefault"]["SSEAlgorithm"] == "aws:kms" and rule["BucketKeyEnabled"]
        assert repository["Properties"]["EncryptionConfiguration"]["EncryptionType"] == "KMS"
        references = [fs["Properties"]["KmsKeyId"], rule["ServerSideEncryptionByDefault"]["KMSMasterKeyID"],
                      repository["Properties"]["EncryptionConfiguration"]["KmsKey"]]
        keys = [key(synth, r) for r in references]
        assert all(k["Type"] == "AWS::KMS::Key" and k["Properties"]["EnableKeyRotation"] for k in keys)
        assert len({json.dumps(r) for r in references}) == 3


def test_only_fsxs_s3_role_through_s3_may_use_the_bucket_key_besides_the_account(synthesized):
    for synth in synthesized.values():
        _, bucket = synth.one("AWS::S3::Bucket", "/Storage/Artifacts/")
        (rule,) = bucket["Properties"]["BucketEncryption"]["ServerSideEncryptionConfiguration"]
        policy = key(synth, rule["ServerSideEncryptionByDefault"]["KMSMasterKeyID"])["Properties"]["KeyPolicy"]
        (fsx,) = [s for s in policy["Statement"] if s.get("Sid") == "FsxDataRepositoriesThroughS3"]
        assert "kms:CreateGrant" not in fsx["Action"] and "kms:ScheduleKeyDeletion" not in fsx["Action"]
        conditions = json.dumps(fsx["Condition"])
        assert "kms:ViaService" in conditions and "kms:CallerAccount" in conditions and FSX_S3_ROLE in conditions
        others = [s for s in policy["Statement"] if s is not fsx]
        assert all(":root" in json.dumps(s["Principal"]) for s in others)  # the account's own IAM policies decide


def test_every_node_group_requires_imds_tokens_and_encrypts_its_root_volume(synthesized):
    for synth in synthesized.values():
        groups = synth.resources("AWS::EKS::Nodegroup")
        assert len(groups) == 5
        for logical_id, group in groups.items():
            properties = group["Properties"]
            assert "DiskSize" not in properties
            template = key(synth, properties["LaunchTemplate"]["Id"])["Properties"]["LaunchTemplateData"]
            metadata = template["MetadataOptions"]
            assert metadata["HttpTokens"] == "required", logical_id
            pool = properties["Labels"]["rl.aws/pool"]
            assert metadata["HttpPutResponseHopLimit"] == IMDS_HOP_LIMIT.get(pool, GPU_IMDS_HOP_LIMIT), logical_id
            (root,) = template["BlockDeviceMappings"]
            assert root["Ebs"]["Encrypted"] is True and root["Ebs"]["VolumeType"] == "gp3", logical_id
        # No pod outside the host network on the cpu (model output), memory and GPU pools reaches IMDS.
        assert IMDS_HOP_LIMIT["cpu"] == IMDS_HOP_LIMIT["memory"] == GPU_IMDS_HOP_LIMIT == 1


def test_grafanas_admin_password_comes_from_a_secret(synthesized):
    for synth in synthesized.values():
        (chart,) = [r for r in synth.resources("Custom::AWSCDK-EKS-HelmChart").values()
                    if "kube-prometheus-stack" in json.dumps(r["Properties"]["Chart"])]
        values = json.loads(chart["Properties"]["Values"]) if isinstance(chart["Properties"]["Values"], str) else None
        assert values is not None
        grafana = values["grafana"]
        assert grafana["admin"] == {"existingSecret": GRAFANA_ADMIN_SECRET, **GRAFANA_ADMIN_KEYS}
        assert "adminPassword" not in grafana
