"""The RL job's Grafana dashboard in dist/: loadable by the sidecar, covering accelerators,
memory pressure and network beside the learning curves, with the producers' metric names."""

import json
import re

from k8s.charts.monitoring import DASHBOARD_LABELS
from k8s.dashboard import MEAN_REWARD
from spec import signals


def dashboard(synthed) -> dict:
    (config_map,) = [cm for cm in synthed.kind("ConfigMap") if cm["metadata"]["name"] == "rl-job-dashboard"]
    assert DASHBOARD_LABELS.items() <= config_map["metadata"]["labels"].items()
    (document,) = config_map["data"].values()
    return json.loads(document)


def test_rows_cover_the_three_dimensions_and_the_job(synthed):
    board = dashboard(synthed)
    rows = [p["title"] for p in board["panels"] if p["type"] == "row"]
    assert rows == ["Learning", "Balance", "Accelerators", "Memory pressure", "Network"]
    exprs = " ".join(t["expr"] for p in board["panels"] for t in p.get("targets", []))
    for metric in (MEAN_REWARD, signals.EVAL_MEAN_REWARD, signals.EVAL_PASS_AT_1, signals.POLICY_STALENESS, signals.BUFFER_GROUPS, signals.TRAINER_IDLE_SECONDS,
                   signals.ROLLOUT_IDLE_SECONDS, signals.TRAINER_PUBLISH_SECONDS, "DCGM_FI_DEV_GPU_UTIL",
                   "DCGM_FI_DEV_FB_USED", "sglang:token_usage", "sglang:num_queue_reqs", "node_efa_tx_bytes_total",
                   "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL"):
        assert metric in exprs, metric
    # The thresholds drawn are the environment's own.
    assert f"{synthed.environment.job.rollout.buffer_high_water_groups}" in exprs


def test_panels_do_not_overlap(synthed):
    cells = set()
    for panel in dashboard(synthed)["panels"]:
        g = panel["gridPos"]
        area = {(x, y) for x in range(g["x"], g["x"] + g["w"]) for y in range(g["y"], g["y"] + g["h"])}
        assert not cells & area, panel["title"]
        cells |= area


def test_job_metrics_are_ones_the_payload_registers():
    """Every rl_* name on the dashboard is exported by the trainer or the rollout workers."""
    from payload.train import trainer

    board_names = set(re.findall(r"\brl_[a-z0-9_]+", json.dumps([p.get("targets") for p in dashboard_panels()])))
    registered = {value for name, value in vars(signals).items() if name.isupper() and isinstance(value, str)}
    registered |= {f"rl_trainer_{name}" for name in trainer._STEP_GAUGES}
    assert board_names and board_names <= registered, board_names - registered


def dashboard_panels():
    from k8s.dashboard import dashboard_json

    return json.loads(dashboard_json(2, 100))["panels"]


def test_gpu_panels_read_only_what_the_dcgm_exporter_publishes(synthed):
    """Every DCGM series the dashboard and alerts read is one of the fields cluster/monitoring.py
    names from the exporter's default counters file (the exporter the stack points `-f` at, reading
    the node monitoring agent's host engine): GPU utilisation, framebuffer used and free, NVLink."""
    from cluster.monitoring import DASHBOARD_DCGM_METRICS

    board = json.dumps([p.get("targets") for p in dashboard(synthed)["panels"]])
    (rules,) = [r for r in synthed.kind("PrometheusRule")]
    alerts = json.dumps(rules["spec"])
    used = set(re.findall(r"\bDCGM_FI_[A-Z0-9_]+", board + alerts))
    assert used == set(DASHBOARD_DCGM_METRICS) == {
        "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL"}
