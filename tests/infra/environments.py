"""Environments as the tests deploy them (shared by the fixtures and the tests)."""

import os
import subprocess
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
# p5en-48.yaml ships the documentation's example Capacity Block id, which the app refuses
# (test_capacity.py); the tests stand in an id shaped like one the EC2 console shows.
STAND_IN_RESERVATION = "cr-0f3a9c1e5b7d24680"


def environment_data(name: str) -> dict:
    data = yaml.safe_load((REPO / "environments" / f"{name}.yaml").read_text())
    for pool in data["pools"].values():
        if pool.get("capacity_reservation_id"):
            pool["capacity_reservation_id"] = STAND_IN_RESERVATION
    return data


def deployable(name: str, change=None, rename: str | None = None):
    """environments/<name>.yaml as the user would deploy it, optionally changed (a function
    of the loaded mapping) and renamed so several variants fit in one CDK app."""
    from estimate.checks import parse_environment

    data = environment_data(name)
    if change:
        change(data)
    if rename:
        data["name"] = rename
    return parse_environment(data, f"{name}.yaml")


ADMINS = ["arn:aws:iam::111122223333:role/MlPlatformAdmin", "arn:aws:iam::111122223333:user/alice"]
# Public networks (not documentation ranges: the schema refuses non-global addresses).
PUBLIC_API_CIDRS = ["52.95.110.0/24", "34.120.7.9/32"]


def git_repo(path: Path) -> Path:
    """A checkout with one commit: what `{commit}` is read from."""
    path.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com"}
    for args in (["init", "-q"], ["add", "a.txt"], ["commit", "-q", "-m", "one"]):
        if args[0] == "add":
            (path / "a.txt").write_text("one\n")
        subprocess.run(["git", "-C", str(path), *args], check=True, env=env, capture_output=True)
    return path


def head(repo: Path) -> str:
    return subprocess.run(["git", "-C", str(repo), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
