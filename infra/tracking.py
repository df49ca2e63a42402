"""The MLflow tracking server's AWS identity: an EKS Pod Identity role for its service account
that reads and writes run artifacts under s3://<bucket>/mlflow/ and nothing else.

The server proxies every artifact request (`--serve-artifacts`), so the trainer and the people
port-forwarding to it need no AWS access of their own. Its backend store is PostgreSQL in the
cluster (k8s/charts/tracking.py says why), so it needs no RDS or database credentials from here.
"""

from __future__ import annotations

from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3
from cdk_nag import NagSuppressions
from constructs import Construct

from cluster.identities import TRACKING_ARTIFACTS_PREFIX, TRACKING_SERVICE_ACCOUNT, WORKLOAD_NAMESPACE
from infra.pod_identity import pod_identity_association, pod_identity_role

class TrackingIdentity(Construct):
    def __init__(self, scope: Construct, id: str, *, cluster: eks.Cluster, bucket: s3.Bucket) -> None:
        super().__init__(scope, id)
        self.role = pod_identity_role(self, "Role",
                                      description="MLflow tracking server: run artifacts under s3://<bucket>/mlflow/")
        policy = iam.Policy(self, "Policy", roles=[self.role])
        prefix = f"{TRACKING_ARTIFACTS_PREFIX}/"
        policy.add_statements(
            iam.PolicyStatement(actions=["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
                                resources=[bucket.arn_for_objects(f"{prefix}*")]),
            # Listing an artifact folder (the UI, list_artifacts): only below the prefix.
            iam.PolicyStatement(actions=["s3:ListBucket"], resources=[bucket.bucket_arn],
                                conditions={"StringLike": {"s3:prefix": [prefix, f"{prefix}*"]}}),
        )
        if bucket.encryption_key is not None:
            # The bucket is SSE-KMS: writing and reading objects use its key, through S3 only.
            bucket.encryption_key.grant_encrypt_decrypt(self.role)
        NagSuppressions.add_resource_suppressions(
            policy,
            [{
                "id": "AwsSolutions-IAM5",
                "reason": "Objects under the bucket's mlflow/ prefix only (run ids are made by the server at run time)",
            }],
        )
        NagSuppressions.add_resource_suppressions(
            self.role,
            [{"id": "AwsSolutions-IAM5", "reason": "The bucket key's grant (kms:ReEncrypt*, kms:GenerateDataKey*) "
              "on the one key of the artifacts bucket"}],
            apply_to_children=True,
        )
        self.association = pod_identity_association(self, cluster.cluster_name, WORKLOAD_NAMESPACE, TRACKING_SERVICE_ACCOUNT, self.role)
