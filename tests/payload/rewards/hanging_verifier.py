"""A verifier that hangs on one response, as a verifier with no timeout of its own does on a
pathological input (fault injection for the reward pool: imported by its processes through
`verifier_modules`)."""

import time

from payload.rewards.base import Verifier


class HangsOnHangVerifier(Verifier):
    name = "hangs_on_hang"

    def score(self, response: str, label: str) -> float:
        if response == "hang":
            time.sleep(3600)
        return float(response.strip() == label.strip())
