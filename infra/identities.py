"""Names both apps must agree on: the workload namespace and the service accounts that
EKS Pod Identity binds to IAM roles (infra/storage.py grants, k8s charts use)."""

WORKLOAD_NAMESPACE = "rl"

# service account -> what its IAM role may do (see infra/identity.py)
TRAINER_SERVICE_ACCOUNT = "trainer"  # checkpoints + artifacts in S3 (read/write)
ROLLOUT_SERVICE_ACCOUNT = "rollout"  # SGLang servers and rollout workers: read models from S3
