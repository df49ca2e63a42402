"""The reward tier and the rollout servers share the rollout pool by whole nodes (issue 46 item
4): the rendered pod (anti-)affinity, for both server layouts (TP 4: two servers a node; TP 8:
one), and a placement of every pod under those constraints in kube-scheduler's terms (filter:
GPUs and required inter-pod anti-affinity, both ways; score: preferred inter-pod affinity at
plugin weight 2 against LeastAllocated on CPU and memory at weight 1, its default profile),
in the orders that hurt, onto exactly the nodes the planner counts (cluster.gpu_pods)."""

from __future__ import annotations

import itertools

import pytest
import yaml

from cluster.gpu_pods import RewardPods, RolloutPods
from estimate.checks import load_environment
from k8s.main import synth
from k8s.placement import HOSTNAME_LABEL, PACK_WEIGHT
from spec.environment import ENVIRONMENTS_DIR
from tests.k8s.conftest import Synth, pod_templates
from tests.k8s.test_k8s_consistency import pod_requests

# 6 one-GPU replicas on 8-GPU nodes: one reward node, part-filled; the servers get the other 3.
REWARD_MODEL = {"path": "/fsx/models/Skywork-Reward-V2-Qwen3-8B", "tensor_parallel_size": 1, "replicas": 6}
ROLLOUT_NODES = 4
NAME = "app.kubernetes.io/name"


def _synth(tmp_path_factory, tp: int) -> Synth:
    data = yaml.safe_load((ENVIRONMENTS_DIR / "default.yaml").read_text())
    data["name"] = f"reward-tp{tp}"
    data["pools"]["rollout"].update(desired_size=ROLLOUT_NODES, max_size=ROLLOUT_NODES)
    data["job"]["parallel"].update(rollout_tensor_parallel_size=tp, rollout_expert_parallel_size=tp)
    data["job"]["rewards"] = {"model": REWARD_MODEL, "default": {"verifier": 1.0, "model": 0.5}}
    folder = tmp_path_factory.mktemp(data["name"])
    path = folder / f"{data['name']}.yaml"
    path.write_text(yaml.safe_dump(data))
    dist = folder / "dist"
    note = synth(str(path), folder / "no-outputs.json", dist)
    return Synth(load_environment(str(path)), dist, note)


@pytest.fixture(scope="module", params=[4, 8], ids=["tp4-two-a-node", "tp8-one-a-node"])
def layout(request, tmp_path_factory) -> Synth:
    return _synth(tmp_path_factory, request.param)


def _template(synthed: Synth, name: str) -> tuple[dict, int]:
    [(_, template, pods)] = pod_templates(synthed.one("LeaderWorkerSet", name))
    return template, pods


def _term(component: str) -> dict:
    return {"labelSelector": {"matchLabels": {NAME: component}}, "topologyKey": HOSTNAME_LABEL}


def test_rendered_constraints(layout):
    rollout = RolloutPods.of(layout.environment)
    reward = RewardPods.of(layout.environment)
    assert rollout.group_size == 1 and reward.pods_per_node == 8
    reward_affinity = _template(layout, "reward-server")[0]["spec"]["affinity"]
    assert reward_affinity == {
        "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_term("rollout-server")]},
        "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": PACK_WEIGHT, "podAffinityTerm": _term("reward-server")}]},
    }
    server_affinity = _template(layout, "rollout-server")[0]["spec"]["affinity"]
    assert server_affinity["podAntiAffinity"] == {"requiredDuringSchedulingIgnoredDuringExecution": [_term("reward-server")]}
    if rollout.pods_per_node == 2:  # TP 4: two servers fill a node; they pack
        assert server_affinity["podAffinity"] == {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": PACK_WEIGHT, "podAffinityTerm": _term("rollout-server")}]}
    else:  # TP 8: a server is a whole node already
        assert rollout.pods_per_node == 1 and "podAffinity" not in server_affinity
    # Nothing else moved: the pool is still the nodeSelector's.
    for name in ("reward-server", "rollout-server"):
        assert "nodeAffinity" not in _template(layout, name)[0]["spec"]["affinity"]


def _affinity_terms(template: dict) -> tuple[set[str], dict[str, int]]:
    """(components it must never share a node with, component -> preferred weight)."""
    affinity = template["spec"].get("affinity", {})
    never = {t["labelSelector"]["matchLabels"][NAME]
             for t in affinity.get("podAntiAffinity", {}).get("requiredDuringSchedulingIgnoredDuringExecution", [])}
    prefer = {t["podAffinityTerm"]["labelSelector"]["matchLabels"][NAME]: t["weight"]
              for t in affinity.get("podAffinity", {}).get("preferredDuringSchedulingIgnoredDuringExecution", [])}
    for t in [*affinity.get("podAntiAffinity", {}).get("requiredDuringSchedulingIgnoredDuringExecution", []),
              *(w["podAffinityTerm"] for w in affinity.get("podAffinity", {}).get("preferredDuringSchedulingIgnoredDuringExecution", []))]:
        assert t["topologyKey"] == HOSTNAME_LABEL
    return never, prefer


def place(pods: list[tuple[str, dict]], nodes: int, capacity: dict[str, float]) -> list[list[str]] | None:
    """Binds `pods` (component, template) one at a time as kube-scheduler's default profile
    would; None if one cannot be placed (it would stay Pending: the pool is at its max)."""
    bound: list[list[tuple[str, dict]]] = [[] for _ in range(nodes)]
    for component, template in pods:
        never, prefer = _affinity_terms(template)
        need = pod_requests(template)
        feasible = []
        for index, node in enumerate(bound):
            used = {r: sum(pod_requests(t).get(r, 0) for _, t in node) for r in capacity}
            if any(used[r] + need.get(r, 0) > capacity[r] for r in capacity):
                continue
            # Required anti-affinity, the incoming pod's and every existing pod's (symmetry).
            if any(c in never or component in _affinity_terms(t)[0] for c, t in node):
                continue
            affinity = sum(prefer.get(c, 0) for c, _ in node)
            least = sum((capacity[r] - used[r] - need.get(r, 0)) / capacity[r] * 100 for r in ("cpu", "memory")) / 2
            feasible.append((index, affinity, least))
        if not feasible:
            return None
        low, high = min(f[1] for f in feasible), max(f[1] for f in feasible)
        scored = [(2 * (100 * (a - low) / (high - low) if high > low else 0) + least, -index)
                  for index, a, least in feasible]
        _, index = max(scored)
        bound[-index].append((component, template))
    return [[c for c, _ in node] for node in bound]


def _pods(layout: Synth, strip: bool = False) -> tuple[list, list]:
    reward, reward_pods = _template(layout, "reward-server")
    server, _ = _template(layout, "rollout-server")
    if strip:
        reward = {**reward, "spec": {k: v for k, v in reward["spec"].items() if k != "affinity"}}
        server = {**server, "spec": {k: v for k, v in server["spec"].items() if k != "affinity"}}
    servers = RolloutPods.of(layout.environment).replicas  # the planner's count (the LWS's replicas: KEDA's)
    return [("reward-server", reward)] * reward_pods, [("rollout-server", server)] * servers


def _capacity(layout: Synth) -> dict[str, float]:
    spec = layout.environment.pools.rollout.spec
    return {"nvidia.com/gpu": spec.gpus, "cpu": spec.vcpus, "memory": spec.memory_gib * 2**30}


def test_every_pod_is_placed_on_the_nodes_the_planner_counts(layout):
    """Whatever comes first (Kueue admits each group on its own), all pods fit the pool's
    desired_size: the reward tier on RewardPods.nodes whole nodes, the servers on the rest."""
    environment = layout.environment
    reward_nodes = RewardPods.nodes_of(environment)
    assert reward_nodes == 1 and RolloutPods.of(environment).replicas * RolloutPods.of(environment).share.gpus == \
        (ROLLOUT_NODES - reward_nodes) * environment.pools.rollout.spec.gpus
    rewards, servers = _pods(layout)
    orders = {
        "servers first": servers + rewards,
        "rewards first": rewards + servers,
        "alternating": [p for pair in itertools.zip_longest(servers, rewards) for p in pair if p],
    }
    for order, pods in orders.items():
        nodes = place(pods, ROLLOUT_NODES, _capacity(layout))
        assert nodes is not None, order
        assert all(len(set(node)) <= 1 for node in nodes), (order, nodes)  # never shared
        assert sum("reward-server" in node for node in nodes) == reward_nodes, (order, nodes)
        assert sum("rollout-server" in node for node in nodes) == ROLLOUT_NODES - reward_nodes, (order, nodes)


def test_without_the_constraints_a_group_stays_pending(layout):
    """Not vacuous: the same pods without the rendered affinity (today's manifests) spread by
    by LeastAllocated leave servers with no node: the one-GPU reward pods go 2, 2, 1, 1 over the
    four nodes, after which each node fits one TP 4 server instead of two (4 of 6 placed) and no
    TP 8 server at all."""
    rewards, servers = _pods(layout, strip=True)
    outcomes = [place(order, ROLLOUT_NODES, _capacity(layout)) for order in (rewards + servers, servers + rewards)]
    assert None in outcomes
