"""The layout the charts render is the one the trainer runs: EP resolved for the model decides
DeepEP's import in the trainer's preflight, and whether its groups cross nodes decides DeepEP's
GIN host check (GDRCopy, the EFA driver) on the trainer pod."""

import pytest
import yaml

from k8s.main import synth
from payload import ep
from payload.common.efa import DEEPEP_EFA_ENV
from spec.environment import ENVIRONMENTS_DIR
from spec.job import parse_job_config
from spec.layout import trainer_layout_of


def rendered(tmp_path_factory, parallel: dict) -> list[dict]:
    tmp = tmp_path_factory.mktemp("deepep")
    data = yaml.safe_load((ENVIRONMENTS_DIR / "p5en-48.yaml").read_text())
    data["name"] = "deepep"
    data["job"]["parallel"] = parallel
    path = tmp / "deepep.yaml"
    path.write_text(yaml.safe_dump(data))
    dist = tmp / "dist"
    synth(str(path), tmp / "cdk-outputs.json", dist)
    return [doc for file in sorted(dist.glob("*.k8s.yaml")) for doc in yaml.safe_load_all(file.read_text()) if doc]


@pytest.fixture(scope="module")
def deepep_dist(tmp_path_factory):
    """p5en-48 with ep_backend deepep and every size auto (EP resolves to 8 for Qwen3-30B-A3B)."""
    return rendered(tmp_path_factory, {"ep_backend": "deepep"})


def trainer_env(docs: list[dict]) -> list[dict]:
    (jobset,) = [d for d in docs if d["kind"] == "JobSet"]
    pod = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    (trainer,) = [c for c in pod["containers"] if c["name"] == "trainer"]
    return trainer["env"]


def test_deepep_inside_a_node_does_not_ask_the_host_for_gin(deepep_dist):
    assert DEEPEP_EFA_ENV not in {e["name"] for e in trainer_env(deepep_dist)}


def test_deepep_across_nodes_checks_the_gin_host(tmp_path_factory):
    docs = rendered(tmp_path_factory, {"ep_backend": "deepep", "expert_parallel_size": 16,
                                       "expert_parallel_across_nodes": True})
    assert {"name": DEEPEP_EFA_ENV, "value": "1"} in trainer_env(docs)


def test_the_rendered_job_makes_the_preflight_import_deepep(deepep_dist):
    (config_map,) = [d for d in deepep_dist if d["kind"] == "ConfigMap" and "job.yaml" in d.get("data", {})]
    job = parse_job_config(yaml.safe_load(config_map["data"]["job.yaml"]), "job.yaml")
    layout = trainer_layout_of(job.parallel, 16, 8)
    assert layout.expert_parallel == 8
    # The trainer's preflight (payload/train/cli.py) imports DeepEP before any NCCL communicator;
    # where DeepEP cannot import (this machine) an explicit deepep is refused with the reason.
    from payload.ep.deepep import deepep_unavailable_reason

    if deepep_unavailable_reason() is None:
        assert ep.preflight(ep.Config.for_job(job), layout.expert_parallel) == "deepep"
    else:
        with pytest.raises(ep.EPConfigError, match="ep backend 'deepep'"):
            ep.preflight(ep.Config.for_job(job), layout.expert_parallel)
