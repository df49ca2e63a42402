"""`make image`: the payload image reference the manifests of an environment run, from
cdk-outputs.json (the ECR repository) and the environment's job.images.payload tag.

    python -m k8s.image ENV      # prints <account>.dkr.ecr.<region>.amazonaws.com/<repo>:<tag>
"""

from __future__ import annotations

import sys
from pathlib import Path

from spec.environment import EnvironmentFileError
from estimate.checks import load_environment
from k8s.context import Context
from cluster.outputs import OUTPUTS_FILE, OutputsError, load_outputs

REPO = Path(__file__).resolve().parent.parent


def payload_image(env_name: str, outputs_path: Path) -> str:
    if not outputs_path.is_file():
        raise OutputsError(f"{outputs_path.name} not found: deploy first (npx cdk deploy -c env={env_name} "
                           f"--outputs-file {OUTPUTS_FILE}); the image goes to the ECR repository it names")
    environment = load_environment(env_name)
    outputs, _ = load_outputs(outputs_path, environment)
    return Context(environment, outputs).job.images.payload


def main() -> int:
    try:
        print(payload_image(sys.argv[1], REPO / OUTPUTS_FILE))
    except (EnvironmentFileError, OutputsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
