"""model.lm_head_keep_logits: the LM head's logits held from forward to backward instead of
recomputed there (payload/model/logprobs.py) — same step, more memory, the switch reaching the
model from the job."""

import pytest
import torch

from spec.job import JobConfigError, parse_job_config
from payload.model import ModelConfigError
from payload.train.batch import micro_batches
from payload.train.step import LossConfig, train_step
from train_cases import batch, tiny_model


def _step(keep: bool):
    """One SGD step of the tiny model; (loss, grad norm, every gradient, bytes autograd saved of
    [tokens, vocab] tensors during the forward)."""
    model = tiny_model(lm_head_keep_logits=keep)
    vocab = model.config.vocab_size
    saved = []

    def pack(t):
        if t.ndim == 2 and t.shape[1] == vocab and t.shape[0] != vocab:  # logits-shaped, not the LM-head weight
            saved.append(t.numel() * t.element_size())
        return t

    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        metrics = train_step(model, optimizer, micro_batches(batch(0), 12, 1), LossConfig(tis_cap=2.0))
    grads = {name: p.grad.clone() for name, p in model.named_parameters() if p.grad is not None}
    return metrics["loss"], metrics["grad_norm"], grads, sum(saved)


def test_kept_logits_give_the_same_step_and_hold_the_logits():
    loss, norm, grads, saved = _step(keep=False)
    loss_kept, norm_kept, grads_kept, saved_kept = _step(keep=True)
    assert saved == 0  # recomputed: nothing vocabulary-wide outlives the forward
    tokens = sum(s.num_tokens - 1 for s in batch(0))
    assert saved_kept >= tokens * tiny_model().config.vocab_size * 4  # fp32 on CPU, every shifted token's logits
    assert loss_kept == pytest.approx(loss, rel=1e-6) and norm_kept == pytest.approx(norm, rel=1e-6)
    assert grads_kept.keys() == grads.keys()
    for name, grad in grads.items():
        torch.testing.assert_close(grads_kept[name], grad, rtol=1e-5, atol=1e-7, msg=name)


def test_job_switch_is_rendered_only_when_set():
    default = parse_job_config({}, "test")
    assert default.model.lm_head_keep_logits == "auto"
    assert "lm_head_keep_logits" not in default.model_dump(mode="json")["model"]
    for value in (True, False):
        job = parse_job_config({"model": {"lm_head_keep_logits": value}}, "test")
        assert job.model_dump(mode="json")["model"]["lm_head_keep_logits"] is value
        assert parse_job_config(job.model_dump(mode="json"), "test").model.lm_head_keep_logits is value


def test_job_switch_rejects_other_values():
    with pytest.raises(JobConfigError, match=r"job\.model\.lm_head_keep_logits: .*True, False or 'auto'"):
        parse_job_config({"model": {"lm_head_keep_logits": "sometimes"}}, "test")
    with pytest.raises(ModelConfigError, match="lm_head_keep_logits='auto': must be True or False"):
        tiny_model(lm_head_keep_logits="auto")  # the model takes the trainer's resolved choice only
