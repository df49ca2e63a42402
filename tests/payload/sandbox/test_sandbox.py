"""The sandbox: the real `python -m payload sandbox` server on loopback, scored through the
`code` verifier, against programs that try to escape. Each attack is written so that it exits 0
only if it succeeds: contained means scored 0, and the test also checks what it aimed at."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pytest

from k8s.charts.sandbox import sandbox_command
from payload.queue.experience import ExperienceGroup, Sample
from payload.rewards import RewardPool, get_verifier
from payload.sandbox.client import SANDBOX_URL_ENV, SandboxClient
from payload.common.ports import free_port

REPO = Path(__file__).resolve().parents[3]
CANARY_ENV = "RL_SANDBOX_CANARY"
CANARY_VALUE = "do-not-leak"
# The k8s chart's command line (k8s/charts/sandbox.py), with loopback and a free port.
LIMITS = ("--wall-s", "4", "--cpu-s", "3", "--memory-mib", "256", "--processes", "16")


def _without_port(args: list[str]) -> list[str]:
    at = args.index("--port")
    return args[:at] + args[at + 2:]


class SandboxServer:
    def __init__(self, *args: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        command = [sys.executable, "-m", "payload", "sandbox", *args, "--host", "127.0.0.1", "--port", str(self.port)]
        env = {**os.environ, "PYTHONPATH": str(REPO), CANARY_ENV: CANARY_VALUE}
        self.process = subprocess.Popen(command, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.process.stderr.read().decode()
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        raise RuntimeError("sandbox server did not start")

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(10)


@pytest.fixture(scope="module")
def sandbox():
    server = SandboxServer("--isolation", "namespaces", *LIMITS)
    yield server
    server.stop()


@pytest.fixture
def verifier(sandbox, monkeypatch):
    monkeypatch.setenv(SANDBOX_URL_ENV, sandbox.url)
    return get_verifier("code")


def _sandbox_user_processes(server: "SandboxServer") -> list[str]:
    """Live processes of the jail's user (`nobody`) under this server: the server is their
    subreaper (payload/sandbox/jail.py), so whatever a program left, even after setsid, is its
    descendant. (Other sandboxes on the machine, e.g. another test process's, are not this one's.)
    A killed one may still be a zombie for a moment, until its reparented parent reaps it: dead,
    holding nothing, not counted."""
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid=,uid=,stat=,cmd="], capture_output=True, text=True).stdout
    rows = [line.split(None, 4) for line in out.splitlines() if line.strip()]
    children: dict[int, list[list[str]]] = {}
    for row in rows:
        children.setdefault(int(row[1]), []).append(row)
    found, todo = [], [server.process.pid]
    while todo:
        for row in children.get(todo.pop(), []):
            todo.append(int(row[0]))
            if row[2] == "65534" and not row[3].startswith("Z"):
                found.append(" ".join(row))
    return found


def test_a_correct_program_passes_and_a_wrong_one_fails(verifier):
    tests = "assert add(2, 3) == 5\nassert add(-1, 1) == 0"
    right = "Here it is:\n```python\ndef add(a, b):\n    return a + b\n```"
    wrong = "```python\ndef add(a, b):\n    return a - b\n```"
    assert verifier.score(right, tests) == 1.0
    assert verifier.score(wrong, tests) == 0.0


def test_the_reward_pool_scores_code_groups_through_the_sandbox_pool(sandbox, monkeypatch):
    monkeypatch.setenv(SANDBOX_URL_ENV, sandbox.url)  # inherited by the pool's spawned processes
    samples = [Sample(token_ids_T=[1], logprobs_T=[0.0], finish_reason="stop", text=text)
               for text in ("def f(x):\n    return x * 2", "def f(x):\n    return x + 2", "while True: pass")]
    group = ExperienceGroup(task_id="t", prompt_id="p", policy_version=0, prompt_tokens_P=[1], samples=samples,
                            label="assert f(5) == 10", verifier="code")
    pool = RewardPool.Config(processes=1).build()
    try:
        pool.score_group(group)
    finally:
        pool.close()
    assert [s.reward for s in group.samples] == [1.0, 0.0, 0.0]


def _attacks(sandbox_port: int, canary_file: Path) -> dict[str, str]:
    return {
        "fork_bomb": "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass",
        "infinite_loop": "while True:\n    pass",
        "memory_hog": "x = bytearray(4 << 30)",
        "network_to_the_sandbox_server": f"import socket\nsocket.create_connection(('127.0.0.1', {sandbox_port}), timeout=2)",
        "network_to_the_internet": "import socket\nsocket.create_connection(('1.1.1.1', 53), timeout=2)",
        "environment_variables": f"import os\nassert os.environ.get({CANARY_ENV!r}) == {CANARY_VALUE!r}",
        "a_parents_environment": ("import os\nfound = False\nfor pid in os.listdir('/proc'):\n"
                                  "    try:\n        found |= b'" + CANARY_VALUE + "' in open(f'/proc/{pid}/environ', 'rb').read()\n"
                                  "    except (OSError, ValueError):\n        pass\nassert found"),
        "service_account_token": "print(open('/var/run/secrets/kubernetes.io/serviceaccount/token').read())",
        "read_a_file_outside": f"assert open({str(canary_file)!r}).read() == 'canary'",
        "write_a_file_outside": f"open({str(canary_file)!r}, 'w').write('pwned')",
        "write_the_payload": f"open({str(REPO / 'payload' / '__init__.py')!r}, 'a').write('pwned')",
        "setsid_escape": "import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(600)\nraise SystemExit(1)",
    }


ATTACKS = list(_attacks(0, Path("/")))


@pytest.mark.parametrize("attack", ATTACKS)
def test_an_escaping_program_is_contained_and_scored_a_failure(attack, sandbox, verifier, tmp_path):
    canary_dir = tmp_path / "outside"
    canary_dir.mkdir(mode=0o777)
    canary_dir.chmod(0o777)  # the file system's permissions alone would not stop the program
    canary = canary_dir / "canary.txt"
    canary.write_text("canary")
    canary.chmod(0o666)
    payload_init = (REPO / "payload" / "__init__.py").read_bytes()

    assert verifier.score(_attacks(sandbox.port, canary)[attack], "") == 0.0

    assert canary.read_text() == "canary"
    assert (REPO / "payload" / "__init__.py").read_bytes() == payload_init
    assert _sandbox_user_processes(sandbox) == []  # nothing it forked outlives the run
    # The server took the next program as before.
    assert SandboxClient(sandbox.url).run("print(6 * 7)").stdout == b"42\n"


def test_a_namespaces_jail_sees_an_empty_root_and_no_host_socket(sandbox):
    """The local jail's root holds what the interpreter needs and nothing of the host beside it:
    a Unix socket the host listens on (here in the repository, a place the old jail left
    readable) is neither visible nor reachable, nor is the repository, /etc, /home, /run; the
    standard library still imports, and the program holds no capability."""
    with tempfile.TemporaryDirectory(dir=REPO, prefix=".sandbox-socket-") as directory:
        os.chmod(directory, 0o755)
        path = os.path.join(directory, "redis.sock")
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(path)
        os.chmod(path, 0o777)
        listener.listen()
        listener.settimeout(0.5)
        program = f"""import fractions, json, math, os, socket
seen = {{"root": sorted(os.listdir("/")), "etc": os.listdir("/etc"), "socket_dir": os.path.exists({directory!r}),
        "repo": os.path.exists({str(REPO)!r}), "readme": os.path.exists({str(REPO / "README.md")!r}),
        "capabilities": [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff")][0],
        "computed": [str(fractions.Fraction(1, 3) + fractions.Fraction(1, 6)), math.isqrt(99)]}}
try:
    socket.socket(socket.AF_UNIX).connect({path!r})
    seen["connect"] = "connected"
except OSError as exc:
    seen["connect"] = type(exc).__name__
print(json.dumps(seen))
"""
        result = SandboxClient(sandbox.url).run(program)
        with pytest.raises(TimeoutError):
            listener.accept()  # no connection came
        listener.close()
    assert result.ok, result.stderr
    seen = json.loads(result.stdout)
    # /usr/lib*, /lib* (or their symlinks), the loader's cache, the interpreter (/usr/bin/python3).
    assert {"dev", "etc", "proc", "tmp", "usr"} <= set(seen["root"]) <= {
        "dev", "etc", "proc", "tmp", "usr", "lib", "lib32", "lib64", "libx32"}, seen["root"]
    assert seen["etc"] == ["ld.so.cache"]
    assert (seen["socket_dir"], seen["repo"], seen["readme"], seen["connect"]) == (False, False, False, "FileNotFoundError")
    assert seen["capabilities"] == "0000000000000000"
    assert seen["computed"] == ["1/2", 9]


UNPRIVILEGED = 65534


def test_a_namespaces_jail_started_by_an_unprivileged_user_holds_too():
    """The other way a namespaces jail is built: by a user who is not root (a user namespace in
    which the program is uid 0 without capabilities). Run as that user, or as `nobody` when the
    tests run as root: jail.py and jail_init.py import only the standard library, so a copy of
    the two in a directory that user can read (not under pytest's tmp_path) is the real jail."""
    with tempfile.TemporaryDirectory(prefix="sandbox-user-") as directory:
        _run_a_jail_as_a_user(Path(directory))


def _run_a_jail_as_a_user(tmp_path: Path) -> None:
    code = tmp_path / "jail"
    code.mkdir()
    for name in ("jail.py", "jail_init.py"):
        shutil.copy(REPO / "payload" / "sandbox" / name, code / name)
    for path in (tmp_path, code, *code.iterdir()):
        path.chmod(0o755)
    secret = tmp_path / "secret.txt"
    secret.write_text("host file")
    secret.chmod(0o644)
    program = (
        "import ctypes, json, os\n"
        f"seen = {{'uid': os.getuid(), 'root': sorted(os.listdir('/')), 'secret': os.path.exists({str(secret)!r}),\n"
        "        'capabilities': [l.split()[1] for l in open('/proc/self/status') if l.startswith('CapEff')][0],\n"
        "        'mount': ctypes.CDLL(None).mount(b'none', b'/tmp', b'tmpfs', 0, None)}\n"
        "print(json.dumps(seen))\n")
    driver = (f"import json, sys\nsys.path.insert(0, {str(code)!r})\nfrom jail import Jail\n"
              f"result = Jail.Config().build().run({program!r})\n"
              "print(json.dumps([result.exit_code, result.stdout.decode(), result.stderr.decode()]))\n")
    as_user = ["setpriv", f"--reuid={UNPRIVILEGED}", f"--regid={UNPRIVILEGED}", "--clear-groups"] if os.geteuid() == 0 else []
    done = subprocess.run([*as_user, "/usr/bin/python3", "-I", "-c", driver], capture_output=True, text=True,
                          cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    exit_code, stdout, stderr = json.loads(done.stdout)
    assert exit_code == 0, stderr
    seen = json.loads(stdout)
    assert seen["uid"] == 0 and seen["capabilities"] == "0000000000000000" and seen["mount"] == -1
    assert seen["secret"] is False and not {"home", "root", "run", "var"} & set(seen["root"])


@pytest.fixture(scope="module")
def pod_sandbox():
    """The sandbox pods' command (k8s/charts/sandbox.py; tests/k8s holds dist/ to it) on
    loopback, its scratch (the pod's /tmp, /dev/shm and termination-message file) in places of
    the test's own: the server empties them after every run. Not under pytest's tmp_path, which
    `nobody` (the program's user when the tests run as root) cannot enter."""
    base = Path(tempfile.mkdtemp(prefix="sandbox-pod-"))
    base.chmod(0o755)
    tmp, shm, log = base / "tmp", base / "shm", base / "termination-log"
    for directory in (tmp, shm):
        directory.mkdir()
        directory.chmod(0o1777)  # as the pod's: writable by the program's user
    log.touch()
    log.chmod(0o666)  # as the kubelet makes it
    python, _, _, subcommand, *args = sandbox_command(scratch=(str(tmp), str(shm), str(log)))
    assert (python, subcommand) == ("python", "sandbox")
    server = SandboxServer(*_without_port(args))
    server.scratch = (tmp, shm, log)
    yield server
    server.stop()
    shutil.rmtree(base)


def test_dist_command_pod_isolation_applies_the_limits_and_cleans_up(pod_sandbox):
    """The pod spec provides the network and file system boundary (tests/k8s checks it); the
    jail still bounds processes and memory and leaves nothing running, and a program that
    outlives its run is timed out (the wall limit itself is the namespaces tests' infinite loop:
    one code path)."""
    server = pod_sandbox
    client = SandboxClient(server.url)
    assert not client.run("x = bytearray(4 << 30)").ok
    forked = client.run("import os\nfor _ in range(64):\n    os.fork()")
    assert not forked.ok
    # A process that escaped its group holds the output open: the run times out, scored a failure.
    escaped = client.run("import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(600)")
    assert escaped.timed_out and not escaped.ok
    environment = client.run("import os\nprint(sorted(os.environ), os.environ['HOME'] == os.environ['TMPDIR'] == os.getcwd())")
    assert environment.stdout.replace(b"'LC_CTYPE', ", b"") == b"['HOME', 'TMPDIR'] True\n"
    assert _sandbox_user_processes(server) == []
    assert client.run("print(6 * 7)").stdout == b"42\n"


SHM_KEY = 0x5EED0000 + os.getpid() % 0xFFFF  # this test run's own


def test_a_pod_run_leaves_nothing_for_the_next(pod_sandbox):
    """A pod's runs share its writable places; whatever one leaves in any of them (its own
    directory, the /tmp emptyDir around it, /dev/shm, the termination-message file, a System V
    shared memory segment, even in a directory it made unreadable) is gone for the next run,
    and a POSIX message queue cannot be made at all."""
    tmp, shm, log = pod_sandbox.scratch
    client = SandboxClient(pod_sandbox.url)
    leave = f"""import ctypes, os
here = os.getcwd()
places = [here, os.environ["HOME"], os.environ["TMPDIR"], os.path.dirname(here), {str(shm)!r}]
for i, place in enumerate(places):
    open(os.path.join(place, f"left-{{i}}"), "w").write("a message")
locked = os.path.join(os.path.dirname(here), "locked")
os.makedirs(os.path.join(locked, "deeper"))
open(os.path.join(locked, "deeper", "left"), "w").write("a message")
os.chmod(os.path.join(locked, "deeper"), 0)
os.chmod(locked, 0o500)
open({str(log)!r}, "a").write("a message")
libc = ctypes.CDLL(None, use_errno=True)
assert libc.shmget({SHM_KEY}, 4096, 0o1000 | 0o2000 | 0o600) >= 0  # IPC_CREAT | IPC_EXCL
assert libc.mq_open(b"/left", os.O_CREAT | os.O_RDWR, 0o600, None) == -1
print(here)
"""
    first = client.run(leave)
    assert first.ok, first.stderr
    find = f"""import ctypes, os
here = os.getcwd()
found = [os.path.join(d, f) for d in (os.path.dirname(here), {str(shm)!r}) for f in os.listdir(d)]
found += [f"termination-log: {{open({str(log)!r}).read()!r}}"] if os.path.getsize({str(log)!r}) else []
found += ["shm segment"] if ctypes.CDLL(None).shmget({SHM_KEY}, 0, 0) >= 0 else []
print(found, here)
"""
    second = client.run(find)
    assert second.ok, second.stderr
    found, here = second.stdout.decode().rsplit(" ", 1)
    assert found == repr([here.strip()])  # its own directory, nothing else
    assert here.strip() != first.stdout.decode().strip()
    assert list(tmp.iterdir()) == [] and list(shm.iterdir()) == [] and log.read_text() == ""


def _status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise KeyError(field)


# What the server may grow by while a program floods its output: the kept output (1 MiB per
# pipe), one read chunk per pipe, the JSON reply; nowhere near the 3 GiB it is sent.
FLOOD_GROWTH_MIB = 150


def test_a_program_flooding_its_output_leaves_the_server_bounded_and_is_cut():
    """3 GiB to stdout through the real server: it reads the pipes as they fill, keeps the first
    MiB (Limits.output_bytes) and drains the rest, so its peak RSS stays near where it started;
    the program's own exit code and stderr come back with the cut reported."""
    server = SandboxServer("--isolation", "namespaces", "--wall-s", "30", "--cpu-s", "20")
    try:
        client = SandboxClient(server.url)
        assert client.run("print(1)").stdout == b"1\n"  # warmed up: what a run allocates once
        before_kib = _status_kib(server.process.pid, "VmRSS")
        flood = client.run("import sys\nchunk = b'x' * (1 << 20)\nfor _ in range(3 << 10):\n"
                           "    sys.stdout.buffer.write(chunk)\nprint('wrote 3 GiB', file=sys.stderr)")
        peak_kib = _status_kib(server.process.pid, "VmHWM")
    finally:
        server.stop()
    assert (flood.exit_code, flood.timed_out, flood.truncated) == (0, False, True)
    assert flood.stdout == b"x" * (1 << 20) and flood.stderr == b"wrote 3 GiB\n"
    assert (peak_kib - before_kib) >> 10 < FLOOD_GROWTH_MIB, (before_kib, peak_kib)
