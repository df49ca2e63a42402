"""dist/'s queueing objects fit its workloads: Kueue can admit the trainer and the rollout groups
(every resource they request is quota'd or excluded, a flavor matches their pool, the trainer's
required topology level exists) and the ScaledObject targets the LeaderWorkerSet within its pool."""

from spec.environment import POOL_LABEL
from tests.k8s.conftest import lws_replicas
from infra.queueing import KUEUE_EXCLUDED_RESOURCE_PREFIXES
from k8s.charts.queueing import (
    LOCAL_QUEUE,
    PRIORITY_CLASS_LABEL,
    QUEUE_NAME_LABEL,
    QUOTA_RESOURCES,
    NETWORK_LAYER_LABELS,
    PREFERRED_TOPOLOGY_ANNOTATION,
    REQUIRED_TOPOLOGY_ANNOTATION,
    train_topology,
    trainer_topology_annotations,
)


def pod_templates(synthed):
    (jobset,) = synthed.kind("JobSet")
    (lws,) = synthed.kind("LeaderWorkerSet")
    trainer = [job["template"]["spec"]["template"] for job in jobset["spec"]["replicatedJobs"]]
    rollout = [t for t in (lws["spec"]["leaderWorkerTemplate"].get(k) for k in ("workerTemplate", "leaderTemplate")) if t]
    return jobset, lws, trainer, rollout


def test_queued_workloads_can_be_admitted(synthed):
    jobset, lws, trainer, rollout = pod_templates(synthed)
    (queue,) = synthed.kind("ClusterQueue")
    (local,) = synthed.kind("LocalQueue")
    (topology,) = synthed.kind("Topology")
    flavors = {f["metadata"]["name"]: f["spec"] for f in synthed.kind("ResourceFlavor")}
    priorities = {p["metadata"]["name"]: p["value"] for p in synthed.kind("WorkloadPriorityClass")}
    assert local["metadata"]["name"] == LOCAL_QUEUE and local["spec"]["clusterQueue"] == queue["metadata"]["name"]
    (group,) = queue["spec"]["resourceGroups"]
    assert group["coveredResources"] == list(QUOTA_RESOURCES)
    quota = {f["name"]: {r["name"] for r in f["resources"]} for f in group["flavors"]}
    assert set(quota) == set(flavors) and all(names == set(QUOTA_RESOURCES) for names in quota.values())
    for owner, templates in ((jobset, trainer), (lws, rollout)):
        assert owner["metadata"]["labels"][QUEUE_NAME_LABEL] == LOCAL_QUEUE
        assert owner["metadata"]["labels"][PRIORITY_CLASS_LABEL] in priorities
        for template in templates:
            spec = template["spec"]
            pool = spec["nodeSelector"][POOL_LABEL]
            (flavor,) = [f for f in flavors.values() if f["nodeLabels"][POOL_LABEL] == pool]
            tolerated = {(t["key"], t["effect"]) for t in spec.get("tolerations", [])}
            assert {(t["key"], t["effect"]) for t in flavor.get("nodeTaints", [])} <= tolerated
            for container in spec["containers"]:
                for resource in container["resources"]["requests"]:
                    assert resource in QUOTA_RESOURCES or resource.startswith(KUEUE_EXCLUDED_RESOURCE_PREFIXES), resource
    assert priorities[jobset["metadata"]["labels"][PRIORITY_CLASS_LABEL]] > priorities[lws["metadata"]["labels"][PRIORITY_CLASS_LABEL]]
    levels = [level["nodeLabel"] for level in topology["spec"]["levels"]]
    for template in trainer:
        annotations = template["metadata"]["annotations"]
        (key,) = {REQUIRED_TOPOLOGY_ANNOTATION, PREFERRED_TOPOLOGY_ANNOTATION} & set(annotations)  # Kueue: one of them
        assert annotations[key] in levels
    assert flavors["rl-train"]["topologyName"] == topology["metadata"]["name"]


def test_the_scaled_object_scales_the_rollout_servers_within_the_split(synthed):
    (lws,) = synthed.kind("LeaderWorkerSet")
    (scaled,) = synthed.kind("ScaledObject")
    target = scaled["spec"]["scaleTargetRef"]
    assert (target["apiVersion"], target["kind"], target["name"]) == (lws["apiVersion"], lws["kind"], lws["metadata"]["name"])
    assert 1 <= scaled["spec"]["minReplicaCount"] <= scaled["spec"]["maxReplicaCount"] == lws_replicas(lws)
    assert "replicas" not in lws["spec"]  # the HPA owns it
    formula = scaled["spec"]["advanced"]["scalingModifiers"]["formula"]
    assert {t["name"] for t in scaled["spec"]["triggers"]} == {"asked", "up", "started", "idle", "batches", "stale"}
    assert all(name in formula for name in ("asked", "up", "started", "idle", "batches", "stale"))


def test_the_node_autoscaler_removes_a_rollout_node_only_once_it_is_empty(synthed):
    """The Cluster Autoscaler (infra/node_autoscaler.py) never evicts an SGLang pod: a server
    leaves through KEDA's scale-down and its drain; a pod it did drain would get its whole
    grace period; and the most replicas KEDA asks for fit the node group's ceiling."""
    from infra.node_autoscaler import autoscaler_args

    docs = synthed.docs  # parsed once
    (lws,) = [d for d in docs if d["kind"] == "LeaderWorkerSet"]
    (scaled,) = [d for d in docs if d["kind"] == "ScaledObject"]
    group = lws["spec"]["leaderWorkerTemplate"]
    max_grace = int(autoscaler_args()["max-graceful-termination-sec"])
    for template in (group[k] for k in ("workerTemplate", "leaderTemplate") if group.get(k)):
        assert template["metadata"]["annotations"]["cluster-autoscaler.kubernetes.io/safe-to-evict"] == "false"
        assert template["spec"]["terminationGracePeriodSeconds"] <= max_grace
    group_gpus = sum(
        int(c["resources"]["requests"].get("nvidia.com/gpu", 0))
        for c in group["workerTemplate"]["spec"]["containers"]
    ) * group["size"]
    pool = synthed.environment.pools.rollout
    assert pool.autoscale
    assert scaled["spec"]["maxReplicaCount"] * group_gpus <= pool.max_size * pool.spec.gpus


def test_the_trainer_lands_under_the_fewest_network_nodes_where_nodes_carry_the_labels(synthed):
    """p5en nodes carry EKS's topology.k8s.aws/network-node-layer-1..3: the train flavor's
    Topology is those layers (top to bottom) then the node, and the trainer prefers the bottom
    layer (Kueue climbs a layer at a time, then spreads over the fewest domains) rather than
    requiring one domain, which a block over two spines could never satisfy."""
    (jobset,) = synthed.kind("JobSet")
    (topology,) = synthed.kind("Topology")
    flavors = {f["metadata"]["name"]: f["spec"] for f in synthed.kind("ResourceFlavor")}
    assert synthed.environment.pools.train.instance_type == "p5en.48xlarge"
    assert topology["metadata"]["name"] == "rl-network" == flavors["rl-train"]["topologyName"]
    assert [level["nodeLabel"] for level in topology["spec"]["levels"]] == [
        "topology.k8s.aws/network-node-layer-1", "topology.k8s.aws/network-node-layer-2",
        "topology.k8s.aws/network-node-layer-3", "kubernetes.io/hostname"]
    (template,) = [job["template"]["spec"]["template"] for job in jobset["spec"]["replicatedJobs"]]
    annotations = template["metadata"]["annotations"]
    assert annotations[PREFERRED_TOPOLOGY_ANNOTATION] == "topology.k8s.aws/network-node-layer-3"
    assert REQUIRED_TOPOLOGY_ANNOTATION not in annotations
    # The rollout flavor stays without TAS (a TAS flavor would wait for nodes the autoscaler
    # adds only for pods Kueue has not admitted), and so does the cpu flavor.
    assert "topologyName" not in flavors["rl-rollout"] and "topologyName" not in flavors["rl-cpu"]
    # Every level the flavor's nodes need: Kueue drops a node lacking one from the flavor.
    assert [level["nodeLabel"] for level in topology["spec"]["levels"]][:3] == list(NETWORK_LAYER_LABELS)


def test_without_network_labels_the_topology_falls_back_to_the_pool():
    """An instance type EC2 describes no topology for: its nodes carry no layer labels, and a
    Topology of layers would hide every node from the flavor (Kueue pkg/util/tas/node.go), so
    the trainer stays required inside its pool (one placement group) with node-level accounting."""
    from types import SimpleNamespace

    environment = SimpleNamespace(pools=SimpleNamespace(train=SimpleNamespace(instance_type="p6-b200.48xlarge")))
    assert train_topology(environment) == ("rl-pools", (POOL_LABEL, "kubernetes.io/hostname"))
    assert trainer_topology_annotations(environment) == {REQUIRED_TOPOLOGY_ANNOTATION: POOL_LABEL}
    p5en = SimpleNamespace(pools=SimpleNamespace(train=SimpleNamespace(instance_type="p5en.48xlarge")))
    assert train_topology(p5en)[0] == "rl-network"
