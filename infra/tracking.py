"""The MLflow tracking server's AWS identity: an EKS Pod Identity role for its service account
that reads and writes run artifacts under s3://<bucket>/mlflow/ and nothing else; and its way to
S3, an S3 interface endpoint alone in a /28 subnet of the node zone (cluster/network.py says why),
whose CIDR is all its NetworkPolicy lets it reach outside the cluster. The endpoint admits only
this role and only the bucket's mlflow/ prefix; its security group only 443 from the node subnet
(pods take their addresses there).

The server proxies every artifact request (`--serve-artifacts`), so the trainer and the people
port-forwarding to it need no AWS access of their own. Its backend store is PostgreSQL in the
cluster (k8s/charts/tracking.py says why), so it needs no RDS or database credentials from here.
"""

from __future__ import annotations

import ipaddress

from aws_cdk import Fn
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3
from cdk_nag import NagSuppressions
from constructs import Construct

from cluster.identities import TRACKING_ARTIFACTS_PREFIX, TRACKING_SERVICE_ACCOUNT, WORKLOAD_NAMESPACE
from cluster.network import artifacts_endpoint_subnet
from infra.network import Network
from infra.pod_identity import pod_identity_association, pod_identity_role

class TrackingIdentity(Construct):
    def __init__(self, scope: Construct, id: str, *, cluster: eks.Cluster, bucket: s3.Bucket, network: Network,
                 vpc_cidr: str) -> None:
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
        self.endpoint = self._artifacts_endpoint(network, vpc_cidr, bucket)
        # The endpoint's regional DNS name (`*.vpce-...`), for the server's MLFLOW_S3_ENDPOINT_URL.
        self.endpoint_dns_name = Fn.select(1, Fn.split(":", Fn.select(0, self.endpoint.vpc_endpoint_dns_entries)))

    def _artifacts_endpoint(self, network: Network, vpc_cidr: str, bucket: s3.Bucket) -> ec2.InterfaceVpcEndpoint:
        cidr = artifacts_endpoint_subnet(vpc_cidr)
        vpc = network.vpc
        taken = [s.ipv4_cidr_block for s in [*vpc.public_subnets, *vpc.private_subnets, *vpc.isolated_subnets]]
        clash = [t for t in taken if ipaddress.ip_network(t).overlaps(ipaddress.ip_network(cidr))]
        if clash:
            raise ValueError(f"vpc_cidr {vpc_cidr}: the tracking server's S3 endpoint subnet {cidr} (the VPC's last "
                             f"/28) overlaps subnet(s) {', '.join(clash)}: give the VPC a larger range")
        # Its own route table with only the VPC's local route: nothing in it reaches out.
        subnet = ec2.Subnet(self, "EndpointSubnet", vpc_id=vpc.vpc_id, availability_zone=network.node_zone,
                            cidr_block=cidr, map_public_ip_on_launch=False)
        security_group = ec2.SecurityGroup(self, "EndpointSecurityGroup", vpc=vpc, allow_all_outbound=False,
                                           description="MLflow S3 endpoint: 443 from pods in the node subnet")
        for node_subnet in vpc.select_subnets(
                subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS, availability_zones=[network.node_zone]).subnets:
            security_group.add_ingress_rule(ec2.Peer.ipv4(node_subnet.ipv4_cidr_block), ec2.Port.tcp(443),
                                            "pods (the tracking server) in the node subnet")
        endpoint = ec2.InterfaceVpcEndpoint(
            self, "Endpoint", vpc=vpc, service=ec2.InterfaceVpcEndpointAwsService.S3,
            subnets=ec2.SubnetSelection(subnets=[subnet]), security_groups=[security_group], open=False,
            # Off: the rest of the VPC keeps resolving S3 to the gateway endpoint.
            private_dns_enabled=False,
        )
        prefix = f"{TRACKING_ARTIFACTS_PREFIX}/"
        principal = iam.ArnPrincipal(self.role.role_arn)
        endpoint.add_to_policy(iam.PolicyStatement(principals=[principal],
                                                   actions=["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
                                                   resources=[bucket.arn_for_objects(f"{prefix}*")]))
        endpoint.add_to_policy(iam.PolicyStatement(principals=[principal], actions=["s3:ListBucket"],
                                                   resources=[bucket.bucket_arn],
                                                   conditions={"StringLike": {"s3:prefix": [prefix, f"{prefix}*"]}}))
        return endpoint
