"""What synth does with its inputs: cdk-outputs.json (absent, real, malformed, another
environment's), the job section (rendered into the ConfigMap, bad values named), and the
CLI's one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from spec.environment import ENVIRONMENTS_DIR, EnvironmentFileError
from estimate.checks import load_environment
from k8s.main import synth
from cluster.outputs import ARTIFACTS_ENDPOINT_OUTPUT, OUTPUT_KEYS, OutputsError, load_outputs
from cluster.placement import PlacementError
from tests.k8s.conftest import lws_replicas
from spec.job import JOB_CONFIG_PATH, parse_job_config

REPO = Path(__file__).resolve().parents[2]

REAL_OUTPUTS = {
    "EnvironmentName": "default",
    "Region": "us-east-2",
    "ClusterName": "moe-rl-default",
    "FsxFileSystemId": "fs-0123456789abcdef0",
    "FsxMountName": "abcdefgh",
    "FsxDnsName": "fs-0123456789abcdef0.fsx.us-east-2.amazonaws.com",
    "BucketName": "moe-rl-default-artifacts",
    "EcrRepositoryUri": "111122223333.dkr.ecr.us-east-2.amazonaws.com/moe-rl",
    # The job runs its MLflow server: its S3 interface endpoint's regional name (CloudFormation's DnsEntries form).
    "ArtifactsEndpointDnsName": "*.vpce-0123456789abcdef0-abcdefgh.s3.us-east-2.vpce.amazonaws.com",
}


def _write(path: Path, data) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


@pytest.fixture(scope="module")
def default_env():
    return load_environment("default")


def test_real_outputs_reach_the_manifests(tmp_path):
    outputs = _write(tmp_path / "cdk-outputs.json", {"MoeRl-default": REAL_OUTPUTS})
    dist = tmp_path / "dist"
    assert synth("default", outputs, dist) is None
    base = list(yaml.safe_load_all((dist / "0000-base.k8s.yaml").read_text()))
    (volume,) = [doc for doc in base if doc["kind"] == "PersistentVolume"]
    csi = volume["spec"]["csi"]
    assert csi["driver"] == "fsx.csi.aws.com" and csi["volumeHandle"] == REAL_OUTPUTS["FsxFileSystemId"]
    assert csi["volumeAttributes"] == {"dnsname": REAL_OUTPUTS["FsxDnsName"], "mountname": REAL_OUTPUTS["FsxMountName"]}
    text = "".join(path.read_text() for path in dist.glob("*.yaml"))
    assert "placeholder" not in text
    assert f"image: {REAL_OUTPUTS['EcrRepositoryUri']}:0.1.0" in text
    (config,) = [doc for doc in base if doc["kind"] == "ConfigMap"]
    job = parse_job_config(yaml.safe_load(config["data"]["job.yaml"]), "job.yaml")
    assert job.images.payload == f"{REAL_OUTPUTS['EcrRepositoryUri']}:0.1.0"
    (mlflow,) = [doc for doc in yaml.safe_load_all((dist / "0011-tracking.k8s.yaml").read_text())
                 if doc["kind"] == "Deployment"]
    env = {e["name"]: e.get("value") for e in mlflow["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["MLFLOW_S3_ENDPOINT_URL"] == "https://bucket.vpce-0123456789abcdef0-abcdefgh.s3.us-east-2.vpce.amazonaws.com"


def test_job_configmap_round_trips_and_is_mounted_where_the_payload_reads(synths):
    for synthed in synths.values():
        config = synthed.one("ConfigMap", "rl-job")
        job = parse_job_config(yaml.safe_load(config["data"]["job.yaml"]), "job.yaml")
        expected = synthed.environment.job.model_dump()
        expected["images"] = job.images.model_dump()  # only `{ecr}` was resolved
        assert job.model_dump() == expected
        worker = synthed.one("Deployment", "rollout-worker")["spec"]["template"]["spec"]
        (mount,) = [m for m in worker["containers"][0]["volumeMounts"] if m["name"] == "job-config"]
        (volume,) = [v for v in worker["volumes"] if v["name"] == "job-config"]
        assert f"{mount['mountPath']}/{volume['configMap']['items'][0]['path']}" == JOB_CONFIG_PATH


def test_absent_outputs_give_placeholders_and_a_note(tmp_path, default_env):
    outputs, note = load_outputs(tmp_path / "cdk-outputs.json", default_env)
    assert outputs.placeholders and "placeholder" in outputs.fsx_file_system_id
    assert "cdk-outputs.json not found" in note and "make deploy ENV=default" in note
    # Never `npx cdk deploy`: it skips the deploy guard (infra/deploy_guard.py).
    assert "npx" not in note


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "cdk-outputs.json: not valid JSON"),
        ("[1, 2]", "expected an object keyed by stack name"),
        ({"MoeRl-default": "x"}, "MoeRl-default: expected an object"),
        ({"MoeRl-p5en-48": {**REAL_OUTPUTS, "EnvironmentName": "p5en-48"}}, "has outputs for MoeRl-p5en-48, not for MoeRl-default"),
        ({"MoeRl-default": {k: v for k, v in REAL_OUTPUTS.items() if k != "FsxMountName"}}, "missing output(s) FsxMountName"),
        ({"MoeRl-default": {**REAL_OUTPUTS, "Region": "us-west-2"}}, "Region is 'us-west-2' but the environment says 'us-east-2'"),
    ],
)
def test_unusable_outputs_are_clear_errors(tmp_path, default_env, content, message):
    path = _write(tmp_path / "cdk-outputs.json", content)
    with pytest.raises(OutputsError, match=None) as error:
        load_outputs(path, default_env)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_every_output_key_is_required(tmp_path, default_env):
    assert default_env.job.tracking.server  # so its endpoint's name is required too
    for key in (*OUTPUT_KEYS, ARTIFACTS_ENDPOINT_OUTPUT):
        path = _write(tmp_path / "o.json", {"MoeRl-default": {k: v for k, v in REAL_OUTPUTS.items() if k != key}})
        with pytest.raises(OutputsError, match=key):
            load_outputs(path, default_env)


def _environment_with(tmp_path: Path, **job_overrides) -> Path:
    data = yaml.safe_load((ENVIRONMENTS_DIR / "default.yaml").read_text())
    for dotted, value in job_overrides.items():
        node = data["job"]
        *parents, leaf = dotted.split("__")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    path = tmp_path / "env.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize(
    "overrides, error, field",
    [
        ({"images__payload": "{ecr}:latest"}, EnvironmentFileError, "job.images.payload"),
        ({"images__router": "lmsysorg/sgl-model-gateway"}, EnvironmentFileError, "job.images.router"),
        ({"rollout__workers": 0}, EnvironmentFileError, "job.rollout.workers"),
        # What the data check can know without reading a file: make manifests refuses it.
        # (the built-in names; a test that imported a site verifier into this process adds its own)
        ({"data__verifier": "judge"}, EnvironmentFileError, "job.data.verifier: verifier 'judge': not one of code, exact_match"),
        ({"data__train": "/fsx/datasets/math/train.csv"}, EnvironmentFileError,
         "job.data.train.path: /fsx/datasets/math/train.csv: unsupported file type '.csv'"),
        ({"checkpoint__max_restarts": -1}, EnvironmentFileError, "job.checkpoint.max_restarts"),
        ({"rollout__replicas": 3}, EnvironmentFileError, "unknown key 'replicas' in job.rollout (known keys: "),
        ({"parallel__expert_parallel_size": 5, "parallel__data_parallel_shard_size": None}, EnvironmentFileError,
         "job.parallel.expert_parallel_size"),
        # A replica's own rules are checked where the layout is resolved (spec.layout, at load)...
        (
            {"parallel__rollout_tensor_parallel_size": 3, "parallel__rollout_expert_parallel_size": 1},
            EnvironmentFileError,
            "job.parallel.rollout_tensor_parallel_size",
        ),
        # ...how replicas fill the pool where pods are placed: 3 nodes a replica do not divide the 2 rollout nodes.
        ({"parallel__rollout_tensor_parallel_size": 24, "parallel__rollout_expert_parallel_size": 24}, PlacementError,
         "pools.rollout.desired_size"),
        (
            {"parallel__rollout_tensor_parallel_size": 8, "parallel__rollout_expert_parallel_size": 3},
            EnvironmentFileError,
            "job.parallel.rollout_expert_parallel_size",
        ),
    ],
)
def test_bad_job_config_names_the_field(tmp_path, overrides, error, field):
    path = _environment_with(tmp_path, **overrides)
    with pytest.raises(error) as raised:
        synth(str(path), tmp_path / "absent.json", tmp_path / "dist")
    assert field in str(raised.value) and "\n" not in str(raised.value)


def test_small_tensor_parallel_packs_replicas_per_node(tmp_path):
    path = _environment_with(
        tmp_path, parallel__rollout_tensor_parallel_size=4, parallel__rollout_expert_parallel_size=4
    )
    dist = tmp_path / "dist"
    synth(str(path), tmp_path / "absent.json", dist)
    (lws,) = yaml.safe_load_all((dist / "0003-rollout-servers.k8s.yaml").read_text().split("---")[0])
    # 2 rollout nodes x 8 GPUs / 4 per replica.
    assert lws_replicas(lws) == 4 and lws["spec"]["leaderWorkerTemplate"]["size"] == 1
    requests = lws["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"][0]["resources"]["requests"]
    assert requests["nvidia.com/gpu"] == 4 and requests["vpc.amazonaws.com/efa"] == 8


def test_multi_node_replicas_get_a_leader_template(tmp_path):
    path = _environment_with(tmp_path, parallel__rollout_tensor_parallel_size=16, parallel__rollout_expert_parallel_size=16)
    data = yaml.safe_load(path.read_text())
    data["pools"]["rollout"]["desired_size"] = 4
    path.write_text(yaml.safe_dump(data))
    dist = tmp_path / "dist"
    synth(str(path), tmp_path / "absent.json", dist)
    (lws, *_) = yaml.safe_load_all((dist / "0003-rollout-servers.k8s.yaml").read_text())
    template = lws["spec"]["leaderWorkerTemplate"]
    assert lws_replicas(lws) == 2 and template["size"] == 2
    leader, worker = template["leaderTemplate"]["spec"]["containers"][0], template["workerTemplate"]["spec"]["containers"][0]
    assert "readinessProbe" in leader and "readinessProbe" not in worker
    assert leader["command"][leader["command"].index("--node-rank") + 1] == "$(LWS_WORKER_INDEX)"
    assert "--dist-init-addr" in worker["command"] and "--nnodes" in worker["command"]


def _cli(*, env_name: str, outputs: Path, outdir: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "RL_ENV": env_name, "RL_CDK_OUTPUTS": str(outputs), "CDK8S_OUTDIR": str(outdir)}
    return subprocess.run([sys.executable, "-m", "k8s.main"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)


def test_cli_errors_are_one_line_with_exit_code_2(tmp_path):
    outputs = _write(tmp_path / "cdk-outputs.json", {"MoeRl-p5en-48": {**REAL_OUTPUTS, "EnvironmentName": "p5en-48"}})
    result = _cli(env_name="default", outputs=outputs, outdir=tmp_path / "dist")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("error: cdk-outputs.json: has outputs for MoeRl-p5en-48")
    unknown = _cli(env_name="nope", outputs=outputs, outdir=tmp_path / "dist")
    assert unknown.returncode == 2 and "unknown environment 'nope'" in unknown.stderr
    assert not (tmp_path / "dist").exists()
