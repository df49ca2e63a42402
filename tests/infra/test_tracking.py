"""The MLflow tracking server's Pod Identity role as synthesized (infra/tracking.py): bound to the
tracking chart's service account in the workload namespace, able to touch only objects under the
bucket's mlflow/ prefix (and its key, through S3), and absent when the job turns the server off."""

import json

from cluster.identities import TRACKING_ARTIFACTS_PREFIX, TRACKING_SERVICE_ACCOUNT, WORKLOAD_NAMESPACE


def test_role_is_bound_to_the_tracking_service_account_and_scoped_to_its_prefix(synthesized):
    for name, synth in synthesized.items():
        _, association = synth.one("AWS::EKS::PodIdentityAssociation", "/Tracking/")
        props = association["Properties"]
        assert (props["Namespace"], props["ServiceAccount"]) == (WORKLOAD_NAMESPACE, TRACKING_SERVICE_ACCOUNT)
        role_id, role = synth.one("AWS::IAM::Role", "/Tracking/Role")
        assert props["RoleArn"] == {"Fn::GetAtt": [role_id, "Arn"]}
        trust = role["Properties"]["AssumeRolePolicyDocument"]["Statement"]
        assert {p for s in trust for p in [s["Principal"]["Service"]]} == {"pods.eks.amazonaws.com"}
        assert {a for s in trust for a in s["Action"]} == {"sts:AssumeRole", "sts:TagSession"}, name

        statements = [s for _, policy in synth.resources("AWS::IAM::Policy").items()
                      if {"Ref": role_id} in policy["Properties"]["Roles"]
                      for s in policy["Properties"]["PolicyDocument"]["Statement"]]
        s3 = [s for s in statements if any(a.startswith("s3:") for a in _list(s["Action"]))]
        assert {a for s in s3 for a in _list(s["Action"])} == {"s3:GetObject", "s3:PutObject", "s3:DeleteObject",
                                                                 "s3:ListBucket"}
        [objects] = [s for s in s3 if "s3:GetObject" in _list(s["Action"])]
        assert json.dumps(objects["Resource"]).endswith(f'"/{TRACKING_ARTIFACTS_PREFIX}/*"]]}}')
        [listing] = [s for s in s3 if s["Action"] == "s3:ListBucket"]
        assert listing["Condition"] == {"StringLike": {"s3:prefix": [f"{TRACKING_ARTIFACTS_PREFIX}/",
                                                                     f"{TRACKING_ARTIFACTS_PREFIX}/*"]}}
        others = [s for s in statements if s not in s3]
        assert all(a.startswith("kms:") for s in others for a in _list(s["Action"])), others


def _list(value) -> list[str]:
    return value if isinstance(value, list) else [value]
