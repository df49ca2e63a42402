"""The namespace and what every workload shares: service accounts bound to IAM by EKS Pod
Identity, priority classes, the job ConfigMap, the FSx for Lustre volume, the gp3 storage
class, and the default-deny network policy."""

from __future__ import annotations

import cdk8s
from cdk8s_plus_33 import k8s
from constructs import Construct

from cluster.identities import ROLLOUT_SERVICE_ACCOUNT, TRAINER_SERVICE_ACCOUNT
from k8s.context import Context
from k8s.netpol import ports
from k8s.pods import (
    FSX_CLAIM,
    JOB_CONFIGMAP,
    NAMESPACE,
    PART_OF,
    PRIORITY_BUFFER,
    PRIORITY_ROLLOUT,
    PRIORITY_TRAINER,
    SANDBOX,
    metadata,
    selector,
)

GP3_STORAGE_CLASS = "rl-gp3"
# A static PersistentVolume needs a capacity; for FSx for Lustre it is informational (the
# file system's real size is set by the CDK app) and must merely cover the claim.
FSX_NOMINAL_CAPACITY = "1200Gi"


def stateful_pod_with_volume(
    scope: Construct, id: str, component: str, template: k8s.PodTemplateSpec, volume_gib: int
) -> k8s.KubeStatefulSet:
    """One pod of `component` (the buffer's Redis, the tracking database) with its own gp3
    volume, claim "data", which outlives the pod and the claim (the storage class's Retain)."""
    return k8s.KubeStatefulSet(
        scope,
        id,
        metadata=metadata(component),
        spec=k8s.StatefulSetSpec(
            service_name=component,
            replicas=1,
            selector=selector(component),
            template=template,
            volume_claim_templates=[
                k8s.KubePersistentVolumeClaimProps(
                    metadata=k8s.ObjectMeta(name="data"),
                    spec=k8s.PersistentVolumeClaimSpec(
                        access_modes=["ReadWriteOnce"],
                        storage_class_name=GP3_STORAGE_CLASS,
                        resources=k8s.VolumeResourceRequirements(
                            requests={"storage": k8s.Quantity.from_string(f"{volume_gib}Gi")}
                        ),
                    ),
                )
            ],
        ),
    )


def _meta(name: str, namespaced: bool = True) -> k8s.ObjectMeta:
    return k8s.ObjectMeta(
        name=name, namespace=NAMESPACE if namespaced else None, labels={"app.kubernetes.io/part-of": PART_OF}
    )


class BaseChart(cdk8s.Chart):
    def __init__(self, scope: Construct, id: str, ctx: Context) -> None:
        # No chart-wide namespace: half of these objects are cluster-scoped.
        super().__init__(scope, id)
        env = ctx.environment

        k8s.KubeNamespace(
            self,
            "namespace",
            metadata=k8s.ObjectMeta(
                name=NAMESPACE, labels={"app.kubernetes.io/part-of": PART_OF, "rl.aws/environment": env.name}
            ),
        )
        # Pod Identity associations (infra/) bind these names to IAM roles; no annotation is
        # needed, and no pod mounts a Kubernetes API token it does not use.
        for account in (TRAINER_SERVICE_ACCOUNT, ROLLOUT_SERVICE_ACCOUNT):
            k8s.KubeServiceAccount(self, f"sa-{account}", metadata=_meta(account), automount_service_account_token=False)

        # The trainer and the buffer hold state that is expensive to lose (a step in flight
        # across all train nodes; every unconsumed experience): they preempt, never the reverse.
        for name, value, description in (
            (PRIORITY_TRAINER, 1_000_000, "RL trainer: preempts everything else in the job"),
            (PRIORITY_BUFFER, 900_000, "Experience buffer and task queue (Redis)"),
            (PRIORITY_ROLLOUT, 100_000, "Rollout servers, router, rollout workers, verifiers"),
        ):
            k8s.KubePriorityClass(
                self, f"priority-{name}", metadata=_meta(name, namespaced=False), value=value, global_default=False, description=description
            )

        k8s.KubeConfigMap(self, "job-config", metadata=_meta(JOB_CONFIGMAP), data={"job.yaml": ctx.job_yaml})

        # FSx for Lustre, created by the CDK app: a static volume bound to exactly one claim.
        fsx_volume = f"rl-fsx-{env.name}"
        k8s.KubePersistentVolume(
            self,
            "fsx-volume",
            metadata=_meta(fsx_volume, namespaced=False),
            spec=k8s.PersistentVolumeSpec(
                capacity={"storage": k8s.Quantity.from_string(FSX_NOMINAL_CAPACITY)},
                access_modes=["ReadWriteMany"],
                persistent_volume_reclaim_policy="Retain",
                storage_class_name="",
                # flock: checkpoint writers and readers on different nodes coordinate with locks.
                mount_options=["flock"],
                claim_ref=k8s.ObjectReference(namespace=NAMESPACE, name=FSX_CLAIM),
                csi=k8s.CsiPersistentVolumeSource(
                    driver="fsx.csi.aws.com",
                    volume_handle=ctx.outputs.fsx_file_system_id,
                    volume_attributes={
                        "dnsname": ctx.outputs.fsx_dns_name,
                        "mountname": ctx.outputs.fsx_mount_name,
                    },
                ),
            ),
        )
        k8s.KubePersistentVolumeClaim(
            self,
            "fsx-claim",
            metadata=_meta(FSX_CLAIM),
            spec=k8s.PersistentVolumeClaimSpec(
                access_modes=["ReadWriteMany"],
                storage_class_name="",
                volume_name=fsx_volume,
                resources=k8s.VolumeResourceRequirements(
                    requests={"storage": k8s.Quantity.from_string(FSX_NOMINAL_CAPACITY)}
                ),
            ),
        )

        # Encrypted gp3 for the buffer's append-only file. Retain: deleting the claim must
        # not delete unconsumed experiences. WaitForFirstConsumer: the volume is created in
        # the zone of the memory node the pod lands on.
        k8s.KubeStorageClass(
            self,
            "gp3",
            metadata=_meta(GP3_STORAGE_CLASS, namespaced=False),
            provisioner="ebs.csi.aws.com",
            parameters={"type": "gp3", "encrypted": "true"},
            reclaim_policy="Retain",
            volume_binding_mode="WaitForFirstConsumer",
            allow_volume_expansion=True,
        )

        # Default deny in both directions; every chart opens only its component's paths.
        k8s.KubeNetworkPolicy(
            self,
            "default-deny",
            metadata=_meta("default-deny"),
            spec=k8s.NetworkPolicySpec(pod_selector=k8s.LabelSelector(), policy_types=["Ingress", "Egress"]),
        )
        dns = k8s.NetworkPolicyPeer(
            namespace_selector=k8s.LabelSelector(match_labels={"kubernetes.io/metadata.name": "kube-system"}),
            pod_selector=k8s.LabelSelector(match_labels={"k8s-app": "kube-dns"}),
        )
        k8s.KubeNetworkPolicy(
            self,
            "allow-dns",
            metadata=_meta("allow-dns"),
            spec=k8s.NetworkPolicySpec(
                # Every pod but the sandboxes, whose untrusted programs get no path out at all
                # (DNS carries data: k8s/charts/sandbox.py).
                pod_selector=k8s.LabelSelector(
                    match_expressions=[
                        k8s.LabelSelectorRequirement(key="app.kubernetes.io/name", operator="NotIn", values=[SANDBOX])
                    ]
                ),
                policy_types=["Egress"],
                egress=[k8s.NetworkPolicyEgressRule(to=[dns], ports=ports(53, protocol="UDP") + ports(53))],
            ),
        )
