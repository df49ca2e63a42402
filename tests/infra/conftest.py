"""Both environments are synthesized once per test session, in-process, into one cloud assembly."""

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.infra.environments import ADMINS, PUBLIC_API_CIDRS, deployable

REPO = Path(__file__).resolve().parents[2]
ENVIRONMENTS = ("default", "p5en-48")


@dataclass
class Synthesized:
    outdir: Path
    template: dict
    assertions: object  # aws_cdk.assertions.Template

    def resources(self, kind: str) -> dict[str, dict]:
        return {k: v for k, v in self.template["Resources"].items() if v["Type"] == kind}

    def path(self, logical_id: str) -> str:
        return self.template["Resources"][logical_id].get("Metadata", {}).get("aws:cdk:path", logical_id)

    def direct_dependencies(self, logical_id: str) -> set[str]:
        """What CloudFormation creates before `logical_id`: its DependsOn and every resource
        its properties reference (Ref, Fn::GetAtt)."""
        resources = self.template["Resources"]
        resource = resources[logical_id]
        found = set(resource.get("DependsOn", []))

        def walk(node):
            if isinstance(node, dict):
                for key, value in node.items():
                    if key == "Ref" and value in resources:
                        found.add(value)
                    elif key == "Fn::GetAtt":
                        found.add(value[0] if isinstance(value, list) else value.split(".")[0])
                    else:
                        walk(value)
            elif isinstance(node, list):
                for value in node:
                    walk(value)

        walk(resource.get("Properties", {}))
        return found & set(resources)

    def created_before(self, logical_id: str) -> set[str]:
        """Every resource `logical_id` transitively waits for."""
        seen, stack = set(), [logical_id]
        while stack:
            for dependency in self.direct_dependencies(stack.pop()):
                if dependency not in seen:
                    seen.add(dependency)
                    stack.append(dependency)
        return seen

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

    from infra.nag import check_with_cdk_nag
    from infra.stack import MoeRlStack

    outdir = tmp_path_factory.mktemp("cdk.out")
    context = json.loads((REPO / "cdk.json").read_text())["context"]
    # The CLI adds path metadata; tests find resources by construct path, as a reader would.
    app = cdk.App(outdir=str(outdir), context={**context, "aws:cdk:enable-path-metadata": True})
    stacks = {name: MoeRlStack(app, deployable(name)) for name in ENVIRONMENTS}
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


# Variants of the default environment, synthesized once per session in one app (no cdk-nag:
# the shipped environments carry that check): every supported Kubernetes version, and the
# instance types changed (the node groups must be replaceable), admins listed.
VARIANTS = {
    "k8s-1-32": lambda d: d.update(kubernetes_version="1.32"),
    "k8s-1-34": lambda d: d.update(kubernetes_version="1.34"),
    "new-types": lambda d: (d["pools"]["cpu"].update(instance_type="c7i.16xlarge"),
                            d["pools"]["train"].update(instance_type="p5e.48xlarge")),
    "admins": lambda d: d.update(admin_principal_arns=ADMINS),
    # Other GPU pool sizes: train's template does not change, rollout's max_size does (test_deploy_guard.py).
    "resized": lambda d: (d["pools"]["train"].update(min_size=1, desired_size=1),
                          d["pools"]["rollout"].update(min_size=1, desired_size=3, max_size=6)),
    "public-api": lambda d: d.update(api_public_cidrs=PUBLIC_API_CIDRS),
}


@pytest.fixture(scope="session")
def variants(tmp_path_factory, synthesized) -> dict[str, Synthesized]:
    import aws_cdk as cdk
    from aws_cdk.assertions import Template

    from infra.stack import MoeRlStack

    outdir = tmp_path_factory.mktemp("cdk.out-variants")
    context = json.loads((REPO / "cdk.json").read_text())["context"]
    app = cdk.App(outdir=str(outdir), context={**context, "aws:cdk:enable-path-metadata": True})
    stacks = {name: MoeRlStack(app, deployable("default", change, rename=name)) for name, change in VARIANTS.items()}
    app.synth()
    result = {"k8s-1-33": synthesized["default"]}
    for name, stack in stacks.items():
        template = json.loads((outdir / f"{stack.stack_name}.template.json").read_text())
        result[name] = Synthesized(outdir, template, Template.from_json(template))
    return result
