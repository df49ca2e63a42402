"""Names both apps agree on: the workload namespace and its pods' service accounts.

No IAM role is bound to any of them (no EKS Pod Identity association): no payload code calls
an AWS API. Models and datasets reach the pods from S3 through FSx for Lustre's data
repository associations (FSx's own service-linked role), which also export checkpoints to S3,
and images are pulled with the node role. A workload that needs AWS later gets its own role,
scoped to what it calls, on its own service account; never on pods that run model output
(rollout workers, verifiers).
"""

WORKLOAD_NAMESPACE = "rl"

TRAINER_SERVICE_ACCOUNT = "trainer"
ROLLOUT_SERVICE_ACCOUNT = "rollout"  # SGLang servers and rollout workers
