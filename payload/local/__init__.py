"""The embedded default: the whole RL loop on one machine (`python -m payload local`, `make demo`)."""
