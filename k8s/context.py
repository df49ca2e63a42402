"""What every chart is built from: the environment, the deploy outputs and the rendered job config."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import yaml

from spec.environment import Environment
from cluster.gpu_pods import RewardPods, RolloutPods, TrainerPods
from cluster.outputs import COMMIT_FIELD, REPO, DeployOutputs, source_commit
from spec.job import JobConfig


@dataclass(frozen=True)
class Context:
    environment: Environment
    outputs: DeployOutputs
    # The checkout `{commit}` in an image tag is read from.
    source: Path = REPO

    @cached_property
    def job(self) -> JobConfig:
        """The environment's job section with `{ecr}` in image names replaced by the ECR repository,
        and `{commit}` by the checkout's commit (cluster.outputs.source_commit: refused while
        tracked files have uncommitted changes)."""
        images = self.environment.job.images
        resolved = {}
        for field in type(images).model_fields:
            name = getattr(images, field).replace("{ecr}", self.outputs.ecr_repository_uri)
            if COMMIT_FIELD in name:
                name = name.replace(COMMIT_FIELD, source_commit(self.source))
            resolved[field] = name
        # Validate again: the resolved names must still be pinned images.
        return JobConfig.model_validate({**self.environment.job.model_dump(), "images": resolved})

    @cached_property
    def job_yaml(self) -> str:
        return yaml.safe_dump(self.job.model_dump(mode="json"), sort_keys=False)

    @cached_property
    def job_digest(self) -> str:
        # On every pod template, so a changed job config rolls the Deployments.
        return hashlib.sha256(self.job_yaml.encode()).hexdigest()[:16]

    @cached_property
    def trainer(self) -> TrainerPods:
        return TrainerPods.of(self.environment)

    @cached_property
    def rollout(self) -> RolloutPods:
        return RolloutPods.of(self.environment)

    @cached_property
    def reward(self) -> RewardPods | None:
        """The job's own reward servers (None: no reward model, or a shared one's url)."""
        return RewardPods.of(self.environment)
