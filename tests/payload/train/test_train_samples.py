"""Each step's sample generations and TensorBoard event files, from a real `python -m payload train`
on CPU (a real redis-server buffer, a real `mlflow server`): the console shows a few prompts,
responses, rewards and verdicts a step; MLflow holds them as the run's artifacts (read back with
MLflow's own client); with `tracking.tensorboard` the event files tensorboardX wrote hold every
step's scalars (the metrics JSONL's values) and the samples.

tensorboardX ships no reader: the files are read as TensorBoard reads them, TFRecord framing
(length, masked CRC-32C of the length, the record, its masked CRC-32C) around an `Event`
protobuf, with tensorboardX's own `Event` schema and `masked_crc32c`, so a corrupt file fails.
"""

import json
import re
import struct
import subprocess

import pytest
import yaml

from payload.train.tracking import SAMPLES_ARTIFACTS, TENSORBOARD_DIR
from tests.mlflow_server import server as mlflow_server
from test_train_cli import PROMPTS_PER_STEP, fill, mlflow_url, model_dir, redis_url, train, write_job  # noqa: F401 - fixtures
from train_cases import GROUP_SIZE

pytestmark = pytest.mark.slow

SAMPLES_PER_STEP = 3


def read_events(path):
    """Every Event in one TensorBoard event file, each record's two CRCs checked."""
    from tensorboardX.proto.event_pb2 import Event
    from tensorboardX.record_writer import masked_crc32c

    data, offset, events = path.read_bytes(), 0, []
    while offset < len(data):
        header = data[offset:offset + 8]
        (length,) = struct.unpack("<Q", header)
        assert struct.unpack("<I", data[offset + 8:offset + 12])[0] == masked_crc32c(header)
        body = data[offset + 12:offset + 12 + length]
        assert struct.unpack("<I", data[offset + 12 + length:offset + 16 + length])[0] == masked_crc32c(body)
        events.append(Event.FromString(body))
        offset += 16 + length
    return events


_ARTIFACTS = """
import json, sys
from mlflow import MlflowClient
client = MlflowClient(sys.argv[1])
[run] = client.search_runs([client.get_experiment_by_name("moe-grpo").experiment_id])
files = sorted(f.path for f in client.list_artifacts(run.info.run_id, sys.argv[2]))
print(json.dumps({f: json.load(open(client.download_artifacts(run.info.run_id, f, sys.argv[3]))) for f in files}))
"""


def test_each_step_logs_samples_to_the_console_mlflow_and_tensorboard(tmp_path, model_dir, redis_url, mlflow_url):
    fill(redis_url, "samples", 0, 2 * PROMPTS_PER_STEP)
    job_path = write_job(tmp_path / "job.yaml", model_dir, tmp_path / "ckpt")
    job = yaml.safe_load(job_path.read_text())
    job["tracking"] = {"tensorboard": True, "samples_per_step": SAMPLES_PER_STEP}
    job_path.write_text(yaml.safe_dump(job))
    proc = train(job_path, redis_url, "samples", "--max-steps", "2", "--metrics-jsonl", str(tmp_path / "m.jsonl"),
                 wait=False, MLFLOW_TRACKING_URI=mlflow_url)
    out, _ = proc.communicate(timeout=240)
    assert proc.returncode == 0, out
    metrics = {r["step"]: r for r in map(json.loads, (tmp_path / "m.jsonl").read_text().splitlines())}
    assert sorted(metrics) == [1, 2]

    # The console: SAMPLES_PER_STEP lines a step, the best and the worst response of the first groups.
    lines = re.findall(r"step (\d) sample \[math, label ''\] reward (\d\.\d\d) \((correct|wrong|partial)[^)]*\)", out)
    assert [int(step) for step, _, _ in lines] == [1] * SAMPLES_PER_STEP + [2] * SAMPLES_PER_STEP

    # MLflow: one artifact a step, the same samples, read back with MLflow's own client.
    done = subprocess.run([str(mlflow_server.tool_python()), "-c", _ARTIFACTS, mlflow_url, SAMPLES_ARTIFACTS,
                           str(tmp_path / "downloaded")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    artifacts = json.loads(done.stdout)
    assert sorted(artifacts) == [f"{SAMPLES_ARTIFACTS}/step-00000001.json", f"{SAMPLES_ARTIFACTS}/step-00000002.json"]
    for step in (1, 2):
        samples = artifacts[f"{SAMPLES_ARTIFACTS}/step-{step:08d}.json"]
        assert len(samples) == SAMPLES_PER_STEP and {s["step"] for s in samples} == {step}
        assert [f"{s['reward']:.2f}" for s in samples] == [r for st, r, _ in lines if int(st) == step]
        # Best then worst of a group: the pair its advantages contrast.
        assert samples[0]["task"] == samples[1]["task"] and samples[0]["reward"] >= samples[1]["reward"]
        assert all(s["prompt"] and s["response"] and s["response_tokens"] >= 1 for s in samples)
        assert all(0.0 <= s["reward"] <= 1.0 and s["verdict"].split(",")[0] in ("correct", "wrong", "partial")
                   for s in samples)

    # TensorBoard: every step's scalars as the metrics JSONL has them, and the samples' text.
    [events_file] = (tmp_path / "ckpt" / TENSORBOARD_DIR).glob("events.out.tfevents.*")
    scalars, texts = {}, {}
    for event in read_events(events_file):
        for value in event.summary.value:
            if value.HasField("simple_value"):
                scalars[(value.tag, event.step)] = value.simple_value
            elif value.tag == "samples/text_summary":
                texts[event.step] = value.tensor.string_val[0].decode()
    for step, record in metrics.items():
        for name in ("loss", "mean_reward", "tokens", "trainer_busy_s", "staleness_mean"):
            assert scalars[(f"train/{name}", step)] == pytest.approx(record[name], rel=1e-6), (name, step)
    assert {tag for tag, _ in scalars} >= {f"train/{k}" for k, v in metrics[1].items()
                                           if isinstance(v, (int, float)) and not isinstance(v, bool)
                                           and k not in ("step", "wall_time")}
    assert sorted(texts) == [1, 2]
    assert all(text.count("\n") == 1 + SAMPLES_PER_STEP and text.startswith("| reward | verdict |") for text in texts.values())
    assert GROUP_SIZE >= 2  # best and worst are different samples
