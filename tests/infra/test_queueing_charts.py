"""Kueue and KEDA as the template installs them: pinned, on the system nodes after they exist,
Kueue configured for the JobSet and LeaderWorkerSet integrations the workload charts rely on."""

import json

import yaml

from infra import versions
from infra.queueing import KUEUE_EXCLUDED_RESOURCE_PREFIXES


def chart(synth, name):
    for logical, resource in synth.resources("Custom::AWSCDK-EKS-HelmChart").items():
        if resource["Properties"]["Chart"].rsplit("/", 1)[-1] == name:
            return logical, resource["Properties"]
    raise AssertionError(f"no chart {name}")


def test_kueue_and_keda_are_pinned_and_installed_after_the_system_nodes(default):
    system, _ = default.one("AWS::EKS::Nodegroup", "/SystemNodes/")
    for pin in (versions.KUEUE, versions.KEDA):
        repository, name, version = pin
        logical, properties = chart(default, name)
        assert properties["Version"] == version
        source = properties["Chart"] if repository.startswith("oci://") else properties["Repository"]
        assert source.startswith(repository)
        assert system in default.created_before(logical)
        assert json.loads(properties["Values"])["nodeSelector" if name == "keda" else "controllerManager"] is not None


def test_kueue_manages_jobsets_and_leaderworkersets_and_counts_gpus_not_efa(default):
    _, properties = chart(default, "kueue")
    values = json.loads(properties["Values"])
    assert values["controllerManager"]["nodeSelector"] == {"rl.aws/pool": "system"}
    config = yaml.safe_load(values["managerConfig"]["controllerManagerConfigYaml"])
    assert config["apiVersion"] == "config.kueue.x-k8s.io/v1beta2" and config["kind"] == "Configuration"
    assert config["integrations"]["frameworks"] == ["jobset.x-k8s.io/jobset", "leaderworkerset.x-k8s.io/leaderworkerset"]
    # Kueue's default quota check (BlockUndeclared) refuses a workload requesting a resource the
    # ClusterQueue does not cover: every GPU pod requests EFA devices and huge pages.
    assert config["resources"]["excludeResourcePrefixes"] == list(KUEUE_EXCLUDED_RESOURCE_PREFIXES)
    assert config["waitForPodsReady"]["timeout"].endswith("m")
