"""Who can reach what in dist/: Redis users, passwords and TLS per role, network paths, and no
AWS credentials or Internet egress for any workload (read back from the YAML)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from conftest import pod_templates
from k8s.charts.buffer import ACCESS_DIR
from k8s.charts.router import ROUTER_ADMIN_KEY_ENV, ROUTER_ADMIN_SECRET
from k8s.charts.tracking import DB_SECRET
from k8s.pods import (
    ACCEPTANCE,
    METRICS_PORT,
    REDIS_PORT,
    REDIS_SECRET,
    ROLLOUT_SERVER,
    ROUTER,
    SGLANG_PORT,
    TRACKING,
    TRAINER,
    buffer_host,
)
from payload.queue.access import CA_CERT, ROLES, WORKER, WORKER_INLINE, probe_command, server_args, worker_role
from payload.queue.cli import DEFAULT_SERVICE_HOST
from payload.queue.url import PASSWORD_FILE_ENV

# component -> the ACL user its pods connect as (payload/queue/access.py); the rollout workers'
# by the job's mode (worker_role).
REDIS_USERS = {"feeder": "feeder", "verifier": "verifier", "trainer": "trainer", "rollout-server": "server"}


def redis_users(job) -> dict[str, str]:
    return {**REDIS_USERS, "rollout-worker": worker_role(job)}


def containers(synthed):
    for doc in synthed.docs:
        for where, template, _ in pod_templates(doc):
            for container in template["spec"]["containers"]:
                yield where, template, container


def env_of(container) -> dict[str, dict]:
    return {e["name"]: e for e in container.get("env", [])}


def mounted_secret_keys(template, container, path: str) -> set[str]:
    """The Secret keys visible at `path` in `container`, as (secret, key) strings."""
    volumes = {v["name"]: v for v in template["spec"].get("volumes", [])}
    keys = set()
    for mount in container.get("volumeMounts", []):
        secret = volumes.get(mount["name"], {}).get("secret")  # volumeClaimTemplates: not in volumes
        if secret and path.startswith(mount["mountPath"] + "/"):
            relative = path[len(mount["mountPath"]) + 1:]
            keys |= {f"{secret['secretName']}/{i['key']}" for i in secret["items"] if i["path"] == relative}
    return keys


def test_every_queue_client_connects_as_its_role_over_tls_with_a_password_file(synthed):
    check_queue_clients(synthed)


def check_queue_clients(synthed) -> None:
    users = redis_users(synthed.environment.job)
    seen = set()
    for where, template, container in containers(synthed):
        env = env_of(container)
        if "RL_QUEUE_URL" not in env:
            continue
        component = template["metadata"]["labels"]["app.kubernetes.io/name"]
        url = urlsplit(env["RL_QUEUE_URL"]["value"])
        assert (url.scheme, url.username, url.password) == ("rediss", users[component], None), where
        assert (url.hostname, url.port) == (buffer_host(), REDIS_PORT)
        (ca,) = parse_qs(url.query)["ssl_ca_certs"]
        assert mounted_secret_keys(template, container, ca) == {f"{REDIS_SECRET}/{CA_CERT}"}, where
        password_file = env[PASSWORD_FILE_ENV]["value"]
        # Only its own role's password is mounted.
        assert mounted_secret_keys(template, container, password_file) == {f"{REDIS_SECRET}/{users[component]}"}
        secret_items = {i["key"] for v in template["spec"]["volumes"] if "secret" in v for i in v["secret"]["items"]}
        assert secret_items == {CA_CERT, users[component]}, where
        seen.add(component)
    assert seen == set(users)
    assert set(REDIS_USERS.values()) | {"monitor", WORKER, WORKER_INLINE} == set(ROLES)


def test_no_secret_value_is_in_an_argument_or_a_payload_environment_variable(synthed):
    for where, _, container in containers(synthed):
        words = " ".join(container.get("command", []) + container.get("args", []))
        assert "$(" not in words.replace("$(LWS_", ""), where  # no Secret-backed variable expanded into argv
        for name, variable in env_of(container).items():
            ref = variable.get("valueFrom", {}).get("secretKeyRef")
            if ref:  # the exceptions: redis_exporter and the MLflow server's libpq read a password from their
                # environment, the router's launch program its control-plane key (k8s/charts/router.py)
                assert (container["name"], name, (ref["name"], ref["key"])) in {
                    ("exporter", "REDIS_PASSWORD", (REDIS_SECRET, "monitor")),
                    (TRACKING, "PGPASSWORD", (DB_SECRET, "password")),
                    (ROUTER, ROUTER_ADMIN_KEY_ENV, (ROUTER_ADMIN_SECRET, "key")),
                }, where


def test_redis_serves_tls_only_with_the_acl_file_and_probes_as_monitor(synthed):
    statefulset = synthed.one("StatefulSet", "buffer")
    template = statefulset["spec"]["template"]
    redis, exporter = template["spec"]["containers"]
    args = redis["args"]
    access = server_args(ACCESS_DIR, REDIS_PORT)
    assert args[-len(access):] == access  # what tests/payload/queue/test_redis_access.py starts
    assert "env" not in redis
    assert redis["readinessProbe"]["exec"]["command"] == probe_command(ACCESS_DIR, REDIS_PORT)
    flags = dict(zip(args[::2], args[1::2]))
    for flag in ("--tls-cert-file", "--tls-key-file", "--tls-ca-cert-file", "--aclfile"):
        assert mounted_secret_keys(template, redis, flags[flag]), flag
    assert flags["--port"] == "0"  # no plaintext listener
    assert mounted_secret_keys(template, redis, f"{ACCESS_DIR}/monitor") == {f"{REDIS_SECRET}/monitor"}
    env = env_of(exporter)
    assert env["REDIS_ADDR"]["value"].startswith("rediss://localhost:") and env["REDIS_USER"]["value"] == "monitor"
    assert mounted_secret_keys(template, exporter, env["REDIS_EXPORTER_TLS_CA_CERT_FILE"]["value"]) == {f"{REDIS_SECRET}/{CA_CERT}"}


def test_the_certificate_names_the_host_the_pods_use():
    assert DEFAULT_SERVICE_HOST == buffer_host()


def test_no_workload_has_egress_outside_the_cluster(synthed):
    # Except the MLflow server, to S3 and the Pod Identity agent (tests/k8s/test_k8s_tracking.py).
    for policy in synthed.kind("NetworkPolicy"):
        if policy["metadata"]["name"] == f"allow-{TRACKING}":
            continue
        for rule in policy["spec"].get("egress", []):
            assert all("ipBlock" not in peer for peer in rule["to"]), policy["metadata"]["name"]


def test_sglangs_port_is_reachable_only_from_the_router_the_trainer_and_its_own_group(synthed):
    policy = synthed.one("NetworkPolicy", f"allow-{ROLLOUT_SERVER}")
    for rule in policy["spec"]["ingress"]:
        ports = {p["port"] for p in rule.get("ports", [])}
        for peer in rule["from"]:
            if "namespaceSelector" in peer:  # Prometheus
                assert ports == {METRICS_PORT}
            else:
                component = peer["podSelector"]["matchLabels"]["app.kubernetes.io/name"]
                assert component in {ROUTER, TRAINER, ACCEPTANCE, ROLLOUT_SERVER}
                assert not ports or SGLANG_PORT in ports
    monitor = synthed.one("ServiceMonitor", ROLLOUT_SERVER)
    assert [e["port"] for e in monitor["spec"]["endpoints"]] == ["metrics"]
    service = synthed.one("Service", f"{ROLLOUT_SERVER}-metrics")
    assert [p["port"] for p in service["spec"]["ports"]] == [METRICS_PORT]


def test_pods_that_handle_model_output_have_their_own_service_accounts(synthed):
    accounts = {}
    for where, template, _ in containers(synthed):
        accounts[template["metadata"]["labels"]["app.kubernetes.io/name"]] = template["spec"]["serviceAccountName"]
    assert accounts["rollout-worker"] == "rollout-worker" and accounts["verifier"] == "verifier"
    assert len(set(accounts.values())) == len(accounts)  # one identity per component


def test_queue_clients_use_the_key_prefix_the_acl_file_grants(synthed):
    """redis-access writes key patterns for the `rl` prefix (its --namespace default); no pod may
    use another prefix, or every command would be refused."""
    import argparse

    from payload.queue.cli import register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    granted = parser.parse_args(["redis-access", "--out", "x"]).namespace
    for where, _, container in containers(synthed):
        if "RL_QUEUE_URL" in env_of(container):
            words = container.get("command", []) + container.get("args", [])
            used = words[words.index("--namespace") + 1] if "--namespace" in words else "rl"
            assert used == granted, where


def test_a_job_scored_by_the_verifiers_gives_its_workers_the_user_without_buffer_writes(tmp_path_factory, synths):
    """rollout.inline_verifier: false renders `worker` (payload/queue/access.py refuses it the
    buffer); the environments' jobs score inline and render `worker-inline`."""
    import yaml

    from estimate.checks import load_environment
    from k8s.main import synth
    from spec.environment import ENVIRONMENTS_DIR
    from tests.k8s.conftest import Synth

    data = yaml.safe_load((ENVIRONMENTS_DIR / "default.yaml").read_text())
    data["name"] = "verifiers-score"
    data["job"].setdefault("rollout", {})["inline_verifier"] = False
    folder = tmp_path_factory.mktemp("verifiers-score")
    path = folder / "verifiers-score.yaml"
    path.write_text(yaml.safe_dump(data))
    note = synth(str(path), folder / "no-outputs.json", folder / "dist")
    scored_elsewhere = Synth(load_environment(str(path)), folder / "dist", note)
    assert redis_users(scored_elsewhere.environment.job)["rollout-worker"] == WORKER
    check_queue_clients(scored_elsewhere)
    for synthed in synths.values():
        assert redis_users(synthed.environment.job)["rollout-worker"] == WORKER_INLINE
        check_queue_clients(synthed)
