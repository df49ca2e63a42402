"""estimate/engine_fit.py and the rollout layouts estimate/layout.py chooses: each model is
served with the layout the planner picks, and a set one that cannot hold its weights and a
group's KV cache is refused naming the field."""

from pathlib import Path

import pytest
import yaml

from estimate.checks import load_environment, parse_environment
from cluster.gpu_pods import RolloutPods
from payload.__main__ import main
from estimate.engine_fit import engine_fit, kv_bytes_per_token
from spec.environment import EnvironmentFileError
from estimate.throughput import estimate_rates
from spec.model_shape import Qwen3MoeConfig
from payload.rollout.sglang_args import server_args
from spec.model_shape import ARCHITECTURE_CONFIGS

P5EN_48 = Path(__file__).resolve().parents[2] / "environments" / "p5en-48.yaml"
MODELS = ["Qwen3-30B-A3B", "Qwen3-235B-A22B"]


def config_of(name):
    return Qwen3MoeConfig.from_pretrained(ARCHITECTURE_CONFIGS[name])


def p5en_48(edit=lambda data: None):
    data = yaml.safe_load(P5EN_48.read_text())
    edit(data)
    return parse_environment(data, "p5en-48 (edited)")


def serving(model):
    def edit(data):
        data["job"]["model"]["path"] = f"/fsx/models/{model}"
        data["storage"]["fsx_storage_gib"] = 14400  # the 235B's checkpoints (p5en-48.yaml's storage note)
    return edit


@pytest.mark.parametrize("model", MODELS)
def test_the_shipped_environment_serves_each_model_with_the_layout_the_planner_picks(model):
    env = load_environment("p5en-48", model=model)
    estimate = estimate_rates(env)
    servers = env.layout.servers
    assert servers.tensor_parallel == estimate.engine.tensor_parallel
    assert servers.expert_parallel == estimate.engine.tensor_parallel  # EP = TP inside a replica
    job = env.job
    assert engine_fit(config_of(model), tensor_parallel=servers.tensor_parallel,
                      precision=job.rollout.precision, gpu_memory_gb=env.pools.rollout.spec.gpu_memory_gb,
                      group_size=job.algorithm.group_size, max_prompt_tokens=job.batch.max_prompt_tokens,
                      max_response_tokens=job.batch.max_response_tokens).fits


def test_a_job_of_the_235b_runs_its_own_rollout_layout_on_the_cluster():
    env = p5en_48(serving("Qwen3-235B-A22B"))
    rollout = RolloutPods.of(env)
    assert (rollout.tensor_parallel, rollout.expert_parallel, rollout.replicas, rollout.pods_per_node) == (8, 8, 32, 1)
    args = server_args(env.job, model_path="/fsx/models/Qwen3-235B-A22B", host="0.0.0.0", port=30000)
    assert args[args.index("--tp-size") + 1] == "8" and args[args.index("--ep-size") + 1] == "8"
    # The 30B (the shipped job) keeps job.parallel's TP 4, two replicas a node.
    thirty = RolloutPods.of(load_environment("p5en-48"))
    assert (thirty.tensor_parallel, thirty.replicas, thirty.pods_per_node) == (4, 64, 2)


def test_235b_at_tp4_in_bf16_is_refused_naming_the_field_and_the_numbers():
    def tp4(data):
        serving("Qwen3-235B-A22B")(data)
        data["job"]["parallel"] |= {"rollout_tensor_parallel_size": 4, "rollout_expert_parallel_size": 4}
    with pytest.raises(EnvironmentFileError) as err:
        p5en_48(tp4)
    message = str(err.value)
    assert message.startswith("p5en-48 (edited): job.parallel.rollout_tensor_parallel_size 4: Qwen3-235B-A22B does not fit")
    assert "117.5 GB of bf16 weights" in message and "KV for 47,855 tokens" in message
    assert "one group needs 264,192" in message and "use 8" in message and "fp8" in message


def test_plan_refuses_an_engine_that_does_not_fit_in_one_line(tmp_path, capsys):
    data = yaml.safe_load(P5EN_48.read_text())
    data["job"]["parallel"] |= {"rollout_tensor_parallel_size": 2, "rollout_expert_parallel_size": 2}
    path = tmp_path / "p5en-48-tp2.yaml"
    path.write_text(yaml.safe_dump(data))
    assert main(["plan", "--env", str(path), "--model-config", "Qwen3-235B-A22B"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "rollout_tensor_parallel_size 2" in err and "Traceback" not in err


def test_fp8_rollouts_halve_the_weights_and_let_235b_fit_tp4():
    c = config_of("Qwen3-235B-A22B")
    kwargs = dict(tensor_parallel=4, gpu_memory_gb=141, group_size=16, max_prompt_tokens=2048, max_response_tokens=16384)
    bf16, fp8 = engine_fit(c, precision="bf16", **kwargs), engine_fit(c, precision="fp8", **kwargs)
    assert not bf16.fits and fp8.fits
    assert 0.5 < fp8.weights_gb_per_gpu / bf16.weights_gb_per_gpu < 0.51  # linears at a byte, the rest bf16
    room = 0.85 * 141e9 - fp8.weights_gb_per_gpu * 1e9
    assert fp8.kv_capacity_tokens == int(room / kv_bytes_per_token(c, 4))


def test_each_model_gets_its_own_layout_from_the_same_file():
    assert load_environment("p5en-48", model="Qwen3-30B-A3B").layout.servers.tensor_parallel == 4
    big = load_environment("p5en-48", model="Qwen3-235B-A22B").layout
    assert big.servers.tensor_parallel == 8
    # ...and its trainer sizes too.
    assert big.trainer.pipeline == 16 and big.trainer.shard == 8  # PP 16 x EP 8 x FSDP 8: every resident byte counted, fragmentation as measured


def test_a_rollout_ep_not_dividing_the_chosen_tp_is_refused():
    def bad(data):
        serving("Qwen3-235B-A22B")(data)
        data["job"]["parallel"]["rollout_expert_parallel_size"] = 3
    with pytest.raises(EnvironmentFileError) as err:
        p5en_48(bad)
    assert "job.parallel.rollout_expert_parallel_size 3 must divide rollout_tensor_parallel_size 8" in str(err.value)


def test_sglang_defaults_are_the_pinned_releases_and_the_planner_renders_its_own_fit():
    """SGLang 0.5.23 (srt/arg_groups/memory_hook.py) captures decode graphs up to 512 at TP >= 4
    and 256 below on both an H100 and an H200; the planner renders its fitted batch instead, and
    never a larger memory share than SGLang's own default for that graph."""
    from estimate.engine_fit import sglang_decode_graph_max_bs, sglang_mem_fraction_static
    from estimate.throughput import Assumptions, server_flags

    for memory in (80, 141):
        assert [sglang_decode_graph_max_bs(memory, t) for t in (1, 2, 4, 8)] == [256, 256, 512, 512]
    assert sglang_decode_graph_max_bs(40, 8) == 160 and sglang_decode_graph_max_bs(192, 1) == 512
    # 512 + 1.5 x 8192 + TP/8 GiB + 2 MiB a graph batch, of the GPU's MiB.
    assert sglang_mem_fraction_static(141, 4, 512) == round(1 - (512 + 12288 + 512 + 1024) / (141e9 / 2**20), 3) == 0.893
    assert sglang_mem_fraction_static(80, 4, 512) == 0.812
    env = load_environment("p5en-48")
    flags = server_flags(env)
    assert (flags.max_running_requests, flags.cuda_graph_max_bs, flags.mem_fraction_static) == (513, 513, 0.85)
    # The same replica held to SGLang's default graph decodes its 513th request's steps eagerly.
    fitted = estimate_rates(env).engine
    capped = estimate_rates(env, a=Assumptions(cuda_graph_max_bs=512)).engine
    assert fitted.batch == capped.batch == 513 and capped.graph_max_bs == 512
    assert capped.decode_step_s == pytest.approx(fitted.decode_step_s + Assumptions().eager_decode_overhead_s)
    # On an H100 SGLang's own share (0.81 for TP 4) is below the assumed 0.85: the planner takes it.
    nemo = load_environment("bench/environments/nemo-rl-qwen3-30b.yaml")
    assert server_flags(nemo).mem_fraction_static < 0.85
