"""Item 3 of issue 49: a verifier's own timeout is never a 0.

math-verify 0.9.0 catches its own SIGALRM timeout and returns [] / False, logging the whole
expression. Before: a slow-to-verify answer scored 0 (trained as wrong), nothing counted it,
and each sample logged its full text. Now: the sample is unscored, the group charged and,
after max_deliveries, dead-lettered; rl_verifier_timeouts_total counts it; logs are clipped.
All with the real math-verify: a 2000-term sum takes it over 20 s to parse.
"""

import logging
import time
import uuid

import pytest
from prometheus_client import CollectorRegistry

from payload.queue.base import RolloutQueue, Stage
from payload.rewards.base import VerifierTimedOut
from payload.rewards.math import MathVerifier
from payload.rewards.worker import VerifyWorker
from tests.payload.queue.redis_server import started
from verify_helpers import unverified, verify_until_drained

SLOW = r"\boxed{" + "+".join(f"x_{{{i}}}^{{2}}" for i in range(2000)) + "}"  # ~25 KB


def test_a_math_verify_timeout_raises_and_logs_a_clipped_line(caplog):
    assert len(SLOW) > 20_000
    caplog.set_level(logging.DEBUG)
    started_at = time.monotonic()
    with pytest.raises(VerifierTimedOut) as raised:
        MathVerifier(timeout_s=1).score(SLOW, "1")
    assert time.monotonic() - started_at < 10
    message = str(raised.value)
    assert "math-verify: parsing the response took over 1 s" in message and "(24" in message and len(message) < 200
    assert all(len(r.getMessage()) <= 500 for r in caplog.records)
    # What is not a timeout keeps math-verify's meaning.
    assert MathVerifier(timeout_s=1).score(r"\boxed{1/2}", "0.5") == 1.0
    assert MathVerifier(timeout_s=1).score("no answer here", "0.5") == 0.0


def test_math_verify_own_warning_is_clipped(caplog):
    """Callers that keep math-verify's non-raising mode (the data check) log a clipped line."""
    from math_verify import parse

    from payload.rewards.math import cap_math_verify_logs

    cap_math_verify_logs()
    caplog.set_level(logging.WARNING)
    assert parse(SLOW, parsing_timeout=1) == []
    [record] = [r for r in caplog.records if r.name.startswith("math_verify")]
    assert record.getMessage().startswith("Timeout during parsing: \\boxed{x_{0}")
    assert len(record.getMessage()) < 500


@pytest.fixture(scope="module")
def redis_url():
    server = started()
    yield server.url
    server.close()


def test_a_verifier_timeout_is_counted_charged_and_dead_lettered_never_zero(redis_url, capfd):
    queue = RolloutQueue.Config(backend="redis", url=redis_url, namespace=uuid.uuid4().hex[:8],
                                visibility_timeout_s=30, max_deliveries=2).build()
    unverified(queue, "healthy", [r"\boxed{12}", "eleven"], "12", "math_1s")
    unverified(queue, "slow", [r"\boxed{1}", SLOW], "1", "math_1s")
    registry = CollectorRegistry()
    worker = VerifyWorker(VerifyWorker.Config(name="v", processes=1, claim_block_s=0.1,
                                              verifier_modules=("tests.payload.rewards.quick_math_verifier",)),
                          queue, registry=registry)
    verify_until_drained(worker, queue, timeout_s=60)

    consumed = queue.consume("trainer", 8, 0.1, 0, 1)
    # The healthy group scored once; the slow one never reached the buffer with a made-up 0.
    assert {b.group.task_id: list(b.group.rewards_G) for b in consumed.groups} == {"healthy": [1.0, 0.0]}
    [dead] = queue.dead_letters(Stage.VERIFY)
    assert dead.deliveries == 2
    assert "timed out on sample 1 of task slow: math-verify: parsing the response took over 1 s" in dead.reason
    assert registry.get_sample_value("rl_verifier_timeouts_total", {"limit": "verifier"}) == 2
    assert registry.get_sample_value("rl_verify_failures_total") == 2
    # What the verifier processes and the worker printed quotes the 25 KB answer clipped.
    out, err = capfd.readouterr()
    longest = max(len(line) for line in (out + err).splitlines() or [""])
    assert longest < 1000, longest
    queue.close()
