"""Huge pages on a GPU node are sized from the pods cluster/gpu_pods.py places on it: one source of
truth. Checked against the rendered manifests for rollout tensor parallelism 1, 2, 4 and 8."""

import re

import pytest
import yaml

from tests.infra.environments import deployable
from infra.gpu_node_group import hugepages_2mi
from cluster.gpu_pods import gpu_pods_per_node
from tests.infra.test_gpu_node_groups import user_data

MIB = 2**20


def hugepages_bytes(quantity: str) -> int:
    assert quantity.endswith("Mi")
    return int(quantity[:-2]) * MIB


def rollout_pods(tmp_path, environment) -> tuple[int, int]:
    """(pods per node, huge pages bytes per pod) read from the synthesized LeaderWorkerSet."""
    from k8s.app import build_app
    from cluster.outputs import DeployOutputs

    build_app(environment, DeployOutputs.placeholder(environment), tmp_path).synth()
    (lws,) = [d for d in yaml.safe_load_all((tmp_path / "0003-rollout-servers.k8s.yaml").read_text()) if d and d["kind"] == "LeaderWorkerSet"]
    requests = lws["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"][0]["resources"]["requests"]
    gpus_per_node = environment.pools.rollout.spec.gpus
    return gpus_per_node // int(requests["nvidia.com/gpu"]), hugepages_bytes(requests["hugepages-2Mi"])


@pytest.mark.parametrize("tp", [1, 2, 4, 8])
def test_rollout_nodes_hold_the_huge_pages_of_every_pod_placed_on_them(tmp_path, tp):
    def with_tp(data):
        data["job"]["parallel"].update(rollout_tensor_parallel_size=tp, rollout_expert_parallel_size=1)

    environment = deployable("p5en-48", with_tp)
    pods, per_pod = rollout_pods(tmp_path, environment)
    assert pods == 8 // tp == gpu_pods_per_node(environment)["rollout"]
    node = hugepages_2mi(pods) * 2 * MIB
    assert node >= pods * per_pod
    assert node - pods * per_pod <= 1024 * MIB  # headroom, not a second pod's worth


def test_the_synthesized_user_data_sets_the_computed_pages(synthesized):
    for name in ("default", "p5en-48"):
        pods = gpu_pods_per_node(deployable(name))
        for pool in ("train", "rollout"):
            _, template = synthesized[name].one("AWS::EC2::LaunchTemplate", f"/{pool.title()}Nodes/")
            text = user_data(template["Properties"]["LaunchTemplateData"])
            (pages,) = re.findall(r"vm\.nr_hugepages = (\d+)", text)
            assert int(pages) == hugepages_2mi(pods[pool])
