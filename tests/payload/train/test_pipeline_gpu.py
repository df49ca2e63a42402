"""PP on a GPU in bf16: bench/pipeline_memory.py's 1F1B-ordered stage step runs (one GPU, no
second process: NCCL refuses two ranks on one device), and the memory it reports matches the
planner's model within 2x
(its persistent bytes within 5%). Run: python3 -m pytest tests/payload/train/test_pipeline_gpu.py -s"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.gpu
@pytest.mark.parametrize("stage", [0, 1, 3])
def test_a_pipeline_stage_steps_in_bf16_on_the_gpu_and_its_memory_is_modelled(stage):
    run = subprocess.run([sys.executable, str(ROOT / "bench/pipeline_memory.py"), "--stage", str(stage), "--layers", "1",
                          "--tokens", "2048", "--micro-batches", "5"], capture_output=True, text=True, timeout=600, cwd=ROOT)
    print(run.stdout, run.stderr[-3000:])
    assert run.returncode == 0
    def ratio(label):
        line = next(l for l in run.stdout.splitlines() if label in l)
        return float(line.split()[-2]), line

    peak, line = ratio("max_memory_allocated")
    assert 0.5 < peak < 2.0, line
    # Measured after the warm-up step, the persistent bytes (weights, grads, AdamW moments) are
    # tensors of known size: the model has them exactly.
    persistent, line = ratio("= persistent")
    assert 0.95 < persistent < 1.05, line
