"""The README's `kubectl apply --server-side -f dist/`, twice, with the HPA scaling the rollout
LeaderWorkerSet in between, under server-side apply's field ownership for spec.replicas.

The API server's rules reproduced here (Kubernetes docs, "Server-Side Apply": Conflicts,
Managers, "Transferring ownership"; not a library — none is installed here): an apply sets the
fields in its configuration and becomes their owner; applying a value to a field another manager
owns is a conflict (the whole object is rejected) unless forced, which takes the field over and
sets the value; a field the applier owned and now leaves out is removed when no one else owns it;
an update through the scale subresource (the HPA, manager kube-controller-manager) takes
spec.replicas over from the applier. A LeaderWorkerSet without spec.replicas gets the CRD's
default, 1 (LWS v0.7.0 api/leaderworkerset/v1/leaderworkerset_types.go, +kubebuilder:default=1).
"""

from __future__ import annotations

import pytest


class Conflict(Exception):
    pass


class LwsReplicas:
    """spec.replicas of one object and its owners."""

    def __init__(self) -> None:
        self.value: int | None = None
        self.owners: set[str] = set()
        self.applied_by: dict[str, bool] = {}

    def apply(self, manager: str, manifest_spec: dict, force: bool = False) -> None:
        if "replicas" in manifest_spec:
            wanted = manifest_spec["replicas"]
            others = self.owners - {manager}
            if others and wanted != self.value:
                if not force:
                    raise Conflict(f"spec.replicas owned by {sorted(others)}")
                self.owners -= others
            self.value = wanted
            self.owners.add(manager)
        elif manager in self.owners:
            self.owners.discard(manager)
            if not self.owners:
                self.value = None  # removed: back to the default
        if self.value is None:
            self.value = 1  # the CRD default

    def scale(self, replicas: int) -> None:
        """The HPA's write through the scale subresource."""
        self.value = replicas
        self.owners = {"kube-controller-manager"}


def _lws_spec(synthed) -> dict:
    return synthed.one("LeaderWorkerSet", "rollout-server")["spec"]


def test_applying_dist_twice_keeps_the_fleet_the_hpa_set(synthed):
    spec = _lws_spec(synthed)
    assert "replicas" not in spec
    field = LwsReplicas()
    field.apply("kubectl", spec)
    assert field.value == 1  # the default; the ScaledObject's formula asks for the split
    field.scale(48)
    field.apply("kubectl", spec)  # a job change, re-applied
    assert field.value == 48 and field.owners == {"kube-controller-manager"}


def test_a_manifest_with_replicas_would_conflict_or_reset_the_fleet():
    old = {"replicas": 64}
    field = LwsReplicas()
    field.apply("kubectl", old)
    field.scale(48)
    with pytest.raises(Conflict):
        field.apply("kubectl", old)
    field.apply("kubectl", old, force=True)
    assert field.value == 64  # forced: the fleet reset, the HPA's count lost
