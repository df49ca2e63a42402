"""Kueue and KEDA as the cluster installs them (infra/addons.py): the controllers' settings that
the workload objects in k8s/charts/queueing.py and k8s/charts/autoscaling.py rely on.

Kueue (kubernetes-sigs/kueue v0.19.2) admits the trainer JobSet as one Workload (every pod of
every replicated job, all or none) and each rollout LeaderWorkerSet group as a Workload of its
own (Kueue's LWS integration: "a group of Pods constitutes a unit of admission", scaled group by
group; a new group waits behind a scheduling gate until admitted). Only objects labelled with a
queue name are managed (the default labelPolicy), so the router, workers and Redis are untouched.

The configuration replaces the chart's `managerConfig.controllerManagerConfigYaml` whole (Helm
does not merge inside a string): it is the chart's 0.19.2 default with
- integrations: JobSet and LeaderWorkerSet only (the chart's default also watches plain pods,
  Deployments and StatefulSets, which nothing here queues);
- waitForPodsReady: an admitted Workload whose pods are not all Ready in time is evicted and
  requeued, releasing its quota: a trainer gang that half-starts does not hold the pool (a p5en
  boots and joins in ~10 min, the trainer's startup probe allows a checkpoint load on top);
- resources.excludeResourcePrefixes: EFA devices and huge pages follow a pod's GPUs one to one
  (k8s/placement.py GpuShare), so quota is counted in GPUs, CPU and memory only.
"""

from __future__ import annotations

import yaml

# Resources Kueue leaves out of quota (they are bound to the GPU share a pod requests).
KUEUE_EXCLUDED_RESOURCE_PREFIXES = ("vpc.amazonaws.com/efa", "hugepages-")
KUEUE_INTEGRATIONS = ("jobset.x-k8s.io/jobset", "leaderworkerset.x-k8s.io/leaderworkerset")
# Longer than a p5en's boot and join (~10 min) plus the trainer's checkpoint load.
KUEUE_PODS_READY_TIMEOUT = "45m"
KUEUE_NAMESPACE = "kueue-system"
KEDA_NAMESPACE = "keda"


def kueue_manager_config() -> dict:
    """Kueue's Configuration (config.kueue.x-k8s.io/v1beta2), the chart's defaults plus the above."""
    return {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "health": {"healthProbeBindAddress": ":8081"},
        "metrics": {"bindAddress": ":8443"},
        "webhook": {"port": 9443},
        "leaderElection": {"leaderElect": True, "resourceName": "c1f6bfd2.kueue.x-k8s.io"},
        "controller": {
            "groupKindConcurrency": {
                "Job.batch": 5,
                "Pod": 5,
                "Workload.kueue.x-k8s.io": 10,
                "LocalQueue.kueue.x-k8s.io": 5,
                "ClusterQueue.kueue.x-k8s.io": 5,
                "ResourceFlavor.kueue.x-k8s.io": 1,
            }
        },
        "clientConnection": {"qps": 300, "burst": 500},
        "waitForPodsReady": {"timeout": KUEUE_PODS_READY_TIMEOUT, "blockAdmission": False},
        "integrations": {"frameworks": list(KUEUE_INTEGRATIONS)},
        "resources": {"excludeResourcePrefixes": list(KUEUE_EXCLUDED_RESOURCE_PREFIXES)},
    }


def kueue_values(system: dict) -> dict:
    return {
        "controllerManager": system,
        "managerConfig": {"controllerManagerConfigYaml": yaml.safe_dump(kueue_manager_config(), sort_keys=False)},
    }
