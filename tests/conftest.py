import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")


# Directories whose tests share one expensive session fixture (a CDK synth, a cdk8s synth of every
# environment, the SGLang release's tool venv): their tests run on one xdist worker, so it is
# built once. Every other file's tests run together on one worker (module fixtures: servers, gloo
# worlds, trained models).
SHARED_SESSION_DIRS = ("infra", "k8s", "sglang_release")


@pytest.hookimpl(optionalhook=True)  # also runs with -p no:xdist
def pytest_xdist_make_scheduler(config, log):
    """`make test` runs pytest-xdist; this is its scheduling unit. (Not --dist loadgroup: with
    pytest 9 xdist 3.8's loadgroup marks no longer reach the scheduler, item._nodeid is unused.)"""
    from xdist.scheduler import LoadScopeScheduling

    class ByFileAndSharedDirectory(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            parts = path.split("/")
            if len(parts) > 2 and parts[0] == "tests" and parts[1] in SHARED_SESSION_DIRS:
                return parts[1]
            return path

    return ByFileAndSharedDirectory(config, log)


def pytest_collection_modifyitems(config, items):
    try:
        import torch

        has_gpu = torch.cuda.is_available()
    except ImportError:
        has_gpu = False
    if has_gpu:
        return
    skip = pytest.mark.skip(reason="needs a CUDA device")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Only `gpu` tests may skip: any other skip means a test that did not run on this
    machine (a missing binary, a missing package), so it fails, saying why."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and "gpu" not in item.keywords and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped, but only tests marked gpu may skip: {reason}"
