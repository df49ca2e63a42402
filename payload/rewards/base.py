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


def _subclasses(cls: type) -> list[type]:
    return [c for sub in cls.__subclasses__() for c in (sub, *_subclasses(sub))]


def _registry() -> dict[str, type[Verifier]]:
    """Every Verifier subclass with a name: the built-in ones, and those of the modules a
    RewardPool was told to import (`verifier_modules`: site-specific verifiers)."""
    import payload.rewards.code  # noqa: F401 - defines CodeVerifier
    import payload.rewards.math  # noqa: F401 - defines MathVerifier

    return {cls.name: cls for cls in _subclasses(Verifier) if isinstance(getattr(cls, "name", None), str)}



def get_verifier(name: str) -> Verifier:
    registry = _registry()
    if name not in registry:
        raise VerifierError(f"verifier {name!r}: not one of {', '.join(sorted(registry))}")
    return registry[name]()
