"""Verifiers: turn a response text and a task label into a reward.

    pool = RewardPool.Config(processes=2).build()
    pool.score_group(group)      # fills sample.reward for every sample, in worker processes

Verifiers are looked up by the name a task carries (`Task.verifier`); add one by subclassing
`Verifier` and listing it in `payload.rewards.base._registry`.
"""

from payload.rewards.base import Verifier, VerifierError, get_verifier
from payload.rewards.pool import RewardPool

__all__ = ["RewardPool", "Verifier", "VerifierError", "get_verifier"]
