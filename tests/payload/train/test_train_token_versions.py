"""rollout.stale_tokens in the trainer (issue 47 item 1): each response token keeps the version
that sampled it, and under `mask` exactly the tokens more than max_staleness behind the version
trained leave the loss (CPU torch: the trainer's own `_samples`, the collated and packed loss
masks, the loss with its off-policy correction, and the step's metrics in metrics.jsonl and
Prometheus from `_record`)."""

import json
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from prometheus_client import generate_latest

from payload.queue.experience import ExperienceGroup, Sample as Record
from payload.train.batch import Sample, collate, mask_stale_tokens, pack
from payload.train.loss import grpo_loss
from payload.train.checkpoint import TrainCounters
from spec.job import JobConfigError, parse_job_config
from test_train_cli import model_dir, redis_url  # noqa: F401,F811 - fixtures

PROMPT = np.array([3, 4, 5])
# Trained at version 6 with max_staleness 1: versions 4 and older are stale, 5 is older but kept.
CURRENT, MAX_STALENESS = 6, 1


def group() -> ExperienceGroup:
    """Two samples: one began on version 3 (stale), went on with 5, finished on 6; one ran on 4
    (stale) then 6. A multi-turn response mask on the first: its tokens 4..5 are a tool's reply."""
    rng = np.random.default_rng(0)

    def record(spans, mask=None, reward=1.0):
        n = spans[-1][2]
        return Record(rng.integers(1, 256, n), -rng.random(n) - 0.1, "length", reward=reward, loss_mask_T=mask,
                      version_spans=spans)

    tool = np.array([1, 1, 1, 1, 0, 0, 1, 1, 1, 1], dtype=np.uint8)
    return ExperienceGroup("t", "p", 3, PROMPT, [record(((3, 0, 3), (5, 3, 7), (6, 7, 10)), tool, 1.0),
                                                  record(((4, 0, 2), (6, 2, 6)), None, 0.0)])


def trainer_samples(stale_tokens: str, tmp_path=None):
    from payload.train.trainer import Batch, Trainer, TrainerMetrics

    job = parse_job_config({"algorithm": {"group_size": 2, "filter_equal_reward_groups": False},
                            "batch": {"max_response_tokens": 16},
                            "rollout": {"max_staleness": MAX_STALENESS, "stale_tokens": stale_tokens}}, "test")
    this = SimpleNamespace(metrics=TrainerMetrics(), queue=SimpleNamespace(buffer_fill=lambda: 0), tracker=None,
                           counters=TrainCounters(CURRENT, CURRENT, 0),
                           config=SimpleNamespace(job=job, metrics_jsonl=None if tmp_path is None else str(tmp_path / "m.jsonl")),
                           world=SimpleNamespace(device=torch.device("cpu")))
    this._rewards = lambda samples: Trainer._rewards(this, samples)
    # Sample generations and TensorBoard are off here (their own test: test_train_samples.py).
    this.events, this._log_samples = None, lambda step, batch: None
    batch = Batch([group()])
    samples = Trainer._samples(this, batch)
    return this, batch, samples


def expected_masks(stale: bool) -> list[np.ndarray]:
    first = np.array([1, 1, 1, 1, 0, 0, 1, 1, 1, 1], dtype=bool)
    second = np.ones(6, dtype=bool)
    if stale:
        first[:3] = False  # version 3
        second[:2] = False  # version 4
    return [first, second]


@pytest.mark.parametrize("stale_tokens", ["drop_group", "mask"])
def test_the_batch_masks_exactly_the_stale_spans_tokens(stale_tokens):
    _, _, samples = trainer_samples(stale_tokens)
    assert [s.version_spans for s in samples] == [((3, 0, 3), (5, 3, 7), (6, 7, 10)), ((4, 0, 2), (6, 2, 6))]
    masks = expected_masks(stale_tokens == "mask")
    for micro in (collate(samples), pack(samples)):
        loss_mask = micro.loss_mask_BT1
        p = len(PROMPT)
        for i, (sample, mask) in enumerate(zip(samples, masks)):
            # Response token j is predicted at position p - 1 + j of the shifted frame.
            row = loss_mask[i, p - 1 : p - 1 + len(sample.response_ids)].numpy()
            assert row.tolist() == mask.tolist(), (stale_tokens, i)
            assert not loss_mask[i, : p - 1].any() and not loss_mask[i, p - 1 + len(sample.response_ids):].any()


def test_the_off_policy_correction_still_weighs_the_tokens_kept():
    """sequence_mask judges a sequence by the geometric-mean ratio over its LOSS tokens: a stale
    span whose rollout logprobs are far from the trainer's (older weights) would drop the whole
    sequence; masked as stale, it is out of that mean and the fresh tokens are trained."""
    for stale_tokens, masked in (("drop_group", 1.0), ("mask", 0.0)):
        _, _, samples = trainer_samples(stale_tokens)
        sample = samples[1]  # tokens 0..1 version 4 (stale), 2..5 version 6
        micro = collate([sample])
        old = micro.rollout_logprobs_BT1.clone()
        p = len(PROMPT)
        old[0, p - 1 : p + 1] += 8.0  # the trainer now finds the stale tokens far likelier: k = e^8 each
        _, metrics = grpo_loss(old.clone().requires_grad_(), old, torch.tensor([1.0]), micro.loss_mask_BT1,
                               rollout_logprobs_BT=micro.rollout_logprobs_BT1, tis_cap=2.0,
                               correction="sequence_mask", correction_low=0.5, correction_high=5.0)
        assert metrics["off_policy_masked_fraction"].item() == masked, stale_tokens


def test_mask_stale_tokens_counts_policy_tokens_by_age():
    sample = Sample(PROMPT, np.arange(8), np.zeros(8), 1.0, version_spans=((2, 0, 3), (5, 3, 5), (6, 5, 8)),
                    response_mask=np.array([1, 1, 0, 1, 1, 1, 1, 1], dtype=bool))
    masked, counts = mask_stale_tokens(sample, CURRENT, MAX_STALENESS)
    # Policy tokens: 7 (one tool token); older than 6: tokens 0, 1, 3, 4 (4 of them); stale: 0, 1.
    assert (counts.policy, counts.older, counts.stale) == (7, 4, 2)
    assert masked.response_mask.tolist() == [False, False, False, True, True, True, True, True]
    assert counts.older_fraction == pytest.approx(2 / 5) and counts.stale_fraction == pytest.approx(2 / 7)
    kept, counted = mask_stale_tokens(sample, CURRENT, MAX_STALENESS, mask=False)
    assert kept is sample and counted.stale == 0 and counted.older_fraction == pytest.approx(4 / 7)
    with pytest.raises(ValueError, match="do not cover the 8 response tokens"):
        Sample(PROMPT, np.arange(8), np.zeros(8), 1.0, version_spans=((2, 0, 7),))


def test_the_step_logs_the_shares_of_older_and_stale_tokens(tmp_path):
    from payload.train.trainer import Trainer

    this, batch, _ = trainer_samples("mask", tmp_path)
    Trainer._record(this, CURRENT + 1, batch, {"step_seconds": 1.0}, 0.0)
    # Policy tokens: 8 + 6 = 14; stale: 3 + 2 = 5; older than 6 and trained: the 4 of version 5
    # less its 2 tool tokens (never trained) = 2, of the 9 tokens trained.
    expected = {"stale_masked_token_fraction": 5 / 14, "old_version_token_fraction": 2 / 9}
    (record,) = [json.loads(x) for x in (tmp_path / "m.jsonl").read_text().splitlines()]
    assert {k: record[k] for k in expected} == pytest.approx(expected, rel=1e-12)
    text = generate_latest(this.metrics.registry).decode()
    for name, value in expected.items():
        (line,) = [x for x in text.splitlines() if x.startswith(f"rl_trainer_{name} ")]
        assert float(line.split()[1]) == pytest.approx(value, rel=1e-6), line


def test_the_setting_defaults_to_drop_group_and_names_itself_when_wrong():
    job = parse_job_config({}, "job.yaml")
    assert job.rollout.stale_tokens == "drop_group"
    assert "stale_tokens" not in job.model_dump(mode="json")["rollout"]  # default manifests unchanged
    on = parse_job_config({"rollout": {"stale_tokens": "mask"}}, "job.yaml")
    assert parse_job_config(on.model_dump(mode="json"), "job.yaml").rollout.stale_tokens == "mask"
    with pytest.raises(JobConfigError) as raised:
        parse_job_config({"rollout": {"stale_tokens": "keep"}}, "job.yaml")
    message = str(raised.value)
    assert message.startswith("job.yaml: job.rollout.stale_tokens: Input should be 'drop_group' or 'mask'"), message
    assert "\n" not in message


@pytest.mark.slow
@pytest.mark.parametrize("stale_tokens", ["drop_group", "mask"])
def test_a_real_trainer_run_applies_the_setting_to_the_redis_buffer(tmp_path, model_dir, redis_url,  # noqa: F811
                                                                    stale_tokens):
    """`python -m payload train` on CPU against a real redis buffer, max_staleness 1, three
    steps. Steps 1 and 2 train groups of version 0; step 3 (trained at version 2) meets two
    groups whose every sample ran across two publishes: tokens 0..1 by version 0 (stale), 2..3
    by 1, 4..5 by 2. drop_group drops both (its oldest token is stale) and trains the two plain
    groups behind them; mask trains them with the version-0 tokens out of the loss: a third of
    the policy tokens masked, half of those trained sampled by an older version."""
    import yaml

    from payload.queue.base import RolloutQueue, Stage
    from payload.queue.experience import Task
    from test_train_cli import GROUP_SIZE, train, write_job

    namespace = f"versions-{stale_tokens}"
    queue = RolloutQueue.Config(backend="redis", url=redis_url, namespace=namespace).build()
    rng = np.random.default_rng(7)

    def put(task_id: str, spans):
        prompt = rng.integers(1, 256, 3)
        queue.submit([Task(task_id, task_id, prompt, GROUP_SIZE)])
        samples = [Record(rng.integers(1, 256, 6), -rng.random(6) - 0.1, "length", reward=float(rng.random()),
                          version_spans=spans) for _ in range(GROUP_SIZE)]
        queue.complete(queue.claim(Stage.ROLLOUT, "worker", block_s=1),
                       ExperienceGroup(task_id, task_id, spans[0][0] if spans else 0, prompt, samples))

    for i in range(4):  # steps 1 and 2
        put(f"plain{i}", None)
    for i in range(2):  # step 3
        put(f"spanning{i}", ((0, 0, 2), (1, 2, 4), (2, 4, 6)))
    for i in range(2):  # what drop_group trains at step 3 instead
        put(f"behind{i}", ((2, 0, 6),))
    queue.close()
    job = write_job(tmp_path / "job.yaml", model_dir, tmp_path / "ckpt")
    data = yaml.safe_load(job.read_text())
    data["rollout"] = {"max_staleness": 1, "stale_tokens": stale_tokens}
    job.write_text(yaml.safe_dump(data))
    train(job, redis_url, namespace, "--max-steps", "3", "--metrics-jsonl", str(tmp_path / "m.jsonl"))
    records = [json.loads(x) for x in (tmp_path / "m.jsonl").read_text().splitlines()]
    assert [r["step"] for r in records] == [1, 2, 3]
    # Step 1 trains version 0 on version 0's tokens; step 2 trains version 1 on them: all older, none stale.
    assert [(r["stale_masked_token_fraction"], r["old_version_token_fraction"], r["groups_dropped_stale"])
            for r in records[:2]] == [(0, 0, 0), (0, 1, 0)]
    last = records[2]
    if stale_tokens == "mask":
        assert last["groups_dropped_stale"] == 0 and last["staleness_max"] == 2
        assert last["stale_masked_token_fraction"] == pytest.approx(1 / 3)
        assert last["old_version_token_fraction"] == pytest.approx(1 / 2)
    else:
        assert last["groups_dropped_stale"] == 2 and last["staleness_max"] == 0
        assert (last["stale_masked_token_fraction"], last["old_version_token_fraction"]) == (0, 0)
