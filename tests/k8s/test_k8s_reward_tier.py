"""dist/ renders the reward tier as k8s/charts/reward_servers.py promises: only for a job that
serves its own reward model, as the last file (no other file renumbered), on rollout nodes the
rollout servers give up, called by workers and verifiers through RL_REWARD_URL and reachable by
nobody else; a job with a shared reward server's url renders none and opens only its port."""

from __future__ import annotations

import pytest
import yaml

from spec.environment import ENVIRONMENTS_DIR
from estimate.checks import load_environment
from k8s.charts.reward_servers import reward_command, reward_url
from k8s.main import synth
from tests.k8s.conftest import Synth, lws_replicas, pod_templates
# At collection, like the files they come from: their own `from conftest import ...` finds this
# directory's conftest then, and another directory's once other tests have run in the process.
from tests.k8s.test_k8s_consistency import pod_requests
from tests.k8s.test_k8s_schemas import VALIDATORS

REWARD_MODEL = {"path": "/fsx/models/Skywork-Reward-V2-Qwen3-8B", "tensor_parallel_size": 2, "replicas": 3}


def _synth(tmp_path_factory, name: str, rewards: dict) -> Synth:
    data = yaml.safe_load((ENVIRONMENTS_DIR / "default.yaml").read_text())
    data["name"] = name
    data["job"]["rewards"] = rewards
    folder = tmp_path_factory.mktemp(name)
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    dist = folder / "dist"
    note = synth(str(path), folder / "no-outputs.json", dist)
    return Synth(load_environment(str(path)), dist, note)


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Synth:
    return _synth(tmp_path_factory, "reward-served", {
        "model": REWARD_MODEL, "default": {"verifier": 1.0, "model": 0.5}, "sources": {"chat": {"verifier": 0, "model": 1}}})


@pytest.fixture(scope="module")
def shared(tmp_path_factory) -> Synth:
    return _synth(tmp_path_factory, "reward-shared", {
        "model": {**REWARD_MODEL, "url": "http://reward.shared.example:31000"}, "default": {"model": 1.0}})


def _env(template: dict) -> dict:
    return {e["name"]: e.get("value") for e in template["spec"]["containers"][0].get("env", [])}


def _deployment_template(synthed: Synth, name: str) -> dict:
    return synthed.one("Deployment", name)["spec"]["template"]


def test_the_reward_tier_is_the_last_file_and_only_when_served(served, shared, synths):
    default = [p.name for p in synths["default"].files]
    assert [p.name for p in served.files] == [*default, "0012-reward-servers.k8s.yaml"]
    assert [p.name for p in shared.files] == default
    assert not [d for d in shared.kind("LeaderWorkerSet") if d["metadata"]["name"] == "reward-server"]


def test_reward_servers_take_whole_rollout_nodes_from_the_rollout_servers(served):
    rollout = served.environment.pools.rollout
    gpus = rollout.spec.gpus
    lws = served.one("LeaderWorkerSet", "reward-server")
    [(_, template, pods)] = pod_templates(lws)
    container = template["spec"]["containers"][0]
    assert container["command"] == reward_command_of(served)
    assert pods == lws["spec"]["replicas"] == REWARD_MODEL["replicas"]
    requests = container["resources"]["requests"]
    # Inside one node over NVLink: GPUs only, no EFA devices or huge pages.
    assert int(requests["nvidia.com/gpu"]) == REWARD_MODEL["tensor_parallel_size"]
    assert "vpc.amazonaws.com/efa" not in requests and "hugepages-2Mi" not in requests
    assert template["spec"]["nodeSelector"] == served.one("LeaderWorkerSet", "rollout-server")["spec"][
        "leaderWorkerTemplate"]["workerTemplate"]["spec"]["nodeSelector"]
    reward_nodes = -(-REWARD_MODEL["replicas"] * REWARD_MODEL["tensor_parallel_size"] // gpus)
    servers = served.one("LeaderWorkerSet", "rollout-server")
    [(_, server_template, server_pods)] = pod_templates(servers)
    server_gpus = int(server_template["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"])
    assert server_pods * server_gpus == (rollout.desired_size - reward_nodes) * gpus
    # The router and the trainer know only the rollout servers that exist.
    router = served.one("Deployment", "router")["spec"]["template"]["spec"]["containers"][0]["command"]
    assert len([a for a in router if a.startswith("http://")]) == lws_replicas(servers)
    # Both tiers' pods fit the pool's nodes: GPUs, and memory with the nodes' huge pages.

    used = {"nvidia.com/gpu": 0.0, "memory": 0.0}
    for doc in (lws, servers):
        for _, pod, count in pod_templates(doc):
            requests = pod_requests(pod)
            used["nvidia.com/gpu"] += requests["nvidia.com/gpu"] * count
            used["memory"] += (requests["memory"] + requests.get("hugepages-2Mi", 0)) * count
    assert used["nvidia.com/gpu"] <= rollout.desired_size * gpus
    assert used["memory"] <= rollout.desired_size * rollout.spec.memory_gib * 2**30
    # Kueue admits the tier's groups like the rollout servers'.
    assert lws["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == servers["metadata"]["labels"]["kueue.x-k8s.io/queue-name"]


def reward_command_of(synthed: Synth) -> list[str]:
    from k8s.context import Context
    from cluster.outputs import load_outputs

    outputs, _ = load_outputs(synthed.dist.parent / "no-outputs.json", synthed.environment)
    return reward_command(Context(synthed.environment, outputs))


def test_workers_and_verifiers_alone_reach_the_reward_servers(served):
    for name in ("rollout-worker", "verifier"):
        assert _env(_deployment_template(served, name))["RL_REWARD_URL"] == reward_url()
        egress = served.one("NetworkPolicy", f"allow-{name}")["spec"]["egress"]
        assert {"to": [{"podSelector": {"matchLabels": {"app.kubernetes.io/name": "reward-server"}}}],
                "ports": [{"port": 30000, "protocol": "TCP"}]} in egress
    service = served.one("Service", "reward-server")
    assert service["spec"]["ports"] == [{"name": "http", "port": 30000, "targetPort": "http"}]
    assert reward_url() == "http://reward-server.rl.svc:30000"
    policy = served.one("NetworkPolicy", "allow-reward-server")["spec"]
    assert policy["policyTypes"] == ["Ingress"]  # and the namespace's default deny: no egress at all
    [rule] = policy["ingress"]
    assert {p["podSelector"]["matchLabels"]["app.kubernetes.io/name"] for p in rule["from"]} == {"rollout-worker", "verifier"}


def test_a_shared_reward_server_opens_only_its_port(shared):
    for name in ("rollout-worker", "verifier"):
        assert "RL_REWARD_URL" not in _env(_deployment_template(shared, name))  # the url is in the job config
        egress = shared.one("NetworkPolicy", f"allow-{name}")["spec"]["egress"]
        assert {"ports": [{"port": 31000, "protocol": "TCP"}]} in egress
    servers = shared.one("LeaderWorkerSet", "rollout-server")
    assert lws_replicas(servers) * servers["spec"]["leaderWorkerTemplate"]["size"] == \
        shared.environment.pools.rollout.desired_size  # every rollout node serves the policy


def test_a_reward_tier_that_leaves_no_rollout_node_is_one_line(tmp_path_factory):
    from cluster.placement import PlacementError

    with pytest.raises(PlacementError, match=r"^pools.rollout.desired_size 2 leaves no node for the rollout servers: "
                                          r"the reward tier \(job.rewards.model\) takes 2$"):
        _synth(tmp_path_factory, "reward-too-big", {"model": {**REWARD_MODEL, "replicas": 16, "tensor_parallel_size": 1},
                                                    "default": {"model": 1.0}})
    with pytest.raises(PlacementError, match=r"^job.rewards.model.tensor_parallel_size 3 must divide 8"):
        _synth(tmp_path_factory, "reward-odd-tp", {"model": {**REWARD_MODEL, "tensor_parallel_size": 3},
                                                   "default": {"model": 1.0}})


def test_the_reward_tier_validates(served):
    """Against the Kubernetes schema (its built-in kinds and the LWS's pod template) and the
    vendored LeaderWorkerSet CRD, as tests/k8s/test_k8s_schemas.py holds every other file."""
    import kubernetes_validate

    version = f"{served.environment.kubernetes_version}.0"
    [path] = [p for p in served.files if p.name == "0012-reward-servers.k8s.yaml"]
    docs = [d for d in yaml.safe_load_all(path.read_text()) if d]
    assert {d["kind"] for d in docs} == {"ServiceAccount", "LeaderWorkerSet", "Service", "NetworkPolicy"}
    for doc in docs:
        if doc["kind"] == "LeaderWorkerSet":
            errors = [e.message for e in VALIDATORS[(doc["apiVersion"], doc["kind"])].iter_errors(doc)]
            assert not errors, errors
            template = doc["spec"]["leaderWorkerTemplate"]["workerTemplate"]
            kubernetes_validate.validate({"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "w"},
                                          "template": template}, version, strict=True)
        else:
            kubernetes_validate.validate(doc, version, strict=True)
