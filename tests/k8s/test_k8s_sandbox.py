"""dist/ renders the sandbox pool as k8s/charts/sandbox.py promises: the command the local test
starts, no credentials, non-root on a read-only root file system, limits, and no path out."""

from __future__ import annotations

from k8s.charts.sandbox import SANDBOX_SCRATCH, sandbox_command, sandbox_url


def _selects(policy: dict, labels: dict) -> bool:
    selector = policy["spec"]["podSelector"]
    if not selector.get("matchLabels", {}).items() <= labels.items():
        return False
    for expression in selector.get("matchExpressions", []):
        value = labels.get(expression["key"])
        if expression["operator"] == "In" and value not in expression["values"]:
            return False
        if expression["operator"] == "NotIn" and value in expression["values"]:
            return False
    return True


def test_sandbox_pods_are_locked_down(synthed):
    deployment = synthed.one("Deployment", "sandbox")
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert container["command"] == sandbox_command()
    assert pod["automountServiceAccountToken"] is False and pod["enableServiceLinks"] is False
    assert synthed.one("ServiceAccount", "sandbox")["automountServiceAccountToken"] is False
    security = container["securityContext"]
    assert security["readOnlyRootFilesystem"] and security["runAsNonRoot"] and security["runAsUser"] != 0
    assert security["allowPrivilegeEscalation"] is False and security["capabilities"] == {"drop": ["ALL"]}
    assert "env" not in container
    limits = container["resources"]["limits"]
    assert set(limits) == {"cpu", "memory"}
    assert [m["mountPath"] for m in container["volumeMounts"]] == ["/tmp"]
    # Every place a program can write is one the server resets after each run (its scratch):
    # the writable mounts (the first holds the runs' directories), the runtime's /dev/shm, the
    # kubelet's termination-message file.
    writable = [m["mountPath"] for m in container["volumeMounts"] if not m.get("readOnly")]
    message = container.get("terminationMessagePath", "/dev/termination-log")
    assert set(SANDBOX_SCRATCH) == {*writable, "/dev/shm", message} and SANDBOX_SCRATCH[0] == writable[0]
    (tmp,) = pod["volumes"]
    assert tmp["emptyDir"]["sizeLimit"]
    assert deployment["spec"]["replicas"] == synthed.environment.job.rollout.sandboxes
    # The node's default runtime: payload/sandbox/jail.py's docstring and the README say so (no
    # gVisor); a RuntimeClass here changes what they must say.
    assert "runtimeClassName" not in pod


def test_nothing_leaves_a_sandbox_pod_and_only_verifiers_and_workers_reach_it(synthed):
    labels = synthed.one("Deployment", "sandbox")["spec"]["template"]["metadata"]["labels"]
    policies = [p for p in synthed.kind("NetworkPolicy") if _selects(p, labels)]
    assert {p["metadata"]["name"] for p in policies} == {"default-deny", "allow-sandbox"}
    assert not any(p["spec"].get("egress") for p in policies)  # not even DNS
    (rule,) = synthed.one("NetworkPolicy", "allow-sandbox")["spec"]["ingress"]
    callers = {peer["podSelector"]["matchLabels"]["app.kubernetes.io/name"] for peer in rule["from"]}
    assert callers == {"verifier", "rollout-worker"}
    # Those callers are told where it is, and may reach it.
    for caller in callers:
        (container,) = synthed.one("Deployment", caller)["spec"]["template"]["spec"]["containers"]
        assert {"name": "RL_SANDBOX_URL", "value": sandbox_url()} in container["env"]
        egress = synthed.one("NetworkPolicy", f"allow-{caller}")["spec"]["egress"]
        assert any(peer.get("podSelector", {}).get("matchLabels") == {"app.kubernetes.io/name": "sandbox"}
                   for rule in egress for peer in rule["to"])


def test_rollout_workers_read_the_policys_tokenizer_and_verifiers_do_not(synthed):
    """Multi-turn rollouts frame tool replies with the chat template under job.model.path."""
    worker = synthed.one("Deployment", "rollout-worker")["spec"]["template"]["spec"]
    [mount] = [m for m in worker["containers"][0]["volumeMounts"] if m["name"] == "fsx"]
    assert mount["readOnly"] is True and synthed.environment.job.model.path.startswith(mount["mountPath"])
    verifier = synthed.one("Deployment", "verifier")["spec"]["template"]["spec"]
    assert all(v["name"] != "fsx" for v in verifier["volumes"])
