"""Math answers: the final answer in the response is equivalent to the reference, numerically
or symbolically (1/2 = 0.5 = \\frac{1}{2}, \\sqrt{2}/2 = \\frac{\\sqrt 2}{2}, x+1 = 1+x).

Extraction and equivalence are Hugging Face's math-verify (the checker open-r1 and TRL use):
LaTeX and plain expressions, \\boxed{} preferred, sympy for the comparison. Its timeouts use
SIGALRM, which works only in a process's main thread; RewardPool runs verifiers in worker
processes for that reason (and so a pathological expression cannot stall a rollout worker).
"""

from __future__ import annotations

import threading

from payload.rewards.base import Verifier


class MathVerifier(Verifier):
    name = "math"

    def __init__(self, timeout_s: int = 5) -> None:
        self.timeout_s = timeout_s

    def score(self, response: str, label: str) -> float:
        from math_verify import parse, verify

        # SIGALRM-based timeouts only in the main thread; elsewhere the caller bounds the time.
        timeout = self.timeout_s if threading.current_thread() is threading.main_thread() else None
        # A bare reference ("0.5", "\sqrt{2}/2") is read as inline math.
        gold = parse(label if "$" in label else f"${label}$", parsing_timeout=timeout)
        answer = parse(response, parsing_timeout=timeout)
        if not gold or not answer:
            return 0.0
        return float(verify(gold, answer, timeout_seconds=timeout))
