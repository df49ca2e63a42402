"""Acceptance checks a user runs on a fresh cluster before spending GPU-days (dist/acceptance/)."""
