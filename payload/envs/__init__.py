"""Environments for multi-turn rollouts: the policy acts (calls a tool), the environment answers."""

from payload.envs.base import ToolEnvironment, ToolEnvironmentError, Step, get_environment

__all__ = ["ToolEnvironment", "ToolEnvironmentError", "Step", "get_environment"]
