"""The numerics of FP8 experts (experts_precision="fp8", payload/model/fp8_experts.py) on the
tiny model's GRPO step: the same step in fp32 with the experts' forward and input-gradient
GEMMs in e4m3 (emulated on CPU: the quantized operands dequantized and multiplied in fp32, the
FP8 kernel's arithmetic up to accumulation order) against the plain fp32 step.

Routing is replayed (the rollout's expert choices, as the trainer runs with routing replay) so
that the difference is the GEMMs' rounding alone, not a token switching experts. Measured
(seeds 0, 1, 2), relative to the fp32 step, with a bf16 step (the whole model in bf16 on CPU)
for scale:

                      fp8 experts               whole model bf16
    loss              1.8e-3  5.2e-4  1.2e-5     1.2e-3  7.0e-4  2.3e-3
    expert grads      5.5e-2  4.8e-2  4.9e-2     1.2e-2  1.1e-2  1.1e-2
    router grads      2.4e-2  2.8e-2  1.5e-2     8.5e-3  7.1e-3  5.0e-3
    attention grads   5.4e-3  4.7e-3  4.6e-3     1.0e-2  9.8e-3  8.8e-3
    other grads       5.1e-3  4.7e-3  4.0e-3     1.0e-2  8.7e-3  7.6e-3

(gradient errors are ‖Δg‖/‖g‖ over the group's parameters). Without replay seed 0 reaches 0.14
on the expert gradients: a few tokens pick other experts in layer 1. The expert gradients carry
e4m3's 3 mantissa bits (about 4% per rounded operand) even though the weight-gradient GEMM is
not quantized: its inputs are the fp8 forward's activations and the fp8 dgrad's gradients.
Thresholds are about 3x the largest measured value.
"""

import numpy as np
import pytest
import torch

from payload.train.batch import micro_batches
from payload.train.step import LossConfig, train_step
from train_cases import batch, tiny_model

CONFIG = LossConfig(router_aux_loss_coef=0.01, max_grad_norm=1e9)
THRESHOLDS = {"loss": 2e-2, "experts": 0.15, "router": 0.1, "attention": 2e-2, "other": 2e-2}


def _group(name: str) -> str:
    if ".mlp.experts." in name:
        return "experts"
    if ".mlp.gate." in name:
        return "router"
    if ".self_attn." in name:
        return "attention"
    return "other"  # embeddings, norms, lm_head


def _replayed_batch(seed: int):
    samples = batch(0, prompts=4)
    rng = np.random.default_rng(seed)
    for s in samples:  # tiny model: 2 MoE layers, top-2 of 8 experts
        s.routed_experts = np.stack([rng.permutation(8)[:2] for _ in range(2 * (s.num_tokens - 1))]).reshape(
            s.num_tokens - 1, 2, 2).astype(np.uint8)
    return samples


def _step(precision: str, seed: int) -> tuple[float, dict[str, torch.Tensor]]:
    """One GRPO step (4 micro-batches); the loss and every parameter's accumulated gradient."""
    model = tiny_model(seed, experts_precision=precision)
    grads = {}
    for name, p in model.named_parameters():
        p.register_post_accumulate_grad_hook(lambda p, name=name: grads.__setitem__(name, p.grad.detach().clone()))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
    metrics = train_step(model, optimizer, micro_batches(_replayed_batch(seed), 4, 4), CONFIG)
    return metrics["loss"], grads


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fp8_experts_grpo_step_is_close_to_fp32(seed):
    loss_ref, grads_ref = _step("bf16", seed)  # "bf16" = the compute dtype, here fp32
    loss_fp8, grads_fp8 = _step("fp8", seed)
    assert grads_ref.keys() == grads_fp8.keys()
    errors = {"loss": abs(loss_fp8 - loss_ref) / abs(loss_ref)}
    for group in ("experts", "router", "attention", "other"):
        names = [n for n in grads_ref if _group(n) == group]
        assert names, group
        diff = sum((grads_fp8[n] - grads_ref[n]).square().sum() for n in names) ** 0.5
        ref = sum(grads_ref[n].square().sum() for n in names) ** 0.5
        errors[group] = (diff / ref).item()
    for name, value in errors.items():
        assert value < THRESHOLDS[name], (name, errors)
    # Not zero: the fp8 path ran (the experts' rounding reaches every gradient upstream of them).
    assert loss_fp8 != loss_ref
    assert errors["experts"] > 1e-2 and min(errors[g] for g in ("router", "attention", "other")) > 1e-4, errors


def _load_with_precision(rank, world_size, path, precision):
    from payload.train.loading import load_sharded
    from payload.train.parallel import init_world
    from spec.layout import TrainerLayout

    model, _ = load_sharded(path, init_world(TrainerLayout(1, 2, 2, 2)), ep_backend="all_to_all", experts_precision=precision)
    return model.config.experts_precision, sorted({block.experts.precision for block in model.moe_blocks})


def test_job_switch_is_validated_rendered_only_when_set_and_reaches_the_model(gloo_pool, tmp_path):
    """model.experts_precision: validated with the field named; left out of the rendered job at its
    default (so the switch's arrival changed no ConfigMap nor its hash), kept when set; and what
    the trainer passes to load_sharded reaches every expert-parallel rank's experts."""
    from spec.job import JobConfigError, parse_job_config
    from payload.model import save_pretrained, tiny_config
    from payload.model.qwen3_moe import Qwen3MoeForCausalLM

    assert "experts_precision" not in parse_job_config({}, "test").model_dump(mode="json")["model"]
    job = parse_job_config({"model": {"experts_precision": "fp8"}}, "test")
    assert job.model_dump(mode="json")["model"]["experts_precision"] == "fp8"
    assert parse_job_config(job.model_dump(mode="json"), "test").model.experts_precision == "fp8"
    with pytest.raises(JobConfigError, match=r"^test: job.model.experts_precision: Input should be 'bf16' or 'fp8'"):
        parse_job_config({"model": {"experts_precision": "fp16"}}, "test")
    with pytest.raises(JobConfigError, match="model.experts_precision fp8 needs model.dtype bfloat16"):
        parse_job_config({"model": {"experts_precision": "fp8", "dtype": "float32"}}, "test")

    save_pretrained(Qwen3MoeForCausalLM(tiny_config()), tmp_path)
    results = gloo_pool.run(_load_with_precision, str(tmp_path), job.model.experts_precision)
    assert results == [("fp8", ["fp8"])] * 2
