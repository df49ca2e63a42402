"""Trainer → rollout weight publishing over SGLang's native weight-update API."""
