"""A phase that outlives the stall timeout fails /healthz and is named in the log and in the
container's termination message; progress in the next phase clears it."""

import logging
import time

import httpx
from prometheus_client import CollectorRegistry

from payload.common.service import Service
from payload.train.watchdog import PhaseWatchdog


def test_stalled_phase_is_named_and_fails_health(tmp_path, caplog):
    registry = CollectorRegistry()
    service = Service.Config(metrics_port=0, metrics_host="127.0.0.1", stall_timeout_s=0.5).build("trainer", registry)
    service.start(handle_signals=False)
    termination = tmp_path / "termination-log"
    watchdog = PhaseWatchdog(service, registry, termination_log=str(termination), poll_s=0.05)
    url = f"http://127.0.0.1:{service.port}"
    try:
        with caplog.at_level(logging.ERROR, logger="payload.train.watchdog"):
            with watchdog.phase("train_step"):
                assert httpx.get(f"{url}/healthz").status_code == 200
            watchdog.enter("wait_experience")
            deadline = time.monotonic() + 10
            while not termination.exists():
                assert time.monotonic() < deadline
                time.sleep(0.05)
        assert httpx.get(f"{url}/healthz").status_code == 503
        assert "trainer phase 'wait_experience' stalled for" in termination.read_text()
        assert any("'wait_experience' stalled" in r.getMessage() for r in caplog.records)
        metrics = httpx.get(f"{url}/metrics").text
        assert 'rl_trainer_phase{rl_trainer_phase="wait_experience"} 1.0' in metrics
        watchdog.enter("train_step")  # the experience arrived
        assert httpx.get(f"{url}/healthz").status_code == 200
    finally:
        watchdog.close()
        service.close()
