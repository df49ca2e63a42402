"""Cluster access: every listed admin gets an access entry; an environment that lists none
makes `cdk deploy` require one (a stack parameter) instead of deploying a cluster nobody can
reach."""

import json
import re

import pytest

from tests.infra.environments import ADMINS, deployable
from infra.cluster import ADMIN_PARAMETER
from spec.environment import IAM_PRINCIPAL_ARN, EnvironmentFileError

ADMIN_POLICY = ":eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"


def admin_entries(synth) -> list[dict]:
    entries = [e["Properties"] for e in synth.resources("AWS::EKS::AccessEntry").values()]
    return [e for e in entries if any(ADMIN_POLICY in json.dumps(p["PolicyArn"]) for p in e.get("AccessPolicies", []))]


def test_no_admin_listed_means_deploy_requires_one(default):
    parameter = default.template["Parameters"][ADMIN_PARAMETER]
    assert "Default" not in parameter  # cdk deploy stops until --parameters AdminPrincipalArn=... is given
    assert parameter["AllowedPattern"] == IAM_PRINCIPAL_ARN
    principals = [e["PrincipalArn"] for e in admin_entries(default)]
    assert {"Ref": ADMIN_PARAMETER} in principals


def test_listed_admins_get_entries_and_no_parameter(variants):
    synth = variants["admins"]
    assert ADMIN_PARAMETER not in synth.template.get("Parameters", {})
    principals = [e["PrincipalArn"] for e in admin_entries(synth)]
    assert all(arn in principals for arn in ADMINS)


@pytest.mark.parametrize(
    "arn, accepted",
    [("arn:aws:iam::111122223333:role/Admin", True), ("arn:aws:iam::111122223333:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_Admin_0a1b", True),
     ("arn:aws:iam::111122223333:user/alice", True), ("arn:aws-us-gov:iam::111122223333:role/Admin", True),
     ("arn:aws:sts::111122223333:assumed-role/Admin/alice", False), ("arn:aws:iam::111122223333:group/admins", False),
     ("Admin", False)],
)
def test_the_parameter_pattern_takes_iam_roles_and_users_only(arn, accepted):
    # CloudFormation matches AllowedPattern against the whole value, as fullmatch does.
    assert bool(re.fullmatch(IAM_PRINCIPAL_ARN, arn)) is accepted


def test_an_sts_session_arn_in_the_file_says_what_to_use_instead():
    with pytest.raises(EnvironmentFileError, match=r"admin_principal_arns.*is an STS session.*arn:aws:iam::ACCOUNT:role/NAME"):
        deployable("default", lambda d: d.update(admin_principal_arns=["arn:aws:sts::111122223333:assumed-role/Admin/alice"]))
