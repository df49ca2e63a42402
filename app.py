#!/usr/bin/env python3
"""CDK app: `npx cdk synth|deploy -c env=NAME` provisions environments/NAME.yaml."""

import os
import sys

# jsii warns on every call that Node 20 is end-of-life; the value is the major version to silence.
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from spec.environment import EnvironmentFileError  # noqa: E402
from estimate.checks import load_environment  # noqa: E402


def main() -> int:
    import aws_cdk as cdk

    app = cdk.App()
    name = app.node.try_get_context("env") or "default"
    try:
        environment = load_environment(name)
    except EnvironmentFileError as error:
        # Before any construct exists, so nothing is written to cdk.out.
        print(f"error: {error}", file=sys.stderr)
        return 1

    from infra.nag import check_with_cdk_nag
    from infra.stack import MoeRlStack
    from cluster.placement import PlacementError

    try:
        stack = MoeRlStack(app, environment)
    except (EnvironmentFileError, PlacementError) as error:
        # Raised before the stack's first construct, and nothing is synthesized.
        print(f"error: {error}", file=sys.stderr)
        return 1
    check_with_cdk_nag(stack)
    app.synth()
    return 0


if __name__ == "__main__":
    sys.exit(main())
