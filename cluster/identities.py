"""Names both apps agree on: the workload namespace and its pods' service accounts.

No IAM role is bound to a payload pod (no EKS Pod Identity association): no payload code calls
an AWS API. Models and datasets reach the pods from S3 through FSx for Lustre's data
repository associations (FSx's own service-linked role), which also export checkpoints to S3,
and images are pulled with the node role. A workload that needs AWS later gets its own role,
scoped to what it calls, on its own service account; never on pods that run model output
(rollout workers, verifiers). The one such role today: the MLflow tracking server's
(infra/tracking.py), which reads and writes run artifacts under TRACKING_ARTIFACTS_PREFIX of the
environment's bucket and nothing else; clients reach artifacts only through the server.
"""

WORKLOAD_NAMESPACE = "rl"
# Written by `make scale` on a Capacity Block's train pool (infra/scale.py), read by the trainer's
# pods as an optional env var (k8s/charts/trainer.py): when to checkpoint and stop ahead of the
# block's end (payload/train/deadline.py).
CAPACITY_BLOCK_CONFIG_MAP = "capacity-block"

TRAINER_SERVICE_ACCOUNT = "trainer"
ROLLOUT_SERVICE_ACCOUNT = "rollout"  # SGLang servers and rollout workers
TRACKING_SERVICE_ACCOUNT = "mlflow"  # the MLflow tracking server (k8s/charts/tracking.py)
# Its artifact store: s3://<bucket>/<prefix> (its Pod Identity role is scoped to it).
TRACKING_ARTIFACTS_PREFIX = "mlflow"
