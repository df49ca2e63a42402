"""`payload plan --model-config`: the trainer's per-GPU memory and per-link traffic."""

import pytest
import torch

from infra.environment import load_environment
from payload.__main__ import main
from payload.model import Qwen3MoeConfig, Qwen3MoeForCausalLM, tiny_config
from payload.train.costs import ARCHITECTURE_CONFIGS, ARCHITECTURES
from payload.train.footprint import Layout, StepShape, footprint, job_footprint, parameter_counts

def released(name):
    return Qwen3MoeConfig.from_pretrained(ARCHITECTURE_CONFIGS[name])


@pytest.mark.parametrize("config", [tiny_config(), tiny_config(tie_word_embeddings=True), tiny_config(decoder_sparse_step=2),
                                    released("Qwen3-30B-A3B"), released("Qwen3-235B-A22B")])
def test_parameter_counts_are_the_models(config):
    with torch.device("meta"):
        model = Qwen3MoeForCausalLM(config)
    total = sum(p.numel() for p in model.parameters())
    experts = sum(p.numel() for name, p in model.named_parameters() if ".experts." in name)
    assert parameter_counts(config)[:2] == (total, experts)


@pytest.mark.parametrize("name", ["Qwen3-30B-A3B", "Qwen3-235B-A22B"])
def test_the_cost_model_reads_the_same_released_config(name):
    """payload.train.costs (torch-free: publish, checkpoint, export) and the memory model size
    the same model from the same file."""
    assert ARCHITECTURES[name].parameters == parameter_counts(released(name))[0]


def test_sharded_state_and_links_follow_the_layout():
    config, shape = released("Qwen3-235B-A22B"), StepShape(tokens=8 << 20, largest_micro_batch=16384)
    node = footprint(config, Layout(16, 8, expert_parallel=8, shard=8), shape)
    wide = footprint(config, Layout(16, 8, expert_parallel=8, shard=64, per_step_sync=False), shape)
    # 16 B of fp32 state per parameter, over the shard group.
    assert node.memory_gb["AdamW moments fp32 (sharded)"] == pytest.approx(8 * node.params / 8 / 1e9)
    assert wide.memory_total_gb < 141 < node.memory_total_gb  # 235B fits an H200 only sharded over 8 nodes
    assert node.link_gb("EFA") == node.traffic_gb["HSDP gradient all-reduce"][1]  # only HSDP leaves the node
    assert wide.traffic_gb["FSDP gather + reduce-scatter (across nodes)"][0] == "EFA"
    assert node.traffic_gb["EP all-to-all"] == wide.traffic_gb["EP all-to-all"]  # EP stays in the node either way
    cross = footprint(config, Layout(16, 8, expert_parallel=16, shard=16), shape)
    assert cross.traffic_gb["EP all-to-all (across nodes)"][1] > 0


def test_plan_prints_the_footprint_of_a_model_config(capsys):
    assert main(["plan", "--env", "p5en-48", "--model-config", str(ARCHITECTURE_CONFIGS["Qwen3-30B-A3B"])]) == 0
    out = capsys.readouterr().out
    assert main(["plan", "--env", "p5en-48", "--model-config", "Qwen3-30B-A3B"]) == 0  # the same, by name
    assert capsys.readouterr().out.replace("Qwen3-30B-A3B", str(ARCHITECTURE_CONFIGS["Qwen3-30B-A3B"])) == out
    _, _, fp = job_footprint(released("Qwen3-30B-A3B"), load_environment("p5en-48"))
    assert "EP 8, FSDP shard 8, 16 HSDP replica(s)" in out
    assert f"{'total':<44} {fp.memory_total_gb:8.1f} GB" in out
    assert "NVLink total" in out and "EFA total" in out


@pytest.mark.parametrize("content,message", [("{", "not valid JSON"), ('{"model_type": "llama"}', "expected 'qwen3_moe'")])
def test_bad_model_config_is_one_line(tmp_path, capsys, content, message):
    path = tmp_path / "config.json"
    path.write_text(content)
    assert main(["plan", "--env", "p5en-48", "--model-config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and len(err.strip().splitlines()) == 1
