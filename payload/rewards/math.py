"""Math answers: the final answer in the response is equivalent to the reference, numerically
or symbolically (1/2 = 0.5 = \\frac{1}{2}, \\sqrt{2}/2 = \\frac{\\sqrt 2}{2}, x+1 = 1+x).

Extraction and equivalence are Hugging Face's math-verify (the checker open-r1 and TRL use):
LaTeX and plain expressions, \\boxed{} preferred, sympy for the comparison. Its timeouts use
SIGALRM, which works only in a process's main thread; RewardPool runs verifiers in worker
processes for that reason (and so a pathological expression cannot stall a rollout worker).

A timeout is not a 0. math-verify 0.9.0 catches its own TimeoutException and returns [] / False
(logging the whole expression) unless raise_on_error is set, so it is set and the timeout raised
as VerifierTimedOut; any other error keeps math-verify's meaning (unparsable: no answer; a failed
comparison: not equal), which raise_on_error would otherwise turn into a raise too.
"""

from __future__ import annotations

import logging
import threading
from itertools import product

from payload.rewards.base import QUOTE_CHARS, Verifier, VerifierTimedOut, clip


class _ClipRecords(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if len(message) > 2 * QUOTE_CHARS:
            record.msg, record.args = clip(message, 2 * QUOTE_CHARS), None
        return True


def cap_math_verify_logs() -> None:
    """Clip math-verify's log lines ("Timeout during parsing: <the whole expression>"). A filter
    on each logger that logs: filters on a parent do not see records propagated from children."""
    for name in ("math_verify.parser", "math_verify.grader"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, _ClipRecords) for f in logger.filters):
            logger.addFilter(_ClipRecords())


class MathVerifier(Verifier):
    name = "math"

    def __init__(self, timeout_s: int = 5) -> None:
        self.timeout_s = timeout_s
        cap_math_verify_logs()

    def score(self, response: str, label: str) -> float:
        from math_verify import parse, verify
        from math_verify.errors import TimeoutException

        # SIGALRM-based timeouts only in the main thread; elsewhere the caller bounds the time.
        timeout = self.timeout_s if threading.current_thread() is threading.main_thread() else None

        def parsed(text: str, what: str) -> list:
            try:
                return parse(text, parsing_timeout=timeout, raise_on_error=True)
            except TimeoutException:
                raise VerifierTimedOut(f"math-verify: parsing the {what} took over {timeout} s "
                                       f"({clip(text, 80)!r})") from None
            except Exception:  # noqa: BLE001 - unparsable: no answer, as math-verify itself has it
                return []

        # A bare reference ("0.5", "\sqrt{2}/2") is read as inline math.
        gold = parsed(label if "$" in label else f"${label}$", "label")
        answer = parsed(response, "response")
        if not gold or not answer:
            return 0.0
        # Pair by pair, as math-verify's verify() does, so one failed comparison is not equal
        # rather than a raise; its timeout (per comparison) is raised.
        for g, a in product(gold, answer):
            try:
                if verify(g, a, timeout_seconds=timeout, raise_on_error=True):
                    return 1.0
            except TimeoutException:
                raise VerifierTimedOut(f"math-verify: comparing the response with the label took over {timeout} s "
                                       f"(response {len(response)} chars)") from None
            except Exception:  # noqa: BLE001 - a comparison that fails is not equal, as in math-verify
                continue
        return 0.0
