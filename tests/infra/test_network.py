"""One zone for every node group, two for the control plane; endpoints and flow logs."""

from estimate.checks import load_environment


def subnet_zones(synth) -> dict[str, str]:
    return {k: v["Properties"]["AvailabilityZone"] for k, v in synth.resources("AWS::EC2::Subnet").items()}


def test_every_node_group_in_the_one_zone(synthesized):
    for name, synth in synthesized.items():
        zones = subnet_zones(synth)
        env = load_environment(name)
        nodegroups = synth.resources("AWS::EKS::Nodegroup")
        assert len(nodegroups) == 5
        for nodegroup in nodegroups.values():
            used = {zones[ref["Ref"]] for ref in nodegroup["Properties"]["Subnets"]}
            assert used == {env.availability_zone}


def test_control_plane_spans_two_zones(synthesized):
    for name, synth in synthesized.items():
        zones = subnet_zones(synth)
        (cluster,) = synth.resources("AWS::EKS::Cluster").values()
        subnets = cluster["Properties"]["ResourcesVpcConfig"]["SubnetIds"]
        env = load_environment(name)
        assert {zones[s["Ref"]] for s in subnets} == {env.availability_zone, env.control_plane_availability_zone}


def test_s3_and_ecr_endpoints_and_flow_logs(default):
    services = [str(v["Properties"]["ServiceName"]) for v in default.resources("AWS::EC2::VPCEndpoint").values()]
    assert any(".s3" in s for s in services)
    assert any("ecr.api" in s for s in services) and any("ecr.dkr" in s for s in services)
    (flow_log,) = default.resources("AWS::EC2::FlowLog").values()
    assert flow_log["Properties"]["TrafficType"] == "ALL"


def test_single_nat_gateway_next_to_the_nodes(default):
    (nat,) = default.resources("AWS::EC2::NatGateway").values()
    zones = subnet_zones(default)
    assert zones[nat["Properties"]["SubnetId"]["Ref"]] == load_environment("default").availability_zone


def test_efa_security_group_allows_itself_both_ways(default):
    sg_id, sg = default.one("AWS::EC2::SecurityGroup", "/Efa/")
    self_ref = {"Fn::GetAtt": [sg_id, "GroupId"]}
    ingress = [r["Properties"] for r in default.resources("AWS::EC2::SecurityGroupIngress").values()
               if r["Properties"]["GroupId"] == self_ref]
    egress = [r["Properties"] for r in default.resources("AWS::EC2::SecurityGroupEgress").values()
              if r["Properties"]["GroupId"] == self_ref]
    assert [(r["IpProtocol"], r["SourceSecurityGroupId"]) for r in ingress] == [("-1", self_ref)]
    assert [(r["IpProtocol"], r["DestinationSecurityGroupId"]) for r in egress] == [("-1", self_ref)]
    # With allow_all_outbound=True CDK would have replaced the self rule by 0.0.0.0/0 egress.
    assert "SecurityGroupEgress" not in sg["Properties"] or all(
        rule.get("CidrIp") != "0.0.0.0/0" for rule in sg["Properties"]["SecurityGroupEgress"]
    )
