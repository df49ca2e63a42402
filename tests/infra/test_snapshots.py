"""Both environments' templates, snapshotted. Asset hashes (the kubectl/Lambda bundles, which
change with every aws-cdk-lib release) are normalized so the snapshot shows only our choices.
Update after an intended change with `pytest tests/infra --snapshot-update`."""

import json
import re

import pytest
from syrupy.extensions.json import JSONSnapshotExtension

ASSET_HASH = re.compile(r"[0-9a-f]{64}")


def normalized(template: dict) -> dict:
    return json.loads(ASSET_HASH.sub("<asset-hash>", json.dumps(template)))


@pytest.fixture
def snapshot_json(snapshot):
    return snapshot.use_extension(JSONSnapshotExtension)


@pytest.mark.parametrize("name", ["default", "p5en-48"])
def test_template_snapshot(synthesized, snapshot_json, name):
    assert normalized(synthesized[name].template) == snapshot_json
