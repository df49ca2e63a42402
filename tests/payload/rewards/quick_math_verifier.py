"""The real math verifier with a 1 s limit instead of 5 (imported by the reward pool's processes
through `verifier_modules`), so a test's pathological answer times out in math-verify quickly."""

from payload.rewards.math import MathVerifier


class QuickMathVerifier(MathVerifier):
    name = "math_1s"

    def __init__(self) -> None:
        super().__init__(timeout_s=1)
