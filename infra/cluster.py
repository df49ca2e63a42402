"""The EKS control plane (aws_eks_v2): API access entries, KMS-encrypted secrets, every
control-plane log type, no default capacity (all nodes come from infra/*node_group.py).

Endpoint: private, unless the environment lists `api_public_cidrs`; then also public, but
only from those networks (cdk-nag's EKS1 is acknowledged for this cluster alone, naming them).
The kubectl provider's Lambda runs in the private subnets either way (aws_eks_v2 places it
there whenever private access is on), so CloudFormation reaches a private endpoint too.

Access: in API authentication mode nobody but the cluster's creator may call the Kubernetes
API, and with CDK the creator is CloudFormation's execution role, which no person assumes. So
every principal in `admin_principal_arns` gets cluster admin through an access entry, and an
environment that lists none makes the stack take one as a deploy-time parameter
(ADMIN_PARAMETER): `cdk deploy` then stops before creating anything until it is given.
"""

from __future__ import annotations

from aws_cdk import CfnParameter, Stack, aws_eks_v2 as eks, aws_iam as iam, aws_kms as kms
from aws_cdk.lambda_layer_kubectl_v33 import KubectlV33Layer
from aws_cdk.lambda_layer_kubectl_v34 import KubectlV34Layer
from cdk_nag import NagSuppressions
from constructs import Construct

from spec.environment import IAM_PRINCIPAL_ARN, Environment
from infra.network import Network

# kubectl must be within one minor version of the cluster.
KUBECTL_LAYERS = {"1.32": KubectlV33Layer, "1.33": KubectlV33Layer, "1.34": KubectlV34Layer}
ADMIN_PARAMETER = "AdminPrincipalArn"


def endpoint_access(public_cidrs: list[str]) -> eks.EndpointAccess:
    if not public_cidrs:
        return eks.EndpointAccess.PRIVATE
    return eks.EndpointAccess.PUBLIC_AND_PRIVATE.only_from(*public_cidrs)


class Cluster(Construct):
    def __init__(self, scope: Construct, id: str, *, environment: Environment, network: Network) -> None:
        super().__init__(scope, id)
        self.secrets_key = kms.Key(self, "SecretsKey", enable_key_rotation=True, description="EKS secrets encryption")
        self.cluster = eks.Cluster(
            self,
            "Cluster",
            version=eks.KubernetesVersion.of(environment.kubernetes_version),
            vpc=network.vpc,
            vpc_subnets=[network.control_plane_subnets],
            default_capacity=0,
            default_capacity_type=eks.DefaultCapacityType.NODEGROUP,
            secrets_encryption_key=self.secrets_key,
            endpoint_access=endpoint_access(environment.api_public_cidrs),
            cluster_logging=[
                eks.ClusterLoggingTypes.API,
                eks.ClusterLoggingTypes.AUDIT,
                eks.ClusterLoggingTypes.AUTHENTICATOR,
                eks.ClusterLoggingTypes.CONTROLLER_MANAGER,
                eks.ClusterLoggingTypes.SCHEDULER,
            ],
            kubectl_provider_options=eks.KubectlProviderOptions(
                kubectl_layer=KUBECTL_LAYERS[environment.kubernetes_version](self, "KubectlLayer")
            ),
        )
        if environment.api_public_cidrs:
            NagSuppressions.add_resource_suppressions(
                self.cluster.node.default_child,  # the AWS::EKS::Cluster alone
                [{"id": "AwsSolutions-EKS1", "reason": "public endpoint reachable only from api_public_cidrs "
                  f"({', '.join(environment.api_public_cidrs)}); access is also gated by IAM access entries"}],
            )
        admin = eks.AccessPolicy.from_access_policy_name(
            "AmazonEKSClusterAdminPolicy", access_scope_type=eks.AccessScopeType.CLUSTER
        )
        admins = list(environment.admin_principal_arns)
        if not admins:
            parameter = CfnParameter(
                Stack.of(self),
                ADMIN_PARAMETER,
                type="String",
                allowed_pattern=IAM_PRINCIPAL_ARN,
                description=f"IAM role or user given cluster admin ({environment.name}.yaml lists no admin_principal_arns)",
                constraint_description="an IAM role or user ARN: arn:aws:iam::ACCOUNT:role/NAME or arn:aws:iam::ACCOUNT:user/NAME",
            )
            admins = [parameter.value_as_string]
        for index, arn in enumerate(admins):
            self.cluster.grant_access(f"Admin{index}", arn, [admin])

        # One role for every node: what the kubelet, the VPC CNI and image pulls need.
        self.node_role = iam.Role(
            self,
            "NodeRole",
            assumed_by=iam.ServicePrincipal("ec2.amazonaws.com"),
            managed_policies=[
                iam.ManagedPolicy.from_aws_managed_policy_name(name)
                for name in (
                    "AmazonEKSWorkerNodePolicy",
                    "AmazonEKS_CNI_Policy",
                    "AmazonEC2ContainerRegistryPullOnly",
                    "AmazonSSMManagedInstanceCore",
                )
            ],
        )
