"""The environment plug-in interface and the registry of environments by name.

    env = get_environment("calculator")       # a fresh instance per conversation
    first = env.reset(task)                   # the first observation: the prompt's token ids
    step = env.step(action_text)              # the policy's turn, decoded
    step.observation                          # chat messages to append ([{"role": "tool", ...}])
    step.done, step.reward                    # reward None: the task's verifier scores the episode

The rollout (payload.rollout.episode) owns the tokens: it keeps the ids the policy generated
and appends the observation as the policy's chat template renders it, so an environment deals
only in text and messages. A site adds environments by subclassing `ToolEnvironment` in a module
the rollout worker imports (as with verifiers, payload.rewards.base).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from payload.queue.experience import Task


class ToolEnvironmentError(ValueError):
    """A task or job names an environment this build does not have (a user mistake: one line)."""


@dataclass
class Step:
    # Chat messages the environment answers with (a tool's result: role "tool"); appended
    # between the policy's turns.
    observation: list[dict] = field(default_factory=list)
    done: bool = False
    # The episode's reward when the environment decides it (done only); None: the task's
    # verifier. A group is scored by its environment only when every conversation of it got
    # a reward; otherwise the verifier scores them all.
    reward: float | None = None


class ToolEnvironment(ABC):
    name: ClassVar[str]

    def reset(self, task: Task) -> np.ndarray:
        """Start a conversation on `task`; its first observation: the prompt's token ids (the
        feeder rendered them with the chat template, the tools' instructions in the system
        prompt, data.system_prompt)."""
        self.task = task
        return task.prompt_tokens_P

    @abstractmethod
    def step(self, action: str) -> Step:
        """The environment's answer to one policy turn (its text, special tokens removed)."""


def _subclasses(cls: type) -> list[type]:
    return [c for sub in cls.__subclasses__() for c in (sub, *_subclasses(sub))]


def registry() -> dict[str, type[ToolEnvironment]]:
    import payload.envs.calculator  # noqa: F401 - defines CalculatorEnvironment
    import payload.envs.code  # noqa: F401 - defines CodeEnvironment

    return {cls.name: cls for cls in _subclasses(ToolEnvironment) if isinstance(getattr(cls, "name", None), str)}


def get_environment(name: str) -> ToolEnvironment:
    environments = registry()
    if name not in environments:
        raise ToolEnvironmentError(f"environment {name!r}: not one of {', '.join(sorted(environments))}")
    return environments[name]()
