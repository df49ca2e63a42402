"""`make image` pushes to the reference the manifests run: cdk-outputs.json's ECR repository at
the tag job.images.payload pins (`{commit}`: the checkout's commit); without the outputs file it
says what to do first, and it builds nothing from uncommitted changes nor over a tag ECR holds
(its tags are immutable)."""

import json
import os
import subprocess
from pathlib import Path

import pytest

from cluster.outputs import OutputsError, source_commit
from k8s.image import payload_image
from test_k8s_inputs import REAL_OUTPUTS
from tests.infra.environments import REPO, git_repo, head


def outputs(tmp_path: Path, env: str) -> Path:
    path = tmp_path / "cdk-outputs.json"
    path.write_text(json.dumps({f"MoeRl-{env}": {**REAL_OUTPUTS, "EnvironmentName": env}}))
    return path


def test_image_reference_is_the_one_the_manifests_run(tmp_path):
    source = git_repo(tmp_path / "src")
    assert payload_image("default", outputs(tmp_path, "default"), source) == f"{REAL_OUTPUTS['EcrRepositoryUri']}:0.1.0"


def test_commit_in_the_tag_is_the_checkouts_and_a_dirty_tree_is_refused(tmp_path):
    # environments/smoke.yaml pins "{ecr}:{commit}": every commit is a new tag in ECR.
    source = git_repo(tmp_path / "src")
    path = outputs(tmp_path, "smoke")
    assert payload_image("smoke", path, source) == f"{REAL_OUTPUTS['EcrRepositoryUri']}:{head(source)}"
    assert len(source_commit(source)) == 12
    (source / "a.txt").write_text("changed\n")
    (source / "untracked.txt").write_text("not in git: not counted\n")
    with pytest.raises(OutputsError, match=r"^the working tree has 1 uncommitted change\(s\) \(first: a.txt\): an image "
                                           r"tag names one commit; commit or stash them first$"):
        payload_image("smoke", path, source)
    # A fixed tag is refused too: the image would not be the commit its label names.
    with pytest.raises(OutputsError, match="uncommitted change"):
        payload_image("default", outputs(tmp_path, "default"), source)


def test_without_outputs_it_says_to_deploy_first(tmp_path):
    with pytest.raises(OutputsError, match=r"cdk-outputs.json not found: deploy first \(make deploy ENV=default"):
        payload_image("default", tmp_path / "cdk-outputs.json", git_repo(tmp_path / "src"))


STAND_IN = """#!/bin/bash
# A stand-in for the {name} CLI: records its arguments, answers as {name} does.
echo "{name} $*" >> "$CALLS"
{body}
"""


def run_make_image(tmp_path: Path, ecr_answer: str) -> tuple[subprocess.CompletedProcess, str, str]:
    """The Makefile's own `make image` recipe for environments/smoke.yaml, run for real against a
    clean checkout (GIT_DIR), with `aws` and `docker` stand-ins on PATH (no AWS, no daemon here)."""
    source = git_repo(tmp_path / "src")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    describe = {
        "held": 'echo "2026-12-01T10:00:00+00:00"; exit 0',
        "absent": 'echo "An error occurred (ImageNotFoundException) when calling the DescribeImages operation: '
                  'The image with imageId {imageTag:\'x\'} does not exist" >&2; exit 254',
        "denied": 'echo "An error occurred (AccessDeniedException) when calling the DescribeImages operation" >&2; exit 254',
    }[ecr_answer]
    (bin_dir / "aws").write_text(STAND_IN.format(name="aws", body=f'[ "$2" = describe-images ] && {{ {describe}; }}\n'
                                                                  'echo password'))
    (bin_dir / "docker").write_text(STAND_IN.format(name="docker", body="cat > /dev/null"))
    for tool in ("aws", "docker"):
        (bin_dir / tool).chmod(0o755)
    calls = tmp_path / "calls"
    calls.touch()
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES")}
    env.update(PATH=f"{bin_dir}:{env['PATH']}", CALLS=str(calls), RL_CDK_OUTPUTS=str(outputs(tmp_path, "smoke")),
               GIT_DIR=str(source / ".git"), GIT_WORK_TREE=str(source))
    done = subprocess.run(["make", "-o", ".stamps/python", "image", "ENV=smoke"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    return done, calls.read_text(), head(source)


def test_make_image_pushes_this_commits_tag_labelled_with_it(tmp_path):
    done, calls, commit = run_make_image(tmp_path, "absent")
    ref = f"{REAL_OUTPUTS['EcrRepositoryUri']}:{commit}"
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(f"pushed {ref}")
    repository = REAL_OUTPUTS["EcrRepositoryUri"].split("/", 1)[1]
    assert f"--repository-name {repository} --image-ids imageTag={commit}" in calls
    build = next(line for line in calls.splitlines() if line.startswith("docker buildx build"))
    full = subprocess.run(["git", "-C", str(tmp_path / "src"), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    assert f"--label org.opencontainers.image.revision={full.strip()}" in build and f"--tag {ref} --push ." in build


def test_make_image_refuses_a_tag_ecr_already_holds_before_building(tmp_path):
    done, calls, commit = run_make_image(tmp_path, "held")
    assert done.returncode != 0 and "docker" not in calls
    assert (f"error: {REAL_OUTPUTS['EcrRepositoryUri']}:{commit} is already in ECR (pushed 2026-12-01T10:00:00+00:00) "
            "and its tags are immutable") in done.stderr


def test_make_image_stops_on_any_other_ecr_error(tmp_path):
    done, calls, _ = run_make_image(tmp_path, "denied")
    assert done.returncode != 0 and "docker" not in calls
    assert "error: aws ecr describe-images: An error occurred (AccessDeniedException)" in done.stderr
