"""The cost model's shape arithmetic against a real model, and the timeouts it derives."""

import torch

from payload.model import Qwen3MoeForCausalLM, iter_hf_tensors, tiny_config
from payload.train.costs import ARCHITECTURES, Architecture, Timeouts, model_costs


def test_parameter_and_tensor_counts_match_the_model():
    config = tiny_config(vocab_size=96, num_hidden_layers=3)
    with torch.device("meta"):
        model = Qwen3MoeForCausalLM(config)
    arch = Architecture.of_hf_config(config.to_hf_dict())  # what the cost model reads from config.json
    assert arch.parameters == sum(p.numel() for p in model.parameters())
    assert arch.tensors == sum(1 for _ in iter_hf_tensors(model))


def test_released_models_have_their_published_sizes():
    assert round(ARCHITECTURES["Qwen3-30B-A3B"].parameters / 1e9, 1) == 30.5
    assert round(ARCHITECTURES["Qwen3-235B-A22B"].parameters / 1e9, 1) == 235.1


def test_timeouts_follow_the_checkpoint_write():
    arch = ARCHITECTURES["Qwen3-30B-A3B"]
    fast = Timeouts.from_costs(model_costs(arch, train_nodes=16, fsx_storage_gib=4800, fsx_mb_s_per_tib=1000, keep_last=3))
    # 366 GB at 4.69 GB/s = 78 s: a SIGTERM save fits the default grace; floors elsewhere.
    assert (fast.stall_s, fast.collective_s, fast.startup_s, fast.grace_s) == (900, 1200, 900, 120)
    slow = model_costs(arch, train_nodes=16, fsx_storage_gib=2400, fsx_mb_s_per_tib=250, keep_last=3)
    t = Timeouts.from_costs(slow)
    # 625 s a write: the watchdog allows twice the slowest phase, a resume reads one checkpoint.
    assert round(slow.checkpoint.write_s) == 625
    assert t.stall_s >= 2 * slow.checkpoint.write_s and t.collective_s > t.stall_s
    assert t.startup_s >= 2 * slow.checkpoint.read_s and t.grace_s == 600
