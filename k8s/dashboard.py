"""The RL job's Grafana dashboard, loaded by kube-prometheus-stack's dashboard sidecar (a
ConfigMap labelled grafana_dashboard=1, k8s/charts/monitoring.py).

Operators watch three dimensions together, beside the learning curves: accelerators (GPU
utilisation and memory from DCGM), memory pressure (SGLang's KV cache and queue, the
experience buffer) and network (EFA bytes per node, NVLink). Metric names come from their
producers: spec.signals (the job), SGLang 0.5.23
(sglang/srt/observability/metrics_collector.py: `sglang:token_usage`, `sglang:num_queue_reqs`),
the dcgm-exporter chart's default counters (cluster/monitoring.py: DCGM_FI_DEV_GPU_UTIL,
_FB_USED/_FB_FREE, _NVLINK_BANDWIDTH_TOTAL; label Hostname), read from the node monitoring
agent's host engine, redis_exporter, and cluster/monitoring.py.
"""

from __future__ import annotations

import json

from cluster.monitoring import efa_metric
from cluster.monitoring import DCGM_FB_FREE, DCGM_FB_USED, DCGM_GPU_UTIL, DCGM_NVLINK
from k8s.pods import NAMESPACE, ROLLOUT_SERVER, TRAINER
from spec import signals

DASHBOARD_UID = "moe-rl-job"
# Trainer gauges set once per optimizer step (payload/train/trainer.py registers rl_trainer_<name>).
MEAN_REWARD = "rl_trainer_mean_reward"
# SGLang 0.5.23: KV cache pool usage (0-1) and requests waiting for a slot, per server.
SGLANG_KV_USAGE = "sglang:token_usage"
SGLANG_QUEUE = "sglang:num_queue_reqs"


def _fraction(part: str, parts: tuple[str, ...]) -> str:
    total = " + ".join(f"sum(rate({m}[5m]))" for m in parts)
    return f"sum(rate({part}[5m])) / ({total})"


def panels(max_staleness: int, buffer_high_water: int) -> list[tuple[str, str, str, list[tuple[str, str]]]]:
    """(row, panel title, unit, [(PromQL, legend)]) in reading order."""
    trainer_parts = (signals.TRAINER_BUSY_SECONDS, signals.TRAINER_IDLE_SECONDS, signals.TRAINER_PUBLISH_SECONDS)
    rollout_parts = (signals.ROLLOUT_BUSY_SECONDS, signals.ROLLOUT_IDLE_SECONDS)
    gpu_pods = f'exported_namespace="{NAMESPACE}", exported_pod=~"({TRAINER}|{ROLLOUT_SERVER})-.*"'
    return [
        ("Learning", "Mean reward per step", "short", [(f"max({MEAN_REWARD})", "reward")]),
        ("Learning", "Held-out eval by data source", "short", [
            (f"max by (data_source) ({signals.EVAL_MEAN_REWARD})", "{{data_source}} mean reward"),
            (f"max by (data_source) ({signals.EVAL_PASS_AT_1})", "{{data_source}} pass@1"),
        ]),
        ("Learning", "Policy staleness (samples trained on)", "short", [
            (f"max({signals.POLICY_STALENESS})", "staleness"), (str(max_staleness), "rollout.max_staleness"),
        ]),
        ("Learning", "Optimizer steps per minute", "short", [(f"sum(rate({signals.TRAINER_STEPS}[5m])) * 60", "steps/min")]),
        ("Balance", "Trainer and rollout idle", "percentunit", [
            (_fraction(signals.TRAINER_IDLE_SECONDS, trainer_parts), "trainer waiting for experiences"),
            (_fraction(signals.ROLLOUT_IDLE_SECONDS, rollout_parts), "rollout workers paused"),
        ]),
        ("Balance", "Weight publish time per step", "s", [
            (f"sum(rate({signals.TRAINER_PUBLISH_SECONDS}[5m])) / sum(rate({signals.TRAINER_STEPS}[5m]))", "publish"),
        ]),
        ("Accelerators", "GPU utilisation by pod", "percent", [
            (f"avg by (exported_pod) ({DCGM_GPU_UTIL}{{{gpu_pods}}})", "{{exported_pod}}"),
        ]),
        ("Accelerators", "GPU memory used by pod", "percentunit", [
            (f"sum by (exported_pod) ({DCGM_FB_USED}{{{gpu_pods}}}) / sum by (exported_pod) "
             f"({DCGM_FB_USED}{{{gpu_pods}}} + {DCGM_FB_FREE}{{{gpu_pods}}})", "{{exported_pod}}"),
        ]),
        ("Memory pressure", "SGLang KV cache usage by server", "percentunit", [
            (f'max by (pod) ({SGLANG_KV_USAGE}{{namespace="{NAMESPACE}"}})', "{{pod}}"),
        ]),
        ("Memory pressure", "SGLang queued requests by server", "short", [
            (f'sum by (pod) ({SGLANG_QUEUE}{{namespace="{NAMESPACE}"}})', "{{pod}}"),
        ]),
        ("Memory pressure", "Experience buffer fill", "short", [
            (f"max({signals.BUFFER_GROUPS})", "groups waiting"), (str(buffer_high_water), "high-water mark"),
        ]),
        ("Memory pressure", "Buffer memory (Redis)", "percentunit", [
            ("max(redis_memory_used_bytes / redis_memory_max_bytes)", "used / maxmemory"),
        ]),
        ("Network", "EFA traffic per node", "Bps", [
            (f"sum by (instance) (rate({efa_metric('tx_bytes')}[1m]))", "{{instance}} tx"),
            (f"sum by (instance) (rate({efa_metric('rx_bytes')}[1m]))", "{{instance}} rx"),
        ]),
        ("Network", "NVLink traffic per node", "Bps", [
            (f"sum by (Hostname) (rate({DCGM_NVLINK}[1m]))", "{{Hostname}}"),
        ]),
    ]


def dashboard_json(max_staleness: int, buffer_high_water: int) -> str:
    """Grafana dashboard JSON: one row per dimension, two panels across."""
    items, x, y, row = [], 0, 0, None
    for index, (row_title, title, unit, queries) in enumerate(panels(max_staleness, buffer_high_water)):
        if row_title != row:
            if x:  # the last row ended with half a line
                x, y = 0, y + 8
            row = row_title
            items.append({"type": "row", "title": row, "collapsed": False, "id": 1000 + index,
                          "gridPos": {"h": 1, "w": 24, "x": 0, "y": y}})
            y += 1
        items.append({
            "type": "timeseries",
            "id": index + 1,
            "title": title,
            "datasource": {"type": "prometheus", "uid": "${datasource}"},
            "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
            "gridPos": {"h": 8, "w": 12, "x": x, "y": y},
            "targets": [
                {"refId": chr(ord("A") + i), "expr": expr, "legendFormat": legend,
                 "datasource": {"type": "prometheus", "uid": "${datasource}"}}
                for i, (expr, legend) in enumerate(queries)
            ],
        })
        x, y = (12, y) if x == 0 else (0, y + 8)
    dashboard = {
        "uid": DASHBOARD_UID,
        "title": "MoE RL job",
        "tags": ["moe-rl"],
        "timezone": "utc",
        "refresh": "30s",
        "schemaVersion": 39,
        "time": {"from": "now-6h", "to": "now"},
        "templating": {"list": [{"name": "datasource", "type": "datasource", "query": "prometheus", "label": "Prometheus"}]},
        "panels": items,
    }
    return json.dumps(dashboard, indent=1, sort_keys=True)
