"""The verifier interface and the registry of verifiers by name."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar


class VerifierError(ValueError):
    """A task names a verifier this build does not have."""


class Verifier(ABC):
    name: ClassVar[str]

    @abstractmethod
    def score(self, response: str, label: str) -> float:
        """The reward of `response` given the task's `label` (e.g. its reference answer)."""


class ExactMatchVerifier(Verifier):
    """The response, stripped, equals the label: for tasks with one canonical string answer."""

    name = "exact_match"

    def score(self, response: str, label: str) -> float:
        return float(response.strip() == label.strip())


def _registry() -> dict[str, type[Verifier]]:
    from payload.rewards.math import MathVerifier

    return {cls.name: cls for cls in (MathVerifier, ExactMatchVerifier)}



def get_verifier(name: str) -> Verifier:
    registry = _registry()
    if name not in registry:
        raise VerifierError(f"verifier {name!r}: not one of {', '.join(sorted(registry))}")
    return registry[name]()
