"""The cdk8s app: one environment file in, every Kubernetes manifest of the RL job out (dist/)."""
