"""Both environments are synthesized once per test session, in-process, into one cloud assembly."""

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ENVIRONMENTS = ("default", "p5en-48")


@dataclass
class Synthesized:
    outdir: Path
    template: dict
    assertions: object  # aws_cdk.assertions.Template

    def resources(self, kind: str) -> dict[str, dict]:
        return {k: v for k, v in self.template["Resources"].items() if v["Type"] == kind}

    def one(self, kind: str, path_part: str) -> tuple[str, dict]:
        matches = [
            (k, v) for k, v in self.resources(kind).items() if path_part in v.get("Metadata", {}).get("aws:cdk:path", "")
        ]
        assert len(matches) == 1, f"expected one {kind} under {path_part}, got {[k for k, _ in matches]}"
        return matches[0]


@pytest.fixture(scope="session")
def synthesized(tmp_path_factory) -> dict[str, Synthesized]:
    import aws_cdk as cdk
    from aws_cdk.assertions import Template

    from infra.environment import load_environment
    from infra.nag import check_with_cdk_nag
    from infra.stack import MoeRlStack

    outdir = tmp_path_factory.mktemp("cdk.out")
    context = json.loads((REPO / "cdk.json").read_text())["context"]
    # The CLI adds path metadata; tests find resources by construct path, as a reader would.
    app = cdk.App(outdir=str(outdir), context={**context, "aws:cdk:enable-path-metadata": True})
    stacks = {name: MoeRlStack(app, load_environment(name)) for name in ENVIRONMENTS}
    for stack in stacks.values():
        check_with_cdk_nag(stack)
    app.synth()
    result = {}
    for name, stack in stacks.items():
        template = json.loads((outdir / f"{stack.stack_name}.template.json").read_text())
        result[name] = Synthesized(outdir, template, Template.from_json(template))
    return result


@pytest.fixture(scope="session")
def default(synthesized) -> Synthesized:
    return synthesized["default"]


@pytest.fixture(scope="session")
def seed(synthesized) -> Synthesized:
    return synthesized["p5en-48"]
