"""The IAM role a pod's service account gets through EKS Pod Identity, and its association."""

from __future__ import annotations

from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from constructs import Construct

PODS = iam.ServicePrincipal("pods.eks.amazonaws.com")


def pod_identity_role(scope: Construct, id: str, **role_props) -> iam.Role:
    """A role the Pod Identity agent assumes for a pod; it also tags the session (namespace,
    service account, ...), which the trust policy must allow."""
    role = iam.Role(scope, id, assumed_by=PODS, **role_props)
    role.assume_role_policy.add_statements(iam.PolicyStatement(actions=["sts:TagSession"], principals=[PODS]))
    return role


def pod_identity_association(
    scope: Construct, cluster_name: str, namespace: str, service_account: str, role: iam.IRole
) -> eks.CfnPodIdentityAssociation:
    """Give `role` to the pods of one service account (construct id "PodIdentity" in `scope`).
    The agent injects credentials only into pods created after this exists: whatever starts
    those pods should depend on it."""
    return eks.CfnPodIdentityAssociation(
        scope, "PodIdentity", cluster_name=cluster_name, namespace=namespace, service_account=service_account,
        role_arn=role.role_arn,
    )
