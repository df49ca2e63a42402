import math
import threading

import numpy as np
import pytest

from payload.queue.experience import ExperienceGroup, Sample
from payload.rewards import RewardPool, VerifierError, get_verifier


@pytest.mark.parametrize(
    "response, label, reward",
    [
        (r"so the answer is \boxed{0.5}", "1/2", 1.0),
        (r"\boxed{\frac{1}{2}}", "0.5", 1.0),
        (r"x = \boxed{\frac{\sqrt{2}}{2}}", r"\sqrt{2}/2", 1.0),
        (r"\boxed{1+x}", "x+1", 1.0),
        (r"\boxed{50\%}", "0.5", 1.0),
        ("The answer is 42.", "42", 1.0),
        ("The answer is 41.", "42", 0.0),
        (r"\boxed{x+2}", "x+1", 0.0),
        ("no number here", "3", 0.0),
        ("", "3", 0.0),
    ],
)
def test_math_verifier_checks_equivalence(response, label, reward):
    assert get_verifier("math").score(response, label) == reward


def test_math_verifier_works_off_the_main_thread():
    out = []
    t = threading.Thread(target=lambda: out.append(get_verifier("math").score(r"\boxed{2/4}", "0.5")))
    t.start()
    t.join()
    assert out == [1.0]


def test_unknown_verifier_is_a_one_line_error():
    # (verifiers a pool imported through verifier_modules join the list)
    with pytest.raises(VerifierError, match=r"verifier 'lean': not one of code, exact_match, (.+, )?math"):
        get_verifier("lean")


def _group(texts, label, verifier="math"):
    samples = [Sample(token_ids_T=[1], logprobs_T=[0.0], finish_reason="stop", text=t) for t in texts]
    return ExperienceGroup(task_id="t", prompt_id="p", policy_version=0, prompt_tokens_P=[1], samples=samples,
                           label=label, verifier=verifier)


def test_reward_pool_scores_a_group_in_worker_processes():
    pool = RewardPool.Config(processes=2).build()
    try:
        group = _group([r"\boxed{12}", "it is 11", r"\boxed{24/2}", "twelve"], "12")
        assert all(math.isnan(r) for r in group.rewards_G)
        pool.score_group(group)
        assert group.rewards_G.tolist() == [1.0, 0.0, 1.0, 0.0] and group.verified
        exact = pool.score_group(_group([" yes ", "no"], "yes", verifier="exact_match"))
        assert np.array_equal(exact.rewards_G, [1.0, 0.0])
        with pytest.raises(VerifierError):
            pool.score_group(_group(["x"], "x", verifier="nope"))
    finally:
        pool.close()
