"""Every object validates: built-in kinds against the Kubernetes OpenAPI schema of the
environment's Kubernetes version, JobSet, LeaderWorkerSet and the monitoring objects against
their vendored CRDs (k8s/crds/, unmodified upstream copies), and the pod and Job templates
inside JobSet and LeaderWorkerSet also against the built-in schema."""

from __future__ import annotations

import copy
import hashlib
import re
from pathlib import Path

import jsonschema
import kubernetes_validate
import pytest
import yaml

from conftest import CRD_KINDS

CRDS = Path(__file__).resolve().parents[2] / "k8s" / "crds"


def _version(synthed) -> str:
    return f"{synthed.environment.kubernetes_version}.0"


def test_builtin_kinds_validate(synthed):
    builtin = [doc for doc in synthed.docs if doc["kind"] not in CRD_KINDS]
    assert len(builtin) > 20
    for doc in builtin:
        kubernetes_validate.validate(doc, _version(synthed), strict=True)


def test_embedded_templates_validate(synthed):
    version = _version(synthed)
    (job_set,) = synthed.kind("JobSet")
    for job in job_set["spec"]["replicatedJobs"]:
        # The Job template is a batch/v1 JobSpec: validate it as one.
        job_doc = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": job["name"]}, "spec": job["template"]["spec"]}
        kubernetes_validate.validate(job_doc, version, strict=True)
    (lws,) = synthed.kind("LeaderWorkerSet")
    for key in ("workerTemplate", "leaderTemplate"):
        template = lws["spec"]["leaderWorkerTemplate"].get(key)
        if template is not None:
            pod_template = {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": key.lower()}, "template": template}
            kubernetes_validate.validate(pod_template, version, strict=True)


def test_strict_validation_rejects_a_typo(synthed):
    """The validator above is not vacuous: a misspelled field fails it."""
    doc = copy.deepcopy(synthed.one("Deployment", "router"))
    doc["spec"]["template"]["spec"]["containers"][0]["imagePullPolicyy"] = "Always"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(doc, _version(synthed), strict=True)


def _closed(schema: dict) -> dict:
    """The CRD schema with unknown fields rejected, as `kubectl apply --server-side` does
    (field validation Strict) instead of pruning them silently."""
    schema = copy.deepcopy(schema)

    def close(node):
        if isinstance(node, dict):
            if "properties" in node and "additionalProperties" not in node and not node.get(
                "x-kubernetes-preserve-unknown-fields"
            ):
                node["additionalProperties"] = False
            for value in node.values():
                close(value)
        elif isinstance(node, list):
            for value in node:
                close(value)

    close(schema)
    return schema


def _crd_validators() -> dict[tuple[str, str], jsonschema.Draft7Validator]:
    validators = {}
    for path in CRDS.glob("*.yaml"):
        for crd in yaml.safe_load_all(path.read_text()):
            for version in crd["spec"]["versions"]:
                api_version = f"{crd['spec']['group']}/{version['name']}"
                schema = _closed(version["schema"]["openAPIV3Schema"])
                validators[(api_version, crd["spec"]["names"]["kind"])] = jsonschema.Draft7Validator(schema)
    return validators


VALIDATORS = _crd_validators()


def test_vendored_crds_are_the_upstream_files():
    """Every vendored CRD is byte for byte the upstream file whose sha256 k8s/crds/README.md
    records (the monitoring file is two upstream files concatenated, each checked)."""
    recorded = {
        name: digest
        for digest, name in re.findall(r"^([0-9a-f]{64})  (\S+)$", (CRDS / "README.md").read_text(), re.M)
    }
    checked = set()
    for path in CRDS.glob("*.yaml"):
        # Each upstream file starts with "---" at column 0, which nothing inside a CRD does.
        for part in filter(None, re.split(r"(?m)^(?=---\n)", path.read_text())):
            crd = yaml.safe_load(part)
            upstream = f"{crd['spec']['group']}_{crd['spec']['names']['plural']}.yaml"
            assert hashlib.sha256(part.encode()).hexdigest() == recorded[upstream], f"{path.name}: {upstream} differs"
            checked.add(upstream)
    assert checked == {
        "jobset.x-k8s.io_jobsets.yaml",
        "leaderworkerset.x-k8s.io_leaderworkersets.yaml",
        "monitoring.coreos.com_servicemonitors.yaml",
        "monitoring.coreos.com_prometheusrules.yaml",
        *(f"kueue.x-k8s.io_{plural}.yaml" for plural in
          ("clusterqueues", "localqueues", "resourceflavors", "topologies", "workloadpriorityclasses")),
        "keda.sh_scaledobjects.yaml",
    }


def test_vendored_crds_cover_the_custom_kinds():
    assert set(VALIDATORS) == {
        ("jobset.x-k8s.io/v1alpha2", "JobSet"),
        ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"),
        ("monitoring.coreos.com/v1", "ServiceMonitor"),
        ("monitoring.coreos.com/v1", "PrometheusRule"),
        *((f"kueue.x-k8s.io/{version}", kind) for version in ("v1beta1", "v1beta2") for kind in
          ("ClusterQueue", "LocalQueue", "ResourceFlavor", "Topology", "WorkloadPriorityClass")),
        ("keda.sh/v1alpha1", "ScaledObject"),
    }
    assert {kind for _, kind in VALIDATORS} == CRD_KINDS


def test_custom_resources_validate_against_vendored_crds(synthed):
    objects = [doc for doc in synthed.docs if doc["kind"] in CRD_KINDS]
    assert len(synthed.kind("ServiceMonitor")) == 7 and len(synthed.kind("PrometheusRule")) == 1
    assert len(synthed.kind("JobSet")) == 1 and len(synthed.kind("LeaderWorkerSet")) == 1
    for doc in objects:
        errors = sorted(VALIDATORS[(doc["apiVersion"], doc["kind"])].iter_errors(doc), key=str)
        assert not errors, f"{doc['kind']}/{doc['metadata']['name']}: {errors[0].message} at {list(errors[0].path)}"


def test_crd_validation_rejects_unknown_and_mistyped_fields(synthed):
    monitor = copy.deepcopy(synthed.kind("ServiceMonitor")[0])
    validator = VALIDATORS[(monitor["apiVersion"], "ServiceMonitor")]
    monitor["spec"]["endpoints"][0]["intervall"] = "15s"
    assert not validator.is_valid(monitor)
    rule = copy.deepcopy(synthed.kind("PrometheusRule")[0])
    rule["spec"]["groups"][0]["rules"][0]["for"] = "fifteen minutes"
    assert not VALIDATORS[(rule["apiVersion"], "PrometheusRule")].is_valid(rule)
    job_set = copy.deepcopy(synthed.kind("JobSet")[0])
    job_set["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["imagee"] = "x"
    assert not VALIDATORS[(job_set["apiVersion"], "JobSet")].is_valid(job_set)
    lws = copy.deepcopy(synthed.kind("LeaderWorkerSet")[0])
    lws["spec"]["leaderWorkerTemplate"]["size"] = "two"
    assert not VALIDATORS[(lws["apiVersion"], "LeaderWorkerSet")].is_valid(lws)


def test_crd_struct_conversion_names_a_field_the_crd_lacks():
    """The typed JobSet/LWS pod templates are built through the CRD's own generated types: a
    field the installed release does not define stops synth with its path."""
    from k8s.imports.io.x_k8s import jobset
    from k8s.structs import UnknownFieldError, as_struct

    template_type = jobset.JobSetSpecReplicatedJobsTemplateSpecTemplate
    good = {"spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80}]}]}}
    assert as_struct(template_type, good).spec.containers[0].ports[0].container_port == 80
    bad = {"spec": {"containers": [{"name": "c", "imagePullPolicyy": "Always"}]}}
    with pytest.raises(UnknownFieldError, match=r"spec\.containers\[0\]\.imagePullPolicyy"):
        as_struct(template_type, bad)
