"""Environments for multi-turn rollouts: the policy acts (calls a tool), the environment answers."""

from payload.envs.base import Environment, EnvironmentError_, Step, get_environment

__all__ = ["Environment", "EnvironmentError_", "Step", "get_environment"]
