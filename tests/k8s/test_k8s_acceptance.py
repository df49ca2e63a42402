"""dist/acceptance/: the opt-in fabric and serving checks, rendered by every synth, valid against
the vendored JobSet CRD, running the commands tests/payload/accept runs locally."""

import yaml

from test_k8s_schemas import VALIDATORS


def acceptance(synthed) -> dict[str, dict]:
    docs = [d for p in sorted((synthed.dist / "acceptance").glob("*.k8s.yaml")) for d in yaml.safe_load_all(p.read_text())]
    return {f"{d['kind']}/{d['metadata']['name']}": d for d in docs if d}


def container(jobset: dict) -> tuple[dict, int]:
    [job] = jobset["spec"]["replicatedJobs"]
    return job["template"]["spec"]["template"]["spec"]["containers"][0], job["template"]["spec"]["completions"]


def test_acceptance_jobsets_validate_and_stay_out_of_plain_apply(synthed):
    objects = acceptance(synthed)
    assert set(objects) == {"JobSet/accept-nccl", "JobSet/accept-deepep-intranode", "JobSet/accept-deepep-internode",
                            "JobSet/accept-sglang", "NetworkPolicy/allow-acceptance"}
    for name, doc in objects.items():
        if doc["kind"] == "JobSet":
            errors = list(VALIDATORS[(doc["apiVersion"], "JobSet")].iter_errors(doc))
            assert not errors, f"{name}: {errors[0].message}"
    assert not any("accept" in p.read_text() for p in synthed.files if "rollout" not in p.name)


def test_acceptance_commands_and_sizes(synthed):
    objects = acceptance(synthed)
    train_nodes = synthed.environment.pools.train.desired_size
    nccl, nodes = container(objects["JobSet/accept-nccl"])
    assert nodes == train_nodes and f"--nnodes={train_nodes}" in nccl["command"]
    assert nccl["command"][-4:] == ["payload", "accept-nccl", "--min-busbw-gbs", "300"]
    for name, expected in (("accept-deepep-intranode", 1), ("accept-deepep-internode", 2)):
        deepep, nodes = container(objects[f"JobSet/{name}"])
        env = {e["name"]: e for e in deepep["env"]}
        assert nodes == expected and env["WORLD_SIZE"]["value"] == str(expected)
        assert "job-completion-index" in env["RANK"]["valueFrom"]["fieldRef"]["fieldPath"]
        assert "tests/elastic/test_ep.py" in deepep["command"][-1]
        assert env["RL_REQUIRE_EFA"]["value"] == "1"
        assert env["RL_REQUIRE_DEEPEP_EFA"]["value"] == "1"  # DeepEP v2 needs GIN (GDRCopy) inside a node too
    smoke, _ = container(objects["JobSet/accept-sglang"])
    assert smoke["command"][:4] == ["python", "-m", "payload", "accept-sglang"]
    assert str(smoke["resources"]["requests"]["nvidia.com/gpu"]) == "1"
