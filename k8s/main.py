"""`cdk8s synth` entry point (cdk8s.yaml): RL_ENV names the environment (default: default).

    RL_ENV=p5en-48 npx cdk8s synth     # or: make manifests ENV=p5en-48

Reads cdk-outputs.json (or RL_CDK_OUTPUTS) for the ids `cdk deploy` created. User mistakes
print one line and exit 2.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from spec.environment import EnvironmentFileError
from estimate.checks import load_environment
from cluster.outputs import OUTPUTS_FILE, OutputsError, load_outputs
from cluster.placement import PlacementError
from spec.job import JobConfigError

REPO = Path(__file__).resolve().parent.parent


def synth(env_name: str, outputs_path: Path, outdir: Path) -> str | None:
    """Write the manifests to `outdir`; return the placeholder note, if any."""
    from k8s.app import build_acceptance_app, build_app  # jsii starts its node runtime on import

    environment = load_environment(env_name)
    outputs, note = load_outputs(outputs_path, environment)
    build_app(environment, outputs, outdir).synth()
    # Opt-in: `kubectl apply -f dist/` does not descend into it.
    build_acceptance_app(environment, outputs, outdir / "acceptance").synth()
    return note


def main() -> int:
    env_name = os.environ.get("RL_ENV", "default")
    outputs_path = Path(os.environ.get("RL_CDK_OUTPUTS", REPO / OUTPUTS_FILE))
    outdir = Path(os.environ.get("CDK8S_OUTDIR", REPO / "dist"))
    try:
        note = synth(env_name, outputs_path, outdir)
    except (EnvironmentFileError, JobConfigError, OutputsError, PlacementError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if note:
        print(note, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
