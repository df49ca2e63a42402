"""`make image`: the payload image reference the manifests of an environment run, from
cdk-outputs.json (the ECR repository) and the environment's job.images.payload tag (`{commit}`
in it: the checkout's commit). ECR's tags are immutable, so `make image` refuses, before
building, a tag the repository already holds.

    python -m k8s.image ENV      # prints <account>.dkr.ecr.<region>.amazonaws.com/<repo>:<tag>
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from spec.environment import EnvironmentFileError
from estimate.checks import load_environment
from k8s.context import Context
from cluster.outputs import OUTPUTS_FILE, OutputsError, load_outputs, source_commit

REPO = Path(__file__).resolve().parent.parent


def payload_image(env_name: str, outputs_path: Path, source: Path = REPO) -> str:
    """The reference `make image` pushes: refused (OutputsError) while the checkout has
    uncommitted changes to tracked files, whatever the tag, so every image in ECR is one commit's
    build (`make image` labels it org.opencontainers.image.revision)."""
    source_commit(source)
    if not outputs_path.is_file():
        raise OutputsError(f"{outputs_path.name} not found: deploy first (make deploy ENV={env_name}, which writes "
                           f"{OUTPUTS_FILE}); the image goes to the ECR repository it names")
    environment = load_environment(env_name)
    outputs, _ = load_outputs(outputs_path, environment)
    return Context(environment, outputs, source).job.images.payload


def main() -> int:
    try:
        print(payload_image(sys.argv[1], Path(os.environ.get("RL_CDK_OUTPUTS", REPO / OUTPUTS_FILE))))
    except (EnvironmentFileError, OutputsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
