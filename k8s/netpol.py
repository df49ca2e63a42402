"""NetworkPolicy building blocks. The namespace denies everything by default (charts/base.py);
each chart then opens exactly the paths its component needs, named by component.

Enforced by the VPC CNI's network policy agent. EFA traffic (SRD) bypasses the kernel IP
stack and is not subject to NetworkPolicy; the TCP paths NCCL and torch.distributed use for
bootstrap and for the trainer -> rollout weight broadcast are, hence the all-port rules
between those components.

No workload reaches beyond the cluster: the payload calls no AWS API (no Pod Identity agent,
no S3 on 443); models and datasets come from S3 through FSx's data repository associations,
which FSx itself runs. DNS is the one path every pod has (charts/base.py).
"""

from __future__ import annotations

from constructs import Construct
from cdk8s_plus_33 import k8s

from cluster.monitoring import MONITORING_NAMESPACE
from k8s.pods import metadata, selector


def ports(*numbers: int, protocol: str = "TCP") -> list[k8s.NetworkPolicyPort]:
    return [k8s.NetworkPolicyPort(port=k8s.IntOrString.from_number(n), protocol=protocol) for n in numbers]


def peers(*components: str) -> list[k8s.NetworkPolicyPeer]:
    return [k8s.NetworkPolicyPeer(pod_selector=selector(c)) for c in components]


def from_components(*components: str, port_numbers: tuple[int, ...] = ()) -> k8s.NetworkPolicyIngressRule:
    return k8s.NetworkPolicyIngressRule(from_=peers(*components), ports=ports(*port_numbers) or None)


def to_components(*components: str, port_numbers: tuple[int, ...] = ()) -> k8s.NetworkPolicyEgressRule:
    return k8s.NetworkPolicyEgressRule(to=peers(*components), ports=ports(*port_numbers) or None)


def from_prometheus(*port_numbers: int) -> k8s.NetworkPolicyIngressRule:
    namespace = k8s.LabelSelector(match_labels={"kubernetes.io/metadata.name": MONITORING_NAMESPACE})
    return k8s.NetworkPolicyIngressRule(
        from_=[k8s.NetworkPolicyPeer(namespace_selector=namespace)], ports=ports(*port_numbers)
    )


def allow(
    scope: Construct,
    component: str,
    ingress: list[k8s.NetworkPolicyIngressRule] | None = None,
    egress: list[k8s.NetworkPolicyEgressRule] | None = None,
) -> k8s.KubeNetworkPolicy:
    policy_types = [kind for kind, rules in (("Ingress", ingress), ("Egress", egress)) if rules]
    return k8s.KubeNetworkPolicy(
        scope,
        f"allow-{component}",
        metadata=metadata(f"allow-{component}", component),
        spec=k8s.NetworkPolicySpec(
            pod_selector=selector(component), policy_types=policy_types, ingress=ingress, egress=egress
        ),
    )


