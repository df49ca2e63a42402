"""Ids that exist only after `cdk deploy`: read from cdk-outputs.json, or clearly marked placeholders.

`make deploy ENV=NAME` (`cdk deploy --outputs-file cdk-outputs.json`, behind infra/deploy_guard.py) writes
{"MoeRl-NAME": {key: value}}; the messages name `make deploy`, never `npx cdk deploy`, which skips the guard.
Synth must work before any deploy (CI, a first look), so a missing file is not an error:
every id becomes a value that says "placeholder" and synth prints one line about it. A file
that is there but unreadable, incomplete or from another environment is an error: applying
manifests with the wrong file system or image would fail late and confusingly.
"""

from __future__ import annotations

import json
import subprocess
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
# In job.images.payload: replaced by the checkout's commit (source_commit) at `make image` and
# `make manifests` alike, so every build gets a new tag in ECR (its tags are immutable: a second
# push of one tag is refused) and the manifests run exactly that build.
COMMIT_FIELD = "{commit}"
REPO = Path(__file__).resolve().parent.parent
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
            f"(deploy first: make deploy ENV={environment.name}, which writes {OUTPUTS_FILE})"
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
            f"run make deploy ENV={environment.name}, or choose ENV to match"
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


def source_commit(repo: Path = REPO) -> str:
    """The checkout's commit, 12 hex digits: what `{commit}` in an image tag stands for.
    OutputsError (one line) while tracked files have uncommitted changes: a tag must name
    the one commit the image was built from. Untracked files are not counted (the image's
    build context lists what it copies, .dockerignore)."""
    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=60)

    status = git("status", "--porcelain", "--untracked-files=no")
    if status.returncode:
        reason = (status.stderr.strip().splitlines() or ["git failed"])[0]
        raise OutputsError(f"{repo}: cannot read the git commit for the image tag ({reason}); pin a fixed tag in "
                           "job.images.payload instead of {commit}")
    changed = status.stdout.splitlines()
    if changed:
        raise OutputsError(f"the working tree has {len(changed)} uncommitted change(s) (first: {changed[0][3:]}): "
                           "an image tag names one commit; commit or stash them first")
    return git("rev-parse", "--short=12", "HEAD").stdout.strip()
