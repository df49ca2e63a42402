"""`make image` pushes to the reference the manifests run: cdk-outputs.json's ECR repository at
the tag job.images.payload pins; without the outputs file it says what to do first."""

import json

import pytest

from k8s.image import payload_image
from cluster.outputs import OutputsError
from test_k8s_inputs import REAL_OUTPUTS


def test_image_reference_is_the_one_the_manifests_run(tmp_path):
    path = tmp_path / "cdk-outputs.json"
    path.write_text(json.dumps({"MoeRl-default": REAL_OUTPUTS}))
    assert payload_image("default", path) == f"{REAL_OUTPUTS['EcrRepositoryUri']}:0.1.0"


def test_without_outputs_it_says_to_deploy_first(tmp_path):
    with pytest.raises(OutputsError, match="cdk-outputs.json not found: deploy first"):
        payload_image("default", tmp_path / "cdk-outputs.json")
