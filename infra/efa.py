"""The EFA security group: EFA's SRD traffic must be allowed from AND to the group itself.

`allow_all_outbound=False` is load-bearing: with the default (True) CDK drops the explicit
self-egress rule as redundant, and EFA then fails to connect between nodes. Other egress
(NAT, AWS APIs) comes from the cluster security group attached beside this one.
"""

from __future__ import annotations

from aws_cdk import aws_ec2 as ec2
from constructs import Construct


class EfaSecurityGroup(Construct):
    def __init__(self, scope: Construct, id: str, *, vpc: ec2.IVpc) -> None:
        super().__init__(scope, id)
        self.security_group = ec2.SecurityGroup(
            self,
            "SecurityGroup",
            vpc=vpc,
            description="EFA: all traffic to and from itself (NCCL/DeepEP over libfabric SRD)",
            allow_all_outbound=False,
        )
        self.security_group.add_ingress_rule(self.security_group, ec2.Port.all_traffic(), "EFA from itself")
        self.security_group.add_egress_rule(self.security_group, ec2.Port.all_traffic(), "EFA to itself")
