"""The IAM role a pod's service account gets through EKS Pod Identity."""

from __future__ import annotations

from aws_cdk import aws_iam as iam
from constructs import Construct

PODS = iam.ServicePrincipal("pods.eks.amazonaws.com")


def pod_identity_role(scope: Construct, id: str, **role_props) -> iam.Role:
    """A role the Pod Identity agent assumes for a pod; it also tags the session (namespace,
    service account, ...), which the trust policy must allow."""
    role = iam.Role(scope, id, assumed_by=PODS, **role_props)
    role.assume_role_policy.add_statements(iam.PolicyStatement(actions=["sts:TagSession"], principals=[PODS]))
    return role
