"""The VPC: two zones for the EKS control plane, every node in the first one.

Node subnets are /18 (16k addresses) because the VPC CNI gives every pod a VPC address and
a p5en node holds hundreds of them; the second zone only hosts control-plane ENIs.
Gateway/interface endpoints keep image pulls and checkpoint traffic off the NAT gateway.
"""

from __future__ import annotations

from aws_cdk import RemovalPolicy, aws_ec2 as ec2, aws_logs as logs
from constructs import Construct

from spec.environment import Environment


class Network(Construct):
    def __init__(self, scope: Construct, id: str, *, environment: Environment) -> None:
        super().__init__(scope, id)
        self.node_zone = environment.availability_zone
        self.vpc = ec2.Vpc(
            self,
            "Vpc",
            ip_addresses=ec2.IpAddresses.cidr(environment.vpc_cidr),
            # Explicit zones: no AZ lookup at synth time, and the node zone is the first,
            # so the single NAT gateway lives next to the nodes.
            availability_zones=[environment.availability_zone, environment.control_plane_availability_zone],
            nat_gateways=1,
            subnet_configuration=[
                ec2.SubnetConfiguration(name="public", subnet_type=ec2.SubnetType.PUBLIC, cidr_mask=24),
                ec2.SubnetConfiguration(name="private", subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS, cidr_mask=18),
            ],
            gateway_endpoints={"S3": ec2.GatewayVpcEndpointOptions(service=ec2.GatewayVpcEndpointAwsService.S3)},
        )
        flow_log_group = logs.LogGroup(
            self, "FlowLogs", retention=logs.RetentionDays.ONE_MONTH, removal_policy=RemovalPolicy.DESTROY
        )
        self.vpc.add_flow_log("FlowLog", destination=ec2.FlowLogDestination.to_cloud_watch_logs(flow_log_group))
        node_subnets = self.node_subnets
        for name, service in {
            "EcrApi": ec2.InterfaceVpcEndpointAwsService.ECR,
            "EcrDocker": ec2.InterfaceVpcEndpointAwsService.ECR_DOCKER,
            "Sts": ec2.InterfaceVpcEndpointAwsService.STS,
            "EksAuth": ec2.InterfaceVpcEndpointAwsService.EKS_AUTH,
        }.items():
            self.vpc.add_interface_endpoint(name, service=service, subnets=node_subnets, private_dns_enabled=True)

    @property
    def node_subnets(self) -> ec2.SubnetSelection:
        """Private subnets of the one zone every node group is pinned to."""
        return ec2.SubnetSelection(
            subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS, availability_zones=[self.node_zone]
        )

    @property
    def control_plane_subnets(self) -> ec2.SubnetSelection:
        return ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS)
