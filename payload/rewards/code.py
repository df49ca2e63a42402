"""Code answers: the response's program, followed by the task's tests (the label: Python that
raises on a wrong answer, e.g. `assert add(2, 3) == 5`), exits 0 in the sandbox within its limits.

The program is the last ```python fenced block of the response, or the whole response when it has
none. It runs in the sandbox pool (RL_SANDBOX_URL) or a local jail (payload/sandbox/): a program
that loops, forks without end, reaches for the network, the environment or secrets, or writes
outside its directory fails there and scores 0. A sandbox that cannot run it at all raises, so
the group is charged an attempt rather than trained on a made-up 0.
"""

from __future__ import annotations

import re

from payload.rewards.base import Verifier

FENCE = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)```", re.DOTALL)


def extract_program(response: str) -> str:
    blocks = FENCE.findall(response)
    return blocks[-1] if blocks else response


class CodeVerifier(Verifier):
    name = "code"

    def __init__(self) -> None:
        from payload.sandbox.client import executor

        self.executor = executor()

    def score(self, response: str, label: str) -> float:
        return float(self.executor.run(f"{extract_program(response)}\n\n{label}\n").ok)
