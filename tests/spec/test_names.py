"""spec.job's names of verifiers and tool environments are exactly what payload registers."""

import importlib
import pkgutil

import payload.envs
import payload.rewards
from payload.envs.base import registry
from payload.rewards.base import _registry
from spec.job import TOOL_ENVIRONMENTS, VERIFIERS


def _import_all(package) -> None:
    for module in pkgutil.iter_modules(package.__path__):
        if module.name not in ("cli", "model_server"):
            importlib.import_module(f"{package.__name__}.{module.name}")


def test_every_registered_verifier_and_tool_environment_is_named_in_spec():
    _import_all(payload.rewards)
    _import_all(payload.envs)
    # (a test in the same process may have registered one of its own)
    assert sorted(n for n, cls in _registry().items() if cls.__module__.startswith("payload.")) == sorted(VERIFIERS)
    assert sorted(n for n, cls in registry().items() if cls.__module__.startswith("payload.")) == sorted(TOOL_ENVIRONMENTS)
