"""EKS Pod Identity: one IAM role per workload service account, least privilege.

The trainer writes checkpoints and exports to the bucket; rollout servers and workers only
read from it. Image pulls use the node role, so neither needs ECR rights.
"""

from __future__ import annotations

from aws_cdk import aws_eks_v2 as eks, aws_iam as iam
from constructs import Construct

from infra.identities import ROLLOUT_SERVICE_ACCOUNT, TRAINER_SERVICE_ACCOUNT, WORKLOAD_NAMESPACE
from infra.storage import Storage

POD_IDENTITY = iam.ServicePrincipal("pods.eks.amazonaws.com")


def pod_identity_role(scope: Construct, id: str, description: str) -> iam.Role:
    role = iam.Role(scope, id, assumed_by=POD_IDENTITY, description=description)
    # Pod Identity passes session tags (namespace, service account) on every assume.
    role.assume_role_policy.add_statements(iam.PolicyStatement(actions=["sts:TagSession"], principals=[POD_IDENTITY]))
    return role


class WorkloadIdentity(Construct):
    def __init__(self, scope: Construct, id: str, *, cluster: eks.Cluster, storage: Storage) -> None:
        super().__init__(scope, id)
        self.trainer_role = pod_identity_role(self, "TrainerRole", "RL trainer: checkpoints and exports in S3")
        storage.bucket.grant_read_write(self.trainer_role)
        self.rollout_role = pod_identity_role(self, "RolloutRole", "RL rollout servers and workers: read models and data")
        storage.bucket.grant_read(self.rollout_role)
        for service_account, role in (
            (TRAINER_SERVICE_ACCOUNT, self.trainer_role),
            (ROLLOUT_SERVICE_ACCOUNT, self.rollout_role),
        ):
            eks.CfnPodIdentityAssociation(
                self,
                f"{service_account.title()}Association",
                cluster_name=cluster.cluster_name,
                namespace=WORKLOAD_NAMESPACE,
                service_account=service_account,
                role_arn=role.role_arn,
            )
