"""Which pods carry DeepEP's settings: a multi-node rollout replica (SGLang's deepep_v2 backend)
gets the host check, the GIN variables and DeepEP's switch for its import-time NCCL check; a
one-node replica gets none of the DeepEP-only ones."""

from __future__ import annotations

import yaml

from k8s.charts.efa import GIN_ENV, SGLANG_DEEPEP_ENV
from k8s.main import synth
from tests.k8s.test_k8s_inputs import _environment_with


def server_envs(tmp_path, tp: int, nodes: int) -> list[dict]:
    path = _environment_with(tmp_path, parallel__rollout_tensor_parallel_size=tp, parallel__rollout_expert_parallel_size=tp)
    data = yaml.safe_load(path.read_text())
    data["pools"]["rollout"]["desired_size"] = nodes
    path.write_text(yaml.safe_dump(data))
    synth(str(path), tmp_path / "absent.json", tmp_path / "dist")
    (lws, *_) = yaml.safe_load_all((tmp_path / "dist" / "0003-rollout-servers.k8s.yaml").read_text())
    templates = [t for key, t in lws["spec"]["leaderWorkerTemplate"].items() if key.endswith("Template")]
    return [{e["name"]: e.get("value") for e in t["spec"]["containers"][0]["env"]} for t in templates]


def test_a_replica_spanning_nodes_carries_deepeps_settings(tmp_path):
    envs = server_envs(tmp_path, tp=16, nodes=4)
    assert len(envs) == 2  # leader and worker
    for env in envs:
        assert env["RL_REQUIRE_DEEPEP_EFA"] == "1"
        assert {name: env[name] for name, _, _ in GIN_ENV} == {name: value for name, value, _ in GIN_ENV}
        assert {name: env[name] for name, _, _ in SGLANG_DEEPEP_ENV} == {name: value for name, value, _ in SGLANG_DEEPEP_ENV}


def test_a_one_node_replica_carries_none_of_deepeps_own_settings(tmp_path):
    [env] = server_envs(tmp_path, tp=8, nodes=2)
    assert "RL_REQUIRE_DEEPEP_EFA" not in env and "EP_SUPPRESS_NCCL_CHECK" not in env
