"""Planning reads the pool's own GPU: a p5.48xlarge (H100) environment is planned with the H100's
memory, HBM, NVLink and matmul rate, never the H200's (spec/hardware.py)."""

import math

import pytest
import yaml

from estimate.checks import job_costs, parse_environment
from estimate.footprint import FIT_FRACTION, footprint, job_footprint
from estimate.throughput import estimate_rates
from payload.__main__ import main
from spec.environment import ENVIRONMENTS_DIR, EnvironmentFileError
from spec.hardware import GPUS, INSTANCE_TYPES
from spec.model_shape import ARCHITECTURES


def on(instance_type: str) -> dict:
    data = yaml.safe_load((ENVIRONMENTS_DIR / "p5en-48.yaml").read_text())
    for pool in ("train", "rollout"):
        data["pools"][pool]["instance_type"] = instance_type
    return data


@pytest.fixture(scope="module")
def h100():
    return parse_environment(on("p5.48xlarge"), "p5-48.yaml")


def test_every_gpu_instance_type_has_its_gpus_figures():
    for name, spec in INSTANCE_TYPES.items():
        if spec.gpus:
            assert spec.gpu_spec is GPUS[spec.gpu] and spec.efa_gb_s_per_gpu > 0, name
    assert INSTANCE_TYPES["p5.48xlarge"].gpu_spec.matmul_tflops < INSTANCE_TYPES["p5en.48xlarge"].gpu_spec.matmul_tflops


def test_the_h100_layout_fits_80_gb(h100):
    layout, shape, fp = job_footprint(ARCHITECTURES["Qwen3-30B-A3B"], h100)
    assert fp.memory_total_gb <= FIT_FRACTION * 80 < FIT_FRACTION * 141
    # The links and compute rate are the H100 node's: 450 GB/s NVLink, 3,200 Gb/s EFA over 8 GPUs.
    assert (fp.nvlink_bytes_per_s, fp.efa_bytes_per_s) == (450e9, 50e9)
    # The same layout and step on an H200 node: only the GPU's rate differs.
    config = ARCHITECTURES["Qwen3-30B-A3B"].replace(lm_head_keep_logits=fp.keeps_logits)
    on_h200 = footprint(config, layout, shape, INSTANCE_TYPES["p5en.48xlarge"])
    assert fp.compute_s / on_h200.compute_s == pytest.approx(775 / 731)
    assert fp.memory_gb == on_h200.memory_gb


def test_the_h100_trainer_and_servers_run_at_h100_rates(h100):
    estimate = estimate_rates(h100)
    a, t = estimate.assumptions, estimate.trainer
    assert (a.peak_tflops, a.hbm_gb_s, a.train_mfu) == (731, 3350, GPUS["NVIDIA H100"].train_mfu)
    head = 2 * ARCHITECTURES["Qwen3-30B-A3B"].hidden_size * ARCHITECTURES["Qwen3-30B-A3B"].vocab_size
    work = t.flops_per_token - (head if t.keeps_logits else 0)
    assert math.isclose(t.compute_s, t.step_tokens * work / (128 * a.train_mfu * 731e12), rel_tol=1e-3)
    # 235B does not fit 16 nodes of 80 GB GPUs: refused in one line, naming the GB and the limit.
    data = on("p5.48xlarge")
    data["job"]["model"]["path"] = "/fsx/models/Qwen3-235B-A22B"
    data["storage"] = {"fsx_storage_gib": 14400, "fsx_throughput_mb_s_per_tib": 1000}
    with pytest.raises(EnvironmentFileError, match=r"Qwen3-235B-A22B needs [\d.]+ GB a GPU .* more than the "
                                                   r"72.0 GB that fit \(90% of a 80 GB GPU\)"):
        parse_environment(data, "p5-48.yaml")


def test_h100_publish_and_checkpoint_use_the_h100_nodes_links(h100):
    """p5.48xlarge has the p5en's 3,200 Gb/s of EFA and 450 GB/s of NVLink: the same movement model."""
    h200 = job_costs(parse_environment(on("p5en.48xlarge"), "p5en.yaml"))
    assert job_costs(h100).publish == h200.publish and job_costs(h100).checkpoint == h200.checkpoint


def test_plan_prints_the_h100_rate(tmp_path, capsys):
    path = tmp_path / "p5-48.yaml"
    data = on("p5.48xlarge")
    data["name"] = "p5-48"
    path.write_text(yaml.safe_dump(data))
    assert main(["plan", "--env", str(path), "--model", "Qwen3-30B-A3B"]) == 0
    out = capsys.readouterr().out
    assert f"at {731 * 0.357:.0f} TFLOP/s (35.7% MFU of 731)" in out and "of 80 GB" in out


def test_measured_gpu_figures_rank_the_layouts_everywhere(tmp_path, capsys):
    """A GPU a fifth as fast makes compute, not links, the 235B step's cost: the pipeline's
    layout gives way to one without stages, and `plan --peak-tflops`, the environment's own
    pools.train.gpu_figures and the layout the manifests render all pick the same one."""
    data = yaml.safe_load((ENVIRONMENTS_DIR / "p5en-48.yaml").read_text())
    data["job"]["model"]["path"] = "/fsx/models/Qwen3-235B-A22B"
    data["storage"] = {"fsx_storage_gib": 14400, "fsx_throughput_mb_s_per_tib": 1000}
    as_shipped = parse_environment(data, "p5en-48.yaml").layout.trainer
    data["pools"]["train"]["gpu_figures"] = {"matmul_tflops": 150}
    slow = parse_environment(data, "p5en-48.yaml").layout.trainer
    assert as_shipped.pipeline == 16 and slow.pipeline == 1

    assert main(["plan", "--env", "p5en-48", "--model", "Qwen3-235B-A22B", "--peak-tflops", "150"]) == 0
    out = capsys.readouterr().out
    assert f"{slow.describe()}" in out and "35.7% MFU of 150)" in out
    picked = next(line for line in out.splitlines() if line.endswith("<- picked") and " x EP " in line)
    assert picked.lstrip().startswith(slow.describe()) and "the job's layout for Qwen3-235B-A22B is the one picked" in out


def test_gpu_figures_need_a_gpu_pool():
    data = yaml.safe_load((ENVIRONMENTS_DIR / "p5en-48.yaml").read_text())
    data["pools"]["cpu"]["gpu_figures"] = {"matmul_tflops": 100}
    with pytest.raises(EnvironmentFileError, match="pools.cpu: gpu_figures: c7i.* has no GPU"):
        parse_environment(data, "p5en-48.yaml")
    data = yaml.safe_load((ENVIRONMENTS_DIR / "p5en-48.yaml").read_text())
    data["pools"]["train"]["gpu_figures"] = {"train_mfu": 1.5}
    with pytest.raises(EnvironmentFileError, match="pools.train.gpu_figures.train_mfu"):
        parse_environment(data, "p5en-48.yaml")
