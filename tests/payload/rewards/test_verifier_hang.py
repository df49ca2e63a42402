"""Fault B: a verifier that hangs, on a real Redis through the real `VerifyWorker`.

Before: the pool never killed the hung process, the sample scored a silent 0 after the
timeout and the group reached the buffer as verified (and the hung process kept its slot).
Now: the process is killed, the sample stays unscored, the group is charged and, after
max_deliveries, dead-lettered with the reason; the healthy groups are scored exactly once.
"""

import math
import uuid

import pytest
from prometheus_client import CollectorRegistry

from payload.queue.base import RolloutQueue, Stage
from payload.queue.experience import ExperienceGroup, Sample
from payload.rewards.worker import VerifyWorker
from tests.payload.queue.redis_server import started
from verify_helpers import unverified, verify_until_drained

VERIFIER = "hangs_on_hang"


@pytest.fixture(scope="module")
def redis_url():
    server = started()
    yield server.url
    server.close()


def test_a_hanging_verifier_is_killed_and_its_group_never_scored_zero(redis_url):
    queue = RolloutQueue.Config(backend="redis", url=redis_url, namespace=uuid.uuid4().hex[:8],
                                visibility_timeout_s=30, max_deliveries=2).build()
    unverified(queue, "before", ["yes", "no"], "yes", VERIFIER)
    unverified(queue, "hangs", ["yes", "hang"], "yes", VERIFIER)
    unverified(queue, "after", ["no", "yes"], "yes", VERIFIER)
    registry = CollectorRegistry()
    worker = VerifyWorker(VerifyWorker.Config(name="v", processes=2, claim_block_s=0.1, verifier_timeout_s=1.0,
                                              verifier_modules=("tests.payload.rewards.hanging_verifier",)),
                          queue, registry=registry)
    recovered_s = verify_until_drained(worker, queue, timeout_s=60)

    consumed = queue.consume("trainer", 8, 0.1, 0, 1)
    rewards = {b.group.task_id: list(b.group.rewards_G) for b in consumed.groups}
    # Healthy groups scored exactly once, correctly; the hung one never reached the buffer.
    assert rewards == {"before": [1.0, 0.0], "after": [0.0, 1.0]}
    [dead] = queue.dead_letters(Stage.VERIFY)
    assert dead.deliveries == 2 and "did not finish sample 1 of task hangs within 1 s: killed" in dead.reason
    assert registry.get_sample_value("rl_verify_failures_total") == 2
    stats = queue.stats()
    assert (stats.verify_waiting, stats.verify_in_flight, stats.duplicates) == (0, 0, 0)
    # Two timeouts of 1 s and two new pools, not the hung call's hour.
    assert recovered_s < 30, recovered_s
    queue.close()


def test_a_sample_left_by_a_killed_verifier_is_unscored_not_zero():
    from payload.rewards.pool import RewardPool, VerifierTimeout

    pool = RewardPool.Config(processes=1, timeout_s=1.0,
                             verifier_modules=("tests.payload.rewards.hanging_verifier",)).build()
    group = ExperienceGroup(task_id="t", prompt_id="p", policy_version=0, prompt_tokens_P=[1], label="yes",
                            verifier=VERIFIER,
                            samples=[Sample(token_ids_T=[1], logprobs_T=[0.0], finish_reason="stop", text=t)
                                     for t in ("yes", "hang")])
    try:
        with pytest.raises(VerifierTimeout):
            pool.score_group(group)
        assert group.samples[0].reward == 1.0 and math.isnan(group.samples[1].reward) and not group.verified
        # The pool works again at once: the hung process is gone, not holding the only slot.
        group.samples[1].text = "yes"
        assert list(pool.score_group(group).rewards_G) == [1.0, 1.0]
    finally:
        pool.close()
