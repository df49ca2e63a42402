"""One chart per workload; charts/base.py holds what they share (namespace, identities, storage, config)."""
