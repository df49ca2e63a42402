"""The layout follows the model's own config.json, not its folder's name (estimate/layout.py)."""

import shutil

import pytest

from estimate.footprint import FIT_FRACTION
import yaml

from estimate.checks import parse_environment
from spec.environment import ENVIRONMENTS_DIR, EnvironmentFileError
from spec.layout import auto_sizes
from spec.model_shape import ARCHITECTURE_CONFIGS

# Room for 235B's checkpoints, so only the layout decides (estimate/checks.py sizes FSx).
STORAGE = {"fsx_storage_gib": 14400, "fsx_throughput_mb_s_per_tib": 1000}


def p5en_48(model: dict, parallel: dict | None = None) -> dict:
    data = yaml.safe_load((ENVIRONMENTS_DIR / "p5en-48.yaml").read_text())
    data["storage"] = STORAGE
    data["job"]["model"] = model
    data["job"]["parallel"] = parallel or {}
    return data


@pytest.mark.parametrize("release, folder, trainer, servers", [
    ("Qwen3-235B-A22B", "qwen3-235b-sft", "PP 16 x EP 8 x FSDP 8 x 1 repl", (8, 8)),  # every resident byte counted (estimate.footprint), fragmentation as measured: PP 8 x FSDP 16 models over the line
    ("Qwen3-30B-A3B", "my-30b-grpo", "PP 1 x EP 8 x FSDP 128 x 1 repl", (4, 4)),
])
def test_a_released_config_in_a_folder_of_any_name_gets_its_own_layout(tmp_path, release, folder, trainer, servers):
    checkpoint = tmp_path / folder
    checkpoint.mkdir()
    shutil.copy(ARCHITECTURE_CONFIGS[release], checkpoint / "config.json")
    env = parse_environment(p5en_48({"path": str(checkpoint)}), "p5en-48.yaml")
    assert env.layout.model == folder
    assert env.layout.trainer.describe() == trainer
    assert (env.layout.servers.tensor_parallel, env.layout.servers.expert_parallel) == servers
    # What the pods are given: every size a number (the ConfigMap the trainer reads).
    assert not auto_sizes(env.job.parallel) and env.job.parallel.pipeline_parallel_size == int(trainer.split()[1])


def test_a_fine_tune_named_by_its_release_gets_the_release_layout():
    env = parse_environment(p5en_48({"path": "/fsx/models/Qwen3-235B-A22B-Instruct-2507",
                                     "architecture": "Qwen3-235B-A22B"}), "p5en-48.yaml")
    assert env.layout.trainer.pipeline == 16 and env.layout.servers.tensor_parallel == 8


def test_a_folder_with_no_readable_config_names_the_field():
    with pytest.raises(EnvironmentFileError, match=r"job.model.path '/fsx/models/my-sft': 'my-sft' is not a released "
                                                   r"model .* set job.model.architecture"):
        parse_environment(p5en_48({"path": "/fsx/models/my-sft"}), "p5en-48.yaml")


def test_an_explicit_layout_that_does_not_fit_is_refused_in_one_line():
    data = p5en_48({"path": "/fsx/models/Qwen3-235B-A22B"},
                   {"pipeline_parallel_size": 1, "expert_parallel_size": 8, "data_parallel_shard_size": 8,
                    "sync_gradients_every_micro_batch": False})
    with pytest.raises(EnvironmentFileError) as error:
        parse_environment(data, "p5en-48.yaml")
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith("p5en-48.yaml: job.parallel: Qwen3-235B-A22B needs ")
    assert "GB a GPU under PP 1 x EP 8 x FSDP 8 x 16 repl" in message
    assert f"{FIT_FRACTION * 141:.1f} GB that fit ({FIT_FRACTION:.0%} of a 141 GB GPU)" in message


def test_an_explicit_rollout_tp_that_does_not_fit_names_the_one_that_does():
    data = p5en_48({"path": "/fsx/models/Qwen3-235B-A22B"}, {"rollout_tensor_parallel_size": 4})
    with pytest.raises(EnvironmentFileError, match=r"job.parallel.rollout_tensor_parallel_size 4: Qwen3-235B-A22B does "
                                                   r"not fit one replica on p5en.48xlarge .* use 8"):
        parse_environment(data, "p5en-48.yaml")


def test_set_sizes_are_kept_and_the_rest_chosen():
    env = parse_environment(p5en_48({"path": "/fsx/models/Qwen3-30B-A3B"}, {"data_parallel_shard_size": 8}),
                            "p5en-48.yaml")
    assert (env.layout.trainer.shard, env.layout.trainer.expert_parallel) == (8, 8)
