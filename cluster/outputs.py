"""Ids that exist only after `cdk deploy`: read from cdk-outputs.json, or clearly marked placeholders.

`npx cdk deploy -c env=NAME --outputs-file cdk-outputs.json` writes {"MoeRl-NAME": {key: value}}.
Synth must work before any deploy (CI, a first look), so a missing file is not an error:
every id becomes a value that says "placeholder" and synth prints one line about it. A file
that is there but unreadable, incomplete or from another environment is an error: applying
manifests with the wrong file system or image would fail late and confusingly.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from spec.environment import OUTPUTS_FILE, Environment

# The keys the CDK stack exports (infra/), in the order the error messages list them.
OUTPUT_KEYS = (
    "EnvironmentName",
    "Region",
    "ClusterName",
    "FsxFileSystemId",
    "FsxMountName",
    "FsxDnsName",
    "BucketName",
    "EcrRepositoryUri",
)
PLACEHOLDER = "placeholder-run-cdk-deploy"
# Exported only where the job runs its MLflow server (job.tracking.server): the DNS name of the
# server's S3 interface endpoint (infra/tracking.py, cluster/network.py).
ARTIFACTS_ENDPOINT_OUTPUT = "ArtifactsEndpointDnsName"


def required_keys(environment: Environment) -> tuple[str, ...]:
    return (*OUTPUT_KEYS, ARTIFACTS_ENDPOINT_OUTPUT) if environment.job.tracking.server else OUTPUT_KEYS


class OutputsError(Exception):
    """cdk-outputs.json is present but unusable: one line, no traceback."""


@dataclass(frozen=True)
class DeployOutputs:
    fsx_file_system_id: str
    fsx_mount_name: str
    fsx_dns_name: str
    bucket_name: str
    ecr_repository_uri: str
    placeholders: bool
    # None where the job runs no MLflow server.
    artifacts_endpoint_dns_name: str | None = None

    @classmethod
    def placeholder(cls, environment: Environment) -> "DeployOutputs":
        # Shaped like the real values (so every manifest still validates) and named so that
        # nobody mistakes them for real ids.
        return cls(
            fsx_file_system_id=f"fs-{PLACEHOLDER}",
            fsx_mount_name=PLACEHOLDER,
            fsx_dns_name=f"{PLACEHOLDER}.fsx.{environment.region}.amazonaws.com",
            bucket_name=PLACEHOLDER,
            ecr_repository_uri=f"000000000000.dkr.ecr.{environment.region}.amazonaws.com/{PLACEHOLDER}",
            placeholders=True,
            artifacts_endpoint_dns_name=(f"*.vpce-{PLACEHOLDER}.s3.{environment.region}.vpce.amazonaws.com"
                                         if environment.job.tracking.server else None),
        )


def load_outputs(path: Path, environment: Environment) -> tuple[DeployOutputs, str | None]:
    """The deploy outputs for `environment`, and the one line to print when they are placeholders."""
    if not path.is_file():
        note = (
            f"{path.name} not found: FSx, bucket and ECR ids in dist/ are placeholders "
            f"(deploy first: npx cdk deploy -c env={environment.name} --outputs-file {OUTPUTS_FILE})"
        )
        return DeployOutputs.placeholder(environment), note
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise OutputsError(f"{path.name}: not valid JSON: {exc.msg} at line {exc.lineno}") from None
    stack = environment.stack_name
    if not isinstance(data, dict):
        raise OutputsError(f"{path.name}: expected an object keyed by stack name (e.g. {stack!r})")
    if stack not in data:
        found = ", ".join(sorted(map(str, data))) or "no stacks"
        raise OutputsError(
            f"{path.name}: has outputs for {found}, not for {stack} (environment {environment.name!r}); "
            f"run npx cdk deploy -c env={environment.name} --outputs-file {OUTPUTS_FILE}, or choose ENV to match"
        )
    values = data[stack]
    if not isinstance(values, dict):
        raise OutputsError(f"{path.name}: {stack}: expected an object of output values")
    missing = [key for key in required_keys(environment) if not isinstance(values.get(key), str) or not values[key]]
    if missing:
        raise OutputsError(f"{path.name}: {stack}: missing output(s) {', '.join(missing)} (redeploy the stack)")
    for key, expected in (("EnvironmentName", environment.name), ("Region", environment.region)):
        if values[key] != expected:
            raise OutputsError(f"{path.name}: {stack}.{key} is {values[key]!r} but the environment says {expected!r}")
    return (
        DeployOutputs(
            fsx_file_system_id=values["FsxFileSystemId"],
            fsx_mount_name=values["FsxMountName"],
            fsx_dns_name=values["FsxDnsName"],
            bucket_name=values["BucketName"],
            ecr_repository_uri=values["EcrRepositoryUri"],
            placeholders=False,
            artifacts_endpoint_dns_name=values.get(ARTIFACTS_ENDPOINT_OUTPUT) if environment.job.tracking.server else None,
        ),
        None,
    )
