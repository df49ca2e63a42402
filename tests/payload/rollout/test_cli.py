"""The serve/rollout/verify command lines: how SGLang is launched, and bad input as one line."""

import subprocess
import sys

import pytest

from spec.job import JobConfig
from payload.rollout.serve import flag_value, passthrough_args, sglang_command
from payload.rollout.sglang_args import server_args
from spec.layout import LayoutError, moe_a2a_backend
from tests.payload.rollout.helpers import REPO, env


def run_cli(*args, timeout=60):
    return subprocess.run([sys.executable, "-m", "payload", *args], env=env(), cwd=REPO, capture_output=True,
                          text=True, timeout=timeout)


def test_sglang_command_follows_the_job_layout():
    job = JobConfig.model_validate({"rollout": {"return_routed_experts": True},
                                    "parallel": {"rollout_tensor_parallel_size": 8, "rollout_expert_parallel_size": 8}})
    command = sglang_command(job, model_path="/fsx/ckpt/hf/12", host="0.0.0.0", port=30000, weight_version="12")
    assert command[1:3] == ["-m", "sglang.launch_server"]
    for flag, value in [("--model-path", "/fsx/ckpt/hf/12"), ("--tokenizer-path", job.model.path), ("--tp-size", "8"),
                        ("--ep-size", "8"), ("--weight-version", "12"), ("--port", "30000")]:
        assert flag_value(command, flag) == value, flag
    assert "--enable-metrics" in command and "--enable-return-routed-experts" in command
    # Expert parallelism inside one node stays on SGLang's NVLink default; no DeepEP.
    assert "--moe-a2a-backend" not in command
    single = sglang_command(JobConfig.model_validate({"parallel": {"rollout_tensor_parallel_size": 8, "rollout_expert_parallel_size": 1}}),
                            model_path="m", host="h", port=1, weight_version="0")
    assert "--moe-a2a-backend" not in single and "--enable-return-routed-experts" not in single


def test_expert_parallelism_across_nodes_uses_deepep_v2_in_hybrid_mode():
    job = JobConfig.model_validate({"parallel": {"rollout_tensor_parallel_size": 16, "rollout_expert_parallel_size": 16}})
    args = server_args(job, model_path="m", host="h", port=1, nodes=2)
    assert flag_value(args, "--moe-a2a-backend") == "deepep_v2" and flag_value(args, "--deepep-v2-mode") == "hybrid"


@pytest.mark.parametrize("tp, ep, nodes, message", [
    (16, 8, 2, "rollout_expert_parallel_size 8 must equal rollout_tensor_parallel_size 16 when a replica spans 2 nodes"),
    (8, 3, 1, "rollout_expert_parallel_size 3 must divide rollout_tensor_parallel_size 8"),
])
def test_layouts_sglang_would_break_are_one_line_errors(tp, ep, nodes, message):
    with pytest.raises(LayoutError, match=message) as info:
        moe_a2a_backend(tp, ep, nodes)
    assert "\n" not in str(info.value)


def test_passthrough_args_start_from_the_newest_export():
    chart = ["--model-path", "/fsx/models/base", "--tp-size", "8", "--weight-version=3", "--port", "30000"]
    out = passthrough_args(chart, model_path="/fsx/ckpt/hf/40", weight_version="40")
    assert flag_value(out, "--model-path") == "/fsx/ckpt/hf/40" and flag_value(out, "--weight-version") == "40"
    assert flag_value(out, "--tokenizer-path") == "/fsx/models/base"  # exports carry no tokenizer
    assert flag_value(out, "--tp-size") == "8" and out.count("--model-path") == 1
    same = passthrough_args(chart, model_path="/fsx/models/base", weight_version="0")
    assert flag_value(same, "--tokenizer-path") is None


def test_serve_exits_when_sglang_does_not_come_up():
    # This machine has no SGLang: the launched server dies at once and `serve` says so.
    result = run_cli("serve", "--engine", "sglang", "--metrics-port", "0", "--", "--model-path", "/nonexistent",
                     "--port", "39999")
    assert result.returncode != 0
    assert "the rollout server did not come up" in result.stderr


@pytest.mark.parametrize("args, message", [
    (["rollout"], "error: --server-url is required (or set $RL_ROUTER_URL)"),
    (["rollout", "--server-url", "http://x", "--concurrency", "0"], "error: --concurrency=0: must be positive"),
    (["verify"], "error: --queue-url is required (or set $RL_QUEUE_URL)"),
    (["verify", "--queue-url", "http://x"], "error: queue url 'http://x'"),
    (["serve", "--engine", "local", "--metrics-port", "0", "--model-path", "/nonexistent"],
     "error: /nonexistent/config.json does not exist"),
    (["serve", "--engine", "local", "--", "--tp-size", "2"], "error: arguments after `--` are for --engine sglang"),
    (["rollout", "--server-url", "http://x", "--job-config", "/nonexistent.yaml"], "error: job config /nonexistent.yaml does not exist"),
    # The default job scores inline: `worker` (no buffer writes, payload/queue/access.py) cannot do its job.
    (["rollout", "--server-url", "http://x", "--queue-url", "rediss://worker@127.0.0.1:1/0"],
     "error: queue url user 'worker' may not write the buffer"),
])
def test_bad_input_is_one_line_and_exit_code_2(args, message):
    result = run_cli(*args)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(message) and result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr


def test_fp8_rollout_is_refused_by_the_embedded_engine(tmp_path):
    job = tmp_path / "job.yaml"
    job.write_text("rollout: {precision: fp8, model_path: /fsx/models/Qwen3-30B-A3B-FP8}\n")
    result = run_cli("serve", "--engine", "local", "--metrics-port", "0", "--job-config", str(job))
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("error: job.rollout.precision fp8 needs --engine sglang") and result.stderr.count("\n") == 1
