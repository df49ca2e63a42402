"""End of data: once the feed's cursor says finished and the pipeline is empty, `python -m payload
train` trains what is left as its last step (short, or none at all), checkpoints, exports and
exits 0 — what lets the trainer JobSet complete."""

import json

import pytest

from payload.queue.base import FeedCursor, RolloutQueue
from test_train_cli import PROMPTS_PER_STEP, fill, model_dir, redis_url, train, write_job  # noqa: F401 - fixtures

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("groups, steps", [(5, 3), (6, 3)], ids=["short-last-step", "nothing-left"])
def test_trainer_finishes_the_data_checkpoints_exports_and_exits_0(tmp_path, model_dir, redis_url, groups, steps):
    namespace = f"end{groups}"
    fill(redis_url, namespace, 0, groups)
    queue = RolloutQueue.Config(backend="redis", url=redis_url, namespace=namespace).build()
    assert queue.submit_feed([], FeedCursor(groups, "plan", finished=True), expected=None)
    # Checkpoints and exports every 2 steps: step 3's only come from the end of the data.
    job = write_job(tmp_path / "job.yaml", model_dir, tmp_path / "ckpt")
    proc = train(job, redis_url, namespace, "--max-steps", "100", "--metrics-jsonl", str(tmp_path / "m.jsonl"),
                 wait=False)
    out, _ = proc.communicate(timeout=240)
    assert proc.returncode == 0, out
    records = [json.loads(line) for line in (tmp_path / "m.jsonl").read_text().splitlines()]
    assert [r["groups"] for r in records] == [PROMPTS_PER_STEP] * (groups // PROMPTS_PER_STEP) + [1] * (groups % 2)
    assert (tmp_path / "ckpt" / f"step-{steps:08d}" / ".metadata").is_file()
    assert (tmp_path / "ckpt" / "hf" / f"step-{steps:08d}" / "config.json").is_file()
    assert queue.trainer_progress().policy_version == steps
    assert queue.exhausted() and queue.buffer_fill() == 0
    queue.close()
