import math

import numpy as np
from prometheus_client import CollectorRegistry

from payload.queue.base import RolloutQueue, Stage
from payload.queue.experience import ExperienceGroup, Sample, Task
from payload.rewards.worker import VerifyWorker
from verify_helpers import verify_until_drained


def test_verify_worker_scores_unverified_groups_into_the_buffer():
    queue = RolloutQueue.Config(backend="memory", visibility_timeout_s=30, max_deliveries=1).build()
    queue.submit([Task(task_id=f"t{i}", prompt_id="p", prompt_tokens_P=[1], group_size=2, label="12") for i in range(3)])
    for i in range(3):
        d = queue.claim(Stage.ROLLOUT, "rollout", block_s=0.1)
        samples = [Sample(token_ids_T=[1], logprobs_T=[0.0], finish_reason="stop", text=t)
                   for t in (r"\boxed{12}", "eleven")]
        verifier = "math" if i < 2 else "no-such-verifier"
        group = ExperienceGroup(task_id=d.task_id, prompt_id="p", policy_version=0, prompt_tokens_P=[1],
                                samples=samples, label="12", verifier=verifier)
        assert math.isnan(group.rewards_G[0])
        queue.complete(d, group)
    assert queue.stats().verify_waiting == 3

    registry = CollectorRegistry()
    worker = VerifyWorker(VerifyWorker.Config(name="v", processes=1, claim_block_s=0.1), queue, registry=registry)
    verify_until_drained(worker, queue, timeout_s=30)
    batch = queue.consume("trainer", 8, 0.1, 0, 1)
    assert sorted(g.group.task_id for g in batch.groups) == ["t0", "t1"]
    assert all(np.array_equal(g.group.rewards_G, [1.0, 0.0]) for g in batch.groups)
    # A group naming an unknown verifier is charged and, with max_deliveries 1, dead-lettered.
    [dead] = queue.dead_letters(Stage.VERIFY)
    assert "no-such-verifier" in dead.reason
    assert registry.get_sample_value("rl_verify_groups_total") == 2
    assert registry.get_sample_value("rl_verify_failures_total") == 1
