"""The acceptance commands dist/acceptance/ runs, with the same command lines, on this machine:
all-reduce under torchrun (gloo here, NCCL on the cluster) and the SGLang smoke test against the
embedded engine, which serves the same HTTP API and weight-update group."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.payload.rollout.helpers import REPO, ServeProcess, env, save_tiny_model


def torchrun(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", "-m", "payload",
                           "accept-nccl", *args], env=env(), cwd=REPO, capture_output=True, text=True, timeout=180)


def test_all_reduce_reports_bus_bandwidth_per_size():
    result = torchrun("--sizes-mb", "1,2", "--iters", "2")
    assert result.returncode == 0, result.stderr[-2000:]
    lines = [line for line in result.stdout.splitlines() if "bus bandwidth" in line]
    assert [line.split()[0] for line in lines] == ["1", "2"]
    assert all(float(line.split()[-2]) > 0 for line in lines)


def test_all_reduce_below_the_floor_fails_with_one_line():
    result = torchrun("--sizes-mb", "1", "--iters", "1", "--min-busbw-gbs", "1000000")
    assert result.returncode != 0
    assert "error: bus bandwidth" in result.stderr and "is below 1000000.0 GB/s" in result.stderr


@pytest.fixture
def served(tmp_path):
    process = ServeProcess(save_tiny_model(tmp_path / "model", seed=3)).start()
    yield process
    process.stop()


def test_sglang_smoke_generates_publishes_and_sees_the_new_version(served):
    result = subprocess.run([sys.executable, "-m", "payload", "accept-sglang", "--url", served.url, "--backend", "gloo",
                             "--ranks-per-server", "1", "--dtype", "float32"],
                            env=env(), cwd=REPO, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "generate: 8 tokens at weight version 0" in result.stdout
    assert "version check: /model_info and responses report 1" in result.stdout


# Lines as DeepEP's tests/elastic/test_ep.py (dd758ca) prints them per rank, from its own f-strings.
FAKE_TEST_EP = '''
import sys
for rank in range(2):
    print(f"   * EP: {rank:3}/2 | dispatch: {0 if '--zero' in sys.argv else 40 + rank:.0f} GB/s (SO), {300 + rank:.0f} GB/s (SU), 412.123 us, 1234 bytes | copy: 900 GB/s, 1.000 us")
    print(f"   @ EP: {rank:3}/2 | combine: {0:.0f} GB/s (SO), {250 + 10 * rank:.0f} GB/s (SU), 500.000 us, 1234 bytes | reduce: 800 GB/s, 2.000 us")
sys.exit(int(sys.argv[sys.argv.index("--num-processes") + 1]) - 2)
'''


def accept_deepep(tmp_path, monkeypatch, capsys, num_processes: int = 2):
    import payload.ep.deepep
    from payload.__main__ import main

    monkeypatch.delenv("RL_REQUIRE_EFA", raising=False)
    monkeypatch.setattr(payload.ep.deepep, "deepep_unavailable_reason", lambda: None)
    test = tmp_path / "test_ep.py"
    test.write_text(FAKE_TEST_EP)
    code = main(["accept-deepep", "--test", str(test), "--num-processes", str(num_processes)])
    return code, capsys.readouterr()


def test_deepep_acceptance_prints_the_tests_figures(tmp_path, monkeypatch, capsys):
    code, out = accept_deepep(tmp_path, monkeypatch, capsys)
    assert code == 0, out.err
    lines = out.out.splitlines()
    assert "   * EP:   1/2 | dispatch: 41 GB/s (SO), 301 GB/s (SU), 412.123 us, 1234 bytes | copy: 900 GB/s, 1.000 us" in lines
    assert "every case passed its bitwise checks" in out.out
    assert "  dispatch           SU    300 /  300   SO     40 /   40" in lines
    assert "  combine            SU    255 /  250" in lines  # no scale-out traffic: no SO column


def test_deepep_acceptance_fails_with_one_line_when_the_test_fails(tmp_path, monkeypatch, capsys):
    code, out = accept_deepep(tmp_path, monkeypatch, capsys, num_processes=3)
    assert code == 1
    assert out.err == "error: DeepEP's test_ep.py exited 1: a failed check or a timeout (its output is above)\n"


def test_deepep_acceptance_without_deepep_says_why_in_one_line(tmp_path):
    # This machine has neither a GPU nor DeepEP: the trainer's own reason, one line, no traceback.
    test = tmp_path / "test_ep.py"
    test.write_text(FAKE_TEST_EP)
    result = subprocess.run([sys.executable, "-m", "payload", "accept-deepep", "--test", str(test)],
                            env=env(), cwd=REPO, capture_output=True, text=True, timeout=180)
    assert result.returncode == 1 and result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith("error: the deepep backend needs a CUDA GPU") and "cannot import DeepEP" in line
