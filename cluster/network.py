"""Where the MLflow tracking server reaches S3, a fact both apps share: an S3 interface endpoint
alone in the VPC's last /28 (infra/tracking.py creates both), which the server's NetworkPolicy
allows on 443 and nothing else outside the cluster (k8s/charts/tracking.py).

Why an interface endpoint in a subnet of its own: a NetworkPolicy (the VPC CNI's agent) names
peers by pod, namespace or CIDR only. Through the gateway endpoint S3 is reached at its public
addresses, dozens of ranges per region that AWS changes (ip-ranges.json), so a pinned copy goes
stale and 0.0.0.0/0:443 was what the policy could say; security groups for pods could name the
S3 prefix list but need the CNI's pod-ENI mode on every node. An interface endpoint's network
interfaces get addresses of the subnet they are in: a subnet that holds nothing else makes its
CIDR mean "this endpoint" and nothing else in or out of the VPC. Private DNS stays off, so the
rest of the VPC (image layers, node boot files) keeps the gateway endpoint (no per-GB charge,
no endpoint bandwidth limit); the server alone is pointed at the endpoint's own DNS name
(MLFLOW_S3_ENDPOINT_URL), and the endpoint's policy admits only the bucket's mlflow/ prefix.
"""

from __future__ import annotations

import ipaddress

ARTIFACTS_ENDPOINT_PREFIX_LENGTH = 28  # 16 addresses: AWS keeps 5, the endpoint's interface takes one


def artifacts_endpoint_subnet(vpc_cidr: str) -> str:
    """The VPC's last /28: the VPC construct allocates its subnets from the bottom of the range
    (infra/network.py), so the top stays free (infra checks it overlaps none of them)."""
    vpc = ipaddress.ip_network(vpc_cidr)
    size = 2 ** (32 - ARTIFACTS_ENDPOINT_PREFIX_LENGTH)
    return str(ipaddress.ip_network(f"{vpc.broadcast_address - size + 1}/{ARTIFACTS_ENDPOINT_PREFIX_LENGTH}"))


def artifacts_endpoint_url(dns_name: str) -> str:
    """The S3 endpoint URL the tracking server's boto3 client is given: the endpoint's regional DNS
    name (a CloudFormation DnsEntries name, `*.vpce-<id>.s3.<region>.vpce.amazonaws.com`) in its
    bucket form, as AWS documents it for SDK clients (`https://bucket.vpce-...`)."""
    return f"https://bucket.{dns_name.removeprefix('*.')}"
