"""Pieces every payload process shares (metrics, health, logs, signals)."""
