"""The MLflow tracking server's Pod Identity role as synthesized (infra/tracking.py): bound to the
tracking chart's service account in the workload namespace, able to touch only objects under the
bucket's mlflow/ prefix (and its key, through S3), and absent when the job turns the server off."""

import ipaddress
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


def test_the_server_reaches_s3_through_an_endpoint_alone_in_its_subnet(synthesized):
    """The /28 the tracking chart's NetworkPolicy allows (cluster/network.py) holds the S3
    interface endpoint and nothing else, reaches nothing itself, and the endpoint admits only the
    server's role to the bucket's mlflow/ prefix; the rest of the VPC keeps the gateway endpoint."""
    from estimate.checks import load_environment
    from cluster.network import artifacts_endpoint_subnet
    from cluster.outputs import ARTIFACTS_ENDPOINT_OUTPUT

    for name, synth in synthesized.items():
        env = load_environment(name)
        cidr = artifacts_endpoint_subnet(env.vpc_cidr)
        subnets = synth.resources("AWS::EC2::Subnet")
        subnet_id, subnet = synth.one("AWS::EC2::Subnet", "/Tracking/EndpointSubnet")
        props = subnet["Properties"]
        assert (props["CidrBlock"], props["AvailabilityZone"], props["MapPublicIpOnLaunch"]) == (
            cidr, env.availability_zone, False)
        others = [ipaddress.ip_network(s["Properties"]["CidrBlock"]) for k, s in subnets.items() if k != subnet_id]
        assert others and not any(o.overlaps(ipaddress.ip_network(cidr)) for o in others), name
        # Its route table has no route (only the VPC's implicit local one): no NAT, no gateway.
        [association] = [a["Properties"] for a in synth.resources("AWS::EC2::SubnetRouteTableAssociation").values()
                         if a["Properties"]["SubnetId"] == {"Ref": subnet_id}]
        table = association["RouteTableId"]
        assert not [r for r in synth.resources("AWS::EC2::Route").values() if r["Properties"]["RouteTableId"] == table]
        # Only the endpoint's interface lives there.
        in_subnet = [k for kind in ("AWS::EC2::VPCEndpoint", "AWS::EKS::Cluster", "AWS::EKS::Nodegroup",
                                    "AWS::Lambda::Function", "AWS::FSx::FileSystem", "AWS::EC2::NatGateway")
                     for k, v in synth.resources(kind).items() if {"Ref": subnet_id} in json_refs(v)]
        endpoint_id, endpoint = synth.one("AWS::EC2::VPCEndpoint", "/Tracking/Endpoint")
        assert in_subnet == [endpoint_id], name
        e = endpoint["Properties"]
        assert e["VpcEndpointType"] == "Interface" and e["PrivateDnsEnabled"] is False
        assert e["SubnetIds"] == [{"Ref": subnet_id}]
        assert json.dumps(e["ServiceName"]).count(".s3") == 1 and "com.amazonaws." in json.dumps(e["ServiceName"])
        role_id, _ = synth.one("AWS::IAM::Role", "/Tracking/Role")
        statements = e["PolicyDocument"]["Statement"]
        assert {json.dumps(s["Principal"]) for s in statements} == {json.dumps({"AWS": {"Fn::GetAtt": [role_id, "Arn"]}})}
        assert {a for s in statements for a in _list(s["Action"])} == {"s3:GetObject", "s3:PutObject",
                                                                      "s3:DeleteObject", "s3:ListBucket"}
        [objects] = [s for s in statements if "s3:GetObject" in _list(s["Action"])]
        assert json.dumps(objects["Resource"]).endswith(f'"/{TRACKING_ARTIFACTS_PREFIX}/*"]]}}')
        # 443 in from the node subnet (where pods take their addresses), nothing out.
        [group] = e["SecurityGroupIds"]
        sg = synth.template["Resources"][group["Fn::GetAtt"][0]]["Properties"]
        node_cidrs = {s["Properties"]["CidrBlock"] for s in subnets.values()
                      if s["Properties"]["AvailabilityZone"] == env.availability_zone
                      and "/private" in s.get("Metadata", {}).get("aws:cdk:path", "").lower()}
        assert node_cidrs and {(r["CidrIp"], r["FromPort"], r["ToPort"]) for r in sg["SecurityGroupIngress"]} == {
            (c, 443, 443) for c in node_cidrs}
        assert [r["CidrIp"] for r in sg["SecurityGroupEgress"]] == ["255.255.255.255/32"]  # CDK's "no egress"
        # The gateway endpoint stays for everything else.
        gateways = [v for v in synth.resources("AWS::EC2::VPCEndpoint").values()
                    if v["Properties"].get("VpcEndpointType", "Gateway") == "Gateway"]
        assert len(gateways) == 1
        assert ARTIFACTS_ENDPOINT_OUTPUT in synth.template["Outputs"]


def json_refs(node) -> list:
    """Every {"Ref": ...} under `node`."""
    if isinstance(node, dict):
        return ([node] if set(node) == {"Ref"} else []) + [r for v in node.values() for r in json_refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in json_refs(v)]
    return []
