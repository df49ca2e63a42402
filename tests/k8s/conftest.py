"""Synthesize both environments once per session (in-process: one jsii runtime) and parse dist/."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

# jsii's end-of-life banner is silenced per Node major version.
os.environ["JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION"] = "20"

from spec.environment import Environment  # noqa: E402
from estimate.checks import load_environment  # noqa: E402
from k8s.main import synth  # noqa: E402

ENVIRONMENTS = ("default", "p5en-48")
CRD_KINDS = {
    "JobSet", "LeaderWorkerSet", "ServiceMonitor", "PrometheusRule",
    "Topology", "ResourceFlavor", "ClusterQueue", "LocalQueue", "WorkloadPriorityClass", "ScaledObject",
}


@dataclass
class Synth:
    environment: Environment
    dist: Path
    note: str | None

    @property
    def files(self) -> list[Path]:
        return sorted(self.dist.glob("*.k8s.yaml"))

    @property
    def docs(self) -> list[dict]:
        return [doc for path in self.files for doc in yaml.safe_load_all(path.read_text()) if doc]

    def kind(self, kind: str) -> list[dict]:
        return [doc for doc in self.docs if doc["kind"] == kind]

    def one(self, kind: str, name: str) -> dict:
        (doc,) = [doc for doc in self.kind(kind) if doc["metadata"]["name"] == name]
        return doc


@pytest.fixture(scope="session")
def synths(tmp_path_factory) -> dict[str, Synth]:
    absent = tmp_path_factory.mktemp("no-outputs") / "cdk-outputs.json"
    result = {}
    for name in ENVIRONMENTS:
        dist = tmp_path_factory.mktemp(f"dist-{name}")
        note = synth(name, absent, dist)
        result[name] = Synth(load_environment(name), dist, note)
    return result


@pytest.fixture(params=ENVIRONMENTS)
def synthed(request, synths) -> Synth:
    return synths[request.param]


def lws_replicas(doc: dict) -> int:
    """A LeaderWorkerSet's groups: spec.replicas, or for the autoscaled rollout servers (no
    spec.replicas: the HPA owns it) the split the planner sized, which the ScaledObject asks for."""
    from k8s.charts.rollout_servers import PLANNED_REPLICAS_ANNOTATION

    if "replicas" in doc["spec"]:
        return doc["spec"]["replicas"]
    return int(doc["metadata"]["annotations"][PLANNED_REPLICAS_ANNOTATION])


def pod_templates(doc: dict) -> list[tuple[str, dict, int]]:
    """(where, pod template, how many pods of it) for every workload object."""
    kind, spec = doc["kind"], doc.get("spec", {})
    if kind in ("Deployment", "StatefulSet"):
        return [(f"{kind}/{doc['metadata']['name']}", spec["template"], spec.get("replicas", 1))]
    if kind == "JobSet":
        return [
            (f"JobSet/{doc['metadata']['name']}/{job['name']}", job["template"]["spec"]["template"],
             job["replicas"] * job["template"]["spec"]["parallelism"])
            for job in spec["replicatedJobs"]
        ]  # fmt: skip
    if kind == "LeaderWorkerSet":
        lwt, replicas = spec["leaderWorkerTemplate"], lws_replicas(doc)
        if "leaderTemplate" in lwt:
            return [
                (f"LeaderWorkerSet/{doc['metadata']['name']}/leader", lwt["leaderTemplate"], replicas),
                (f"LeaderWorkerSet/{doc['metadata']['name']}/worker", lwt["workerTemplate"], replicas * (lwt["size"] - 1)),
            ]
        return [(f"LeaderWorkerSet/{doc['metadata']['name']}", lwt["workerTemplate"], replicas * lwt["size"])]
    return []
