"""dist/acceptance/: the opt-in fabric and serving checks, rendered by every synth, valid against
the vendored JobSet CRD, running the commands tests/payload/accept runs locally."""

import os
import subprocess
import sys
from pathlib import Path

import yaml

from test_k8s_schemas import VALIDATORS

REPO = Path(__file__).resolve().parents[2]


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
        assert deepep["command"][:4] == ["python", "-m", "payload", "accept-deepep"]
        assert deepep["command"][4:] == ["--num-processes", str(deepep["resources"]["requests"]["nvidia.com/gpu"])]
        assert env["RL_REQUIRE_EFA"]["value"] == "1"
        # GIN (GDRCopy's gdrdrv, the GIN driver) only across nodes; inside one DeepEP runs with GIN off.
        pod = objects[f"JobSet/{name}"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
        if expected > 1:
            assert env["RL_REQUIRE_DEEPEP_EFA"]["value"] == "1" and "EP_DISABLE_GIN" not in env
            assert pod["nodeSelector"]["rl.aws/gdrdrv"] == "ready"
        else:
            assert "RL_REQUIRE_DEEPEP_EFA" not in env and env["EP_DISABLE_GIN"]["value"] == "1"
            assert "rl.aws/gdrdrv" not in pod["nodeSelector"]
    smoke, _ = container(objects["JobSet/accept-sglang"])
    assert smoke["command"][:4] == ["python", "-m", "payload", "accept-sglang"]
    assert str(smoke["resources"]["requests"]["nvidia.com/gpu"]) == "1"


def run_as_rendered(container: dict, **overrides: str) -> subprocess.CompletedProcess:
    """The container's command on this machine: its literal env, placeholders for the fields the
    API server fills in, `python` as this interpreter."""
    env = {e["name"]: e.get("value", "0") for e in container["env"]}
    env.update(PATH=os.environ["PATH"], PYTHONPATH=str(REPO), HOME=os.environ.get("HOME", "/tmp"), **overrides)
    command = container["command"]
    assert command[0] == "python"
    return subprocess.run([sys.executable, *command[1:]], env=env, cwd=REPO, capture_output=True, text=True, timeout=300)


def test_the_deepep_jobs_start_here_and_stop_at_the_efa_check_with_one_line(synths):
    # Every process the manifests start also starts in a test with the same command. On this
    # machine (no EFA device) the trainer's start-up check stops it first, with one line.
    objects = acceptance(synths["p5en-48"])
    for name in ("accept-deepep-intranode", "accept-deepep-internode"):
        deepep, _ = container(objects[f"JobSet/{name}"])
        result = run_as_rendered(deepep, HOSTNAME=f"{name}-node-0-0")
        assert result.returncode == 1, result.stderr
        assert result.stderr == (f"error: {name}-node-0-0: no EFA device in /sys/class/infiniband (request "
                                 "vpc.amazonaws.com/efa): its NCCL traffic cannot ride EFA\n")
        assert result.stdout == ""
    # Past the EFA check (as where the check is off), the next stop is DeepEP's test itself:
    # not in this checkout's filesystem, one line again and no traceback.
    result = run_as_rendered(deepep, RL_REQUIRE_EFA="0")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr == ("error: DeepEP's test /opt/deepep/tests/elastic/test_ep.py is not here "
                             "(the image copies DeepEP's tests/ to /opt/deepep/tests)\n")
