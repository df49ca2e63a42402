"""Rollout–training balance: the live signals, the planner and the discrete-event simulator."""
