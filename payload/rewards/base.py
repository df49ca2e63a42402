"""The verifier interface and the registry of verifiers by name."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar


class VerifierError(ValueError):
    """A task names a verifier this build does not have."""


class VerifierTimedOut(RuntimeError):
    """A verifier's own time limit ran out on a sample (e.g. math-verify's SIGALRM). Raised, never
    scored 0: a correct answer that is slow to check would be trained on as wrong. The pool
    (payload.rewards.pool) leaves the sample unscored and charges the group, as for its own kill."""


# What a log line or error message quotes of a response or label: math-verify's own warning
# once printed a whole 10 MB expression per sample.
QUOTE_CHARS = 200


def clip(text: str, limit: int = QUOTE_CHARS) -> str:
    """`text` for a log line: its first `limit` characters and its full length if longer."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} chars)"


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
