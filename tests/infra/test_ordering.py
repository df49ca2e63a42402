"""The creation order CloudFormation derives from the synthesized template (DependsOn plus
every Ref/GetAtt): core add-ons before any node, nothing of theirs waiting on a chart, charts
after the system nodes."""

import pytest

from infra import versions

CHART_KINDS = ("Custom::AWSCDK-EKS-HelmChart", "Custom::AWSCDK-EKS-KubernetesResource")


def addons_by_name(synth) -> dict[str, str]:
    return {a["Properties"]["AddonName"]: logical for logical, a in synth.resources("AWS::EKS::Addon").items()}


def charts(synth) -> list[str]:
    return [logical for kind in CHART_KINDS for logical in synth.resources(kind)]


@pytest.mark.parametrize("name", ["default", "p5en-48"])
def test_core_addons_precede_every_node_group(synthesized, name):
    synth = synthesized[name]
    addons = addons_by_name(synth)
    core = {addons[addon] for addon in versions.CORE_ADDONS}
    nodegroups = synth.resources("AWS::EKS::Nodegroup")
    assert len(nodegroups) == 5
    for nodegroup in nodegroups:
        assert core <= synth.created_before(nodegroup), synth.path(nodegroup)


@pytest.mark.parametrize("name", ["default", "p5en-48"])
def test_managed_addons_wait_for_the_control_plane_only(synthesized, name):
    synth = synthesized[name]
    (cluster,) = synth.resources("AWS::EKS::Cluster")
    waits_for_compute_or_charts = set(synth.resources("AWS::EKS::Nodegroup")) | set(charts(synth))
    for addon, logical in addons_by_name(synth).items():
        before = synth.created_before(logical)
        assert cluster in before, addon
        assert not before & waits_for_compute_or_charts, (addon, sorted(map(synth.path, before & waits_for_compute_or_charts)))


@pytest.mark.parametrize("name", ["default", "p5en-48"])
def test_charts_install_after_the_system_nodes(synthesized, name):
    synth = synthesized[name]
    system, _ = synth.one("AWS::EKS::Nodegroup", "/SystemNodes/")
    installed = charts(synth)
    # The FSx CSI node plugin, Kueue, KEDA and the rollout pool's Cluster Autoscaler among them.
    assert len(synth.resources("Custom::AWSCDK-EKS-HelmChart")) == 10
    for chart in installed:
        assert system in synth.created_before(chart), synth.path(chart)
    # ... and no node group waits for a chart (a chart failure cannot block compute).
    for nodegroup in synth.resources("AWS::EKS::Nodegroup"):
        assert not synth.created_before(nodegroup) & set(installed), synth.path(nodegroup)


def test_dependency_reader_sees_references_and_depends_on(default):
    """The reader above is not vacuous: a chart reaches the cluster both through its
    DependsOn chain and through the kubectl provider it references."""
    chart, resource = default.one("Custom::AWSCDK-EKS-HelmChart", "/Charts/KubePrometheusStack/")
    assert resource["DependsOn"] and default.direct_dependencies(chart) > set(resource["DependsOn"])
    (cluster,) = default.resources("AWS::EKS::Cluster")
    assert cluster in default.created_before(chart)


@pytest.mark.parametrize("name", ["default", "p5en-48"])
def test_data_repository_associations_are_created_one_after_another(synthesized, name):
    """Parallel creation on one file system races (infra/storage.py): the associations form one
    DependsOn chain, so CloudFormation creates them strictly in sequence, each after the file
    system and the bucket."""
    synth = synthesized[name]
    associations = synth.resources("AWS::FSx::DataRepositoryAssociation")
    assert len(associations) == 3
    (file_system,) = synth.resources("AWS::FSx::FileSystem")
    bucket, _ = synth.one("AWS::S3::Bucket", "/Storage/Artifacts/")
    # A total order: of any two, one waits for the other.
    ordered = sorted(associations, key=lambda logical: len(synth.created_before(logical) & set(associations)))
    for position, logical in enumerate(ordered):
        assert synth.created_before(logical) & set(associations) == set(ordered[:position]), synth.path(logical)
        assert {file_system, bucket} <= synth.created_before(logical)
    paths = [associations[logical]["Properties"]["FileSystemPath"] for logical in ordered]
    assert paths == ["/models", "/datasets", "/checkpoints"]
    # ... through an explicit DependsOn on the previous one (no property links them).
    for previous, logical in zip(ordered, ordered[1:]):
        assert previous in associations[logical]["DependsOn"]
