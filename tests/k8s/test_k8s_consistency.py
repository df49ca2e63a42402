"""Every pod of dist/ fits the environment it was synthesized for, read back from the YAML.

Pool, labels and taints exist in the environment; GPU, EFA, CPU, memory and huge-page
requests fit the pool's instance type, per pod and summed over the pool's nodes; the
trainer's world size and the rollout servers' layout match the node counts.
"""

from __future__ import annotations

import re

from spec.environment import GPU_POOLS, POOL_LABEL
from conftest import lws_replicas, pod_templates

_UNITS = {"": 1, "m": 1e-3, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def quantity(value) -> float:
    number, unit = re.fullmatch(r"([0-9.]+)([A-Za-z]*)", str(value)).groups()
    return float(number) * _UNITS[unit]


def workloads(synthed):
    for doc in synthed.docs:
        yield from pod_templates(doc)


def pod_requests(template: dict) -> dict[str, float]:
    total: dict[str, float] = {}
    for container in template["spec"]["containers"]:
        for name, value in container.get("resources", {}).get("requests", {}).items():
            total[name] = total.get(name, 0) + quantity(value)
    return total


def test_every_workload_kind_is_present(synthed):
    kinds = {where.split("/")[0] for where, _, _ in workloads(synthed)}
    assert kinds == {"Deployment", "StatefulSet", "JobSet", "LeaderWorkerSet"}


def test_pods_select_an_existing_pool_and_tolerate_exactly_its_taints(synthed):
    pools = dict(synthed.environment.pools.items())
    for where, template, _ in workloads(synthed):
        spec = template["spec"]
        selector = spec["nodeSelector"]
        pool = pools.get(selector.get(POOL_LABEL))
        assert pool is not None, f"{where}: nodeSelector {selector} names no pool of {synthed.environment.name}"
        assert selector == {POOL_LABEL: selector[POOL_LABEL], **pool.labels}, where
        tolerations = {(t["key"], t["operator"], t.get("value", ""), t["effect"]) for t in spec.get("tolerations", [])}
        assert tolerations == {(t.key, "Equal", t.value, t.effect) for t in pool.taints}, where
        # Pod (anti-)affinity places tiers apart inside a pool (k8s.placement.whole_nodes_affinity);
        # which pool is the nodeSelector's alone.
        assert "nodeAffinity" not in spec.get("affinity", {}), f"{where}: placement must come from the nodeSelector alone"


def test_requests_fit_the_pool_instance_type(synthed):
    pools = dict(synthed.environment.pools.items())
    for where, template, _ in workloads(synthed):
        pool_name = template["spec"]["nodeSelector"][POOL_LABEL]
        pool, spec = pools[pool_name], pools[pool_name].spec
        requests = pod_requests(template)
        assert requests.get("cpu", 0) > 0 and requests.get("memory", 0) > 0, f"{where}: cpu and memory requests"
        assert requests["cpu"] <= spec.vcpus, where
        memory = requests["memory"] + requests.get("hugepages-2Mi", 0)
        assert memory <= spec.memory_gib * 2**30, where
        gpus = requests.get("nvidia.com/gpu", 0)
        assert gpus <= spec.gpus, where
        assert (gpus > 0) == (pool_name in GPU_POOLS), f"{where}: GPU pods exactly on the GPU pools"
        efa = requests.get("vpc.amazonaws.com/efa", 0)
        assert efa <= (spec.efa_interfaces if pool.efa else 0), where
        if gpus:
            # EFA devices and huge pages go with the GPUs they are wired to.
            assert efa == spec.efa_interfaces * gpus // spec.gpus if pool.efa else efa == 0, where
            assert (requests.get("hugepages-2Mi", 0) > 0) == (efa > 0), where
            for container in template["spec"]["containers"]:
                limits = container["resources"]["limits"]
                for name in ("nvidia.com/gpu", "vpc.amazonaws.com/efa", "hugepages-2Mi"):
                    if name in container["resources"]["requests"]:
                        assert limits[name] == container["resources"]["requests"][name], f"{where}: {name}"


def test_each_pool_holds_all_its_pods(synthed):
    pools = dict(synthed.environment.pools.items())
    used: dict[str, dict[str, float]] = {}
    for _, template, count in workloads(synthed):
        pool_used = used.setdefault(template["spec"]["nodeSelector"][POOL_LABEL], {})
        for name, value in pod_requests(template).items():
            pool_used[name] = pool_used.get(name, 0) + value * count
    for pool_name, totals in used.items():
        pool = pools[pool_name]
        nodes = pool.desired_size
        assert totals["cpu"] <= nodes * pool.spec.vcpus, pool_name
        assert totals["memory"] + totals.get("hugepages-2Mi", 0) <= nodes * pool.spec.memory_gib * 2**30, pool_name
        assert totals.get("nvidia.com/gpu", 0) <= nodes * pool.spec.gpus, pool_name


def test_trainer_world_size_is_train_nodes_times_gpus(synthed):
    train = synthed.environment.pools.train
    (job_set,) = synthed.kind("JobSet")
    (job,) = job_set["spec"]["replicatedJobs"]
    assert job["replicas"] == 1
    assert job["template"]["spec"]["parallelism"] == job["template"]["spec"]["completions"] == train.desired_size
    container = job["template"]["spec"]["template"]["spec"]["containers"][0]
    args = dict(arg.lstrip("-").split("=", 1) for arg in container["command"] if arg.startswith("--") and "=" in arg)
    assert int(args["nnodes"]) * int(args["nproc-per-node"]) == train.desired_size * train.spec.gpus
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert int(env["RL_WORLD_SIZE"]) == train.desired_size * train.spec.gpus
    assert job_set["spec"]["failurePolicy"]["maxRestarts"] == synthed.environment.job.checkpoint.max_restarts


def test_rollout_replicas_times_group_size_fill_the_rollout_nodes(synthed):
    rollout = synthed.environment.pools.rollout
    (lws,) = synthed.kind("LeaderWorkerSet")
    replicas, size = lws_replicas(lws), lws["spec"]["leaderWorkerTemplate"]["size"]
    template = lws["spec"]["leaderWorkerTemplate"].get("leaderTemplate") or lws["spec"]["leaderWorkerTemplate"]["workerTemplate"]
    pod_gpus = pod_requests(template)["nvidia.com/gpu"]
    assert replicas * size * pod_gpus == rollout.desired_size * rollout.spec.gpus
    if pod_gpus == rollout.spec.gpus:
        assert replicas * size == rollout.desired_size
    command = template["spec"]["containers"][0]["command"]
    tp = int(command[command.index("--tp-size") + 1])
    assert tp == size * pod_gpus == synthed.environment.job.parallel.rollout_tensor_parallel_size
    # The router knows every replica's leader.
    router = synthed.one("Deployment", "router")["spec"]["template"]["spec"]["containers"][0]["command"]
    urls = [arg for arg in router if arg.startswith("http://")]
    assert len(urls) == replicas == len(set(urls))


def test_gpu_pods_use_efa_without_privilege(synthed):
    for where, template, _ in workloads(synthed):
        for container in template["spec"]["containers"]:
            security = container["securityContext"]
            assert security["privileged"] is False and security["allowPrivilegeEscalation"] is False, where
            if "nvidia.com/gpu" in container["resources"]["requests"]:
                assert security["capabilities"] == {"add": ["IPC_LOCK"], "drop": ["ALL"]}, where
                env = {e["name"]: e.get("value") for e in container["env"]}
                excluded = env["NCCL_SOCKET_IFNAME"].removeprefix("^").split(",")
                assert env["NCCL_SOCKET_IFNAME"].startswith("^")
                assert {"lo", "docker", "veth", "pod-id-link"} <= set(excluded), where
                shm = [v for v in template["spec"]["volumes"] if v["name"] == "dshm"]
                assert shm and shm[0]["emptyDir"]["medium"] == "Memory", where
                # No SYS_PTRACE holds only while no GPU process exports torch expandable
                # segments (their import needs pidfd_getfd; k8s/pods.py gpu_security).
                for name in ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF"):
                    assert "expandable_segments:True" not in (env.get(name) or ""), where
            else:
                assert security["capabilities"] == {"drop": ["ALL"]} and security["runAsNonRoot"] is True, where
                assert security["readOnlyRootFilesystem"] is True, where


def test_images_are_pinned_and_service_accounts_exist(synthed):
    accounts = {doc["metadata"]["name"] for doc in synthed.kind("ServiceAccount")}
    for where, template, _ in workloads(synthed):
        assert template["spec"]["serviceAccountName"] in accounts, where
        assert template["spec"]["automountServiceAccountToken"] is False, where
        for container in template["spec"]["containers"]:
            image = container["image"]
            assert "@sha256:" in image or (":" in image.rsplit("/", 1)[-1] and not image.endswith(":latest")), image
            assert "{ecr}" not in image


def test_selectors_match_pods(synthed):
    """Every Service, NetworkPolicy, PDB and ServiceMonitor selects pods that exist."""
    pod_labels = [template["metadata"]["labels"] for _, template, _ in workloads(synthed)]

    def selects(match: dict) -> bool:
        return any(match.items() <= labels.items() for labels in pod_labels)

    for service in synthed.kind("Service"):
        selector = dict(service["spec"]["selector"])
        # The rollout servers' leader label is set by the LeaderWorkerSet controller.
        selector.pop("leaderworkerset.sigs.k8s.io/worker-index", None)
        assert selects(selector), service["metadata"]["name"]
    for kind in ("NetworkPolicy", "PodDisruptionBudget"):
        for doc in synthed.kind(kind):
            key = "podSelector" if kind == "NetworkPolicy" else "selector"
            match = doc["spec"][key].get("matchLabels", {})
            assert not match or selects(match), doc["metadata"]["name"]
    service_labels = [service["metadata"]["labels"] for service in synthed.kind("Service")]
    for monitor in synthed.kind("ServiceMonitor"):
        match = monitor["spec"]["selector"]["matchLabels"]
        assert any(match.items() <= labels.items() for labels in service_labels), monitor["metadata"]["name"]


def test_network_policy_defaults_to_deny(synthed):
    deny = synthed.one("NetworkPolicy", "default-deny")
    assert deny["spec"] == {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}
    buffer = synthed.one("NetworkPolicy", "allow-buffer")
    (redis_rule, _) = buffer["spec"]["ingress"]
    peers = {peer["podSelector"]["matchLabels"]["app.kubernetes.io/name"] for peer in redis_rule["from"]}
    # Rollout servers read the newest exported policy pointer when they restart.
    assert peers == {"rollout-worker", "verifier", "trainer", "rollout-server", "feeder"}
    servers = synthed.one("NetworkPolicy", "allow-rollout-server")
    peers = {
        peer["podSelector"]["matchLabels"]["app.kubernetes.io/name"]
        for rule in servers["spec"]["ingress"]
        for peer in rule["from"]
        if "podSelector" in peer
    }
    # `acceptance`: the SGLang smoke test of dist/acceptance/ hosts a weight-update group too.
    assert peers == {"router", "trainer", "rollout-server", "acceptance"}


def test_buffer_is_durable(synthed):
    statefulset = synthed.one("StatefulSet", "buffer")
    redis = statefulset["spec"]["template"]["spec"]["containers"][0]
    args = redis["args"]
    flags = dict(zip(args[::2], args[1::2]))
    assert flags["--appendonly"] == "yes" and flags["--maxmemory-policy"] == "noeviction"
    limit = quantity(redis["resources"]["limits"]["memory"])
    assert quantity(flags["--maxmemory"].replace("mb", "Mi")) <= limit / 2
    assert "--requirepass" not in flags  # users and passwords: the ACL file (tests/k8s/test_k8s_access.py)
    (claim,) = statefulset["spec"]["volumeClaimTemplates"]
    storage_class = synthed.one("StorageClass", claim["spec"]["storageClassName"])
    assert storage_class["parameters"]["type"] == "gp3"
    assert synthed.one("PodDisruptionBudget", "buffer")["spec"]["maxUnavailable"] == 0
    assert not synthed.kind("Secret"), "no secret values in dist/"


def test_gpu_pods_carry_gin_settings_from_one_place_and_no_nvshmem(synthed):
    # DeepEP v2 moves tokens over NCCL GIN, not NVSHMEM: NVSHMEM_* would be read by nothing the
    # image runs; the GIN variables come from k8s/charts/efa.py GIN_ENV only.
    from k8s.charts.efa import GIN_ENV

    gin = {name: value for name, value, _ in GIN_ENV}
    for where, template, _ in workloads(synthed):
        for container in template["spec"]["containers"]:
            env = {e["name"]: e.get("value") for e in container.get("env", [])}
            assert not [name for name in env if name.startswith("NVSHMEM_")], where
            if env.get("RL_REQUIRE_EFA") == "1":
                assert {name: env[name] for name in env if "_GIN_" in name} == gin, where
