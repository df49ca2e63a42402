"""payload.common.service: the /healthz watchdog, /readyz, /metrics and JSON log lines."""

import json
import logging
import time

import httpx
from prometheus_client import CollectorRegistry

from payload.common.service import JsonFormatter, Service


def test_watchdog_health_readiness_and_metrics():
    service = Service.Config(metrics_port=0, metrics_host="127.0.0.1", stall_timeout_s=2.0).build(
        "test", registry=CollectorRegistry()).start(handle_signals=False)
    url = f"http://127.0.0.1:{service.port}"
    try:
        assert httpx.get(f"{url}/healthz").status_code == 200
        assert httpx.get(f"{url}/readyz").status_code == 503  # not ready until told
        service.set_ready(True)
        assert httpx.get(f"{url}/readyz").json() == {"ready": True}
        # No progress for longer than the stall timeout (2 s: a loaded CI machine may take a
        # good part of a second to answer the requests around it).
        time.sleep(2.1)
        stalled = httpx.get(f"{url}/healthz")
        assert stalled.status_code == 503 and stalled.json()["status"] == "stalled"
        assert stalled.json()["seconds_since_progress"] >= 2.0
        service.beat()
        assert httpx.get(f"{url}/healthz").status_code == 200
        metrics = httpx.get(f"{url}/metrics").text
        assert 'rl_seconds_since_progress{service="test"}' in metrics
        service.stopping.set()  # SIGTERM: no longer ready
        assert httpx.get(f"{url}/readyz").status_code == 503
    finally:
        service.close()


def test_log_lines_are_json_with_extra_fields():
    record = logging.LogRecord("payload.rollout", logging.INFO, __file__, 1, "group %s written", ("t1",), None)
    record.task_id = "t1"
    line = json.loads(JsonFormatter("rollout-worker").format(record))
    assert line["msg"] == "group t1 written" and line["task_id"] == "t1"
    assert line["service"] == "rollout-worker" and line["level"] == "info"


def test_sglangs_metrics_are_served_on_the_supervisors_port(tmp_path):
    """SGLang writes prometheus_client multiprocess files (what sglang 0.5.23 does under
    $PROMETHEUS_MULTIPROC_DIR); the supervisor's /metrics serves them, so Prometheus never
    needs SGLang's API port."""
    import os
    import subprocess
    import sys

    from payload.rollout.serve import share_sglang_metrics

    registry = CollectorRegistry()
    service = Service.Config(metrics_port=0, metrics_host="127.0.0.1").build("serve-sglang", registry).start(
        handle_signals=False
    )
    env = share_sglang_metrics(registry, str(tmp_path))
    child = ("from prometheus_client import Gauge, Counter\n"
             "Gauge('sglang:token_usage', 'KV usage', ['model_name'], multiprocess_mode='mostrecent')"
             ".labels('m').set(0.25)\n"
             "Counter('sglang:prompt_tokens', 'prompt tokens', ['model_name']).labels('m').inc(7)\n")
    subprocess.run([sys.executable, "-c", child], env={**os.environ, **env}, check=True, timeout=60)
    try:
        text = httpx.get(f"http://127.0.0.1:{service.port}/metrics").text
    finally:
        service.close()
    assert 'sglang:token_usage{model_name="m"} 0.25' in text
    assert 'sglang:prompt_tokens_total{model_name="m"} 7.0' in text
    assert "rl_seconds_since_progress" in text
