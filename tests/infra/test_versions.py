"""Every supported Kubernetes version synthesizes, with the add-on builds made for it."""

import pytest

from infra import versions
from infra.cluster import KUBECTL_LAYERS
from spec.environment import Environment

VERSIONS = {"k8s-1-32": "1.32", "k8s-1-33": "1.33", "k8s-1-34": "1.34"}


def test_the_schema_accepts_exactly_the_versions_with_add_on_builds():
    accepted = Environment.model_fields["kubernetes_version"].annotation.__args__
    assert set(accepted) == set(versions.KUBERNETES_VERSIONS) == set(VERSIONS.values()) == set(KUBECTL_LAYERS)


@pytest.mark.parametrize("variant, kubernetes", sorted(VERSIONS.items()))
def test_each_version_synthesizes_with_its_add_on_builds(variants, variant, kubernetes):
    synth = variants[variant]
    (cluster,) = synth.resources("AWS::EKS::Cluster").values()
    assert cluster["Properties"]["Version"] == kubernetes
    addons = {a["Properties"]["AddonName"]: a["Properties"]["AddonVersion"] for a in synth.resources("AWS::EKS::Addon").values()}
    assert addons == versions.eks_addons(kubernetes)
    # kube-proxy is built per control-plane minor version.
    assert addons["kube-proxy"].startswith(f"v{kubernetes}.")
    assert set(versions.CORE_ADDONS) | {"eks-node-monitoring-agent"} <= set(addons)


def test_kube_proxy_and_coredns_follow_the_control_plane():
    assert len({versions.eks_addons(v)["kube-proxy"] for v in VERSIONS.values()}) == 3
    assert versions.eks_addons("1.32")["coredns"].startswith("v1.11.")
