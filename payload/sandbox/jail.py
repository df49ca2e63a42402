"""Runs untrusted Python in a jail: the executor behind the `code` verifier, the code tool and
the sandbox pods' server.

    jail = Jail.Config().build()
    result = jail.run("print(1 + 1)")        # RunResult(exit_code=0, stdout=b"2\\n", ...)

Two isolation modes, chosen explicitly (never a silent fallback to less):
- `namespaces` (local runs, CI, any host that allows unprivileged or root `unshare`): the program
  runs in new network (loopback only, down: no route out, no host abstract socket), PID, mount,
  IPC and UTS namespaces made by util-linux `unshare` (plus a user namespace when not started as
  root), in an empty root: a fresh tmpfs holding only the system libraries (/usr/lib*, /lib*,
  /etc/ld.so.cache), the interpreter and its prefix, all read-only, five devices, its own /proc,
  and fresh tmpfs on /tmp (its working directory) and /dev/shm (payload/sandbox/jail_init.py).
  No other host file is there: no /home, /root, /run, /var, /etc, repository, or Unix socket.
  It keeps no capability. Killing the jail's first process ends the PID namespace, so nothing
  it forked outlives the run.
  Lacks: the kernel is the host's (a kernel bug is an escape), with no seccomp filter of its
  own; the system libraries and the interpreter's files are readable; with a user namespace
  the program is uid 0 there (mapped to the caller outside), without capabilities.
- `pod` (the sandbox pods, k8s/charts/sandbox.py): the pod is the boundary: NetworkPolicy for
  the network (nothing out), a read-only root file system, no service-account token, a non-root
  user with no capabilities, RuntimeDefault seccomp, its pids and memory limits. Container
  runtimes' default seccomp profile refuses `unshare`, so the jail adds only what a process can
  give itself: each run has its own directory (its cwd, HOME and TMPDIR) in the first scratch
  place, and afterwards every process the program left (reparented to the server, its
  subreaper) is killed and reaped, every scratch place (the chart lists each writable one) is
  emptied or truncated, and the System V IPC objects the run made are removed (POSIX queues
  cannot be made at all), so nothing passes from one run to the next (one program runs per pod
  at a time). The pod's user is the program's too, so its process limit counts the server's
  threads: size it with them.
  Lacks: no gVisor, no RuntimeClass at all (k8s/charts/sandbox.py says why): the node's
  default runtime, so the kernel is the node's behind the default seccomp profile; the program shares the container with the server
  (it can read the image's files, the server's /proc entries, and kill the server, which the
  kubelet restarts: the caller's request fails and is charged an attempt).

In both: CPU seconds, address space, processes, file size and open files as rlimits, a wall-clock
limit (the process group, and in `namespaces` the whole PID namespace, is SIGKILLed), an empty
environment (in `pod`, HOME and TMPDIR only), `python -I` (no user site, no PYTHON* variables),
stdout and stderr read as they come and kept up to Limits.output_bytes (the rest drained and
dropped, RunResult.truncated set), root dropped to `nobody` when the caller is root.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

INIT = Path(__file__).with_name("jail_init.py")
NOBODY = 65534
# jail_init.py's exit code when the jail itself could not be built (not the program's fault).
SETUP_FAILED = 125
ISOLATIONS = ("namespaces", "pod")
PR_SET_CHILD_SUBREAPER = 36
# What a `namespaces` jail's empty root holds of the host besides the interpreter: the shared
# libraries and the loader's cache (those that exist; /lib* may be symlinks into /usr).
SYSTEM_LIBRARIES = ("/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/libx32", "/lib", "/lib32", "/lib64", "/libx32",
                    "/etc/ld.so.cache")
# Output is read this much at a time (and the pipes enlarged to it: fewer wake-ups for a program
# that floods them); at most Limits.output_bytes plus one chunk per pipe is ever held.
CHUNK_BYTES = 1 << 20
# After a kill, the pipes close as the jail's processes die; reading on is bounded all the same.
DRAIN_AFTER_KILL_S = 5.0


class SandboxError(RuntimeError):
    """The jail could not be built (e.g. `unshare` refused): no program ran."""


@dataclass(frozen=True)
class Limits:
    wall_s: float = 10.0
    cpu_s: int = 5
    memory_bytes: int = 512 << 20
    processes: int = 16
    file_bytes: int = 16 << 20  # largest file, and the size of each scratch tmpfs
    open_files: int = 64
    output_bytes: int = 1 << 20  # stdout and stderr each, kept up to this

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if not value > 0:
                raise ValueError(f"sandbox limit {name}={value!r}: must be > 0")


@dataclass(frozen=True)
class RunResult:
    exit_code: int  # negative: killed by that signal
    stdout: bytes
    stderr: bytes
    timed_out: bool
    # stdout or stderr ran past Limits.output_bytes: what is kept is its first output_bytes.
    truncated: bool = False

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out

    def to_json(self) -> dict:
        return {"exit_code": self.exit_code, "timed_out": self.timed_out, "truncated": self.truncated,
                "stdout": self.stdout.decode(errors="replace"), "stderr": self.stderr.decode(errors="replace")}


class Jail:
    @dataclass
    class Config:
        isolation: str = "namespaces"
        limits: Limits = field(default_factory=Limits)
        # The program's interpreter: a system one that the unprivileged user can execute (a
        # virtualenv under /root is out of its reach); the image's is /usr/bin/python3.
        python: str = "/usr/bin/python3"
        # `pod` only: every place of the pod a program can write (the chart lists them), reset
        # after each run so that nothing passes from one run to the next: a directory is
        # emptied, a file truncated. The first, a directory, holds each run's own directory.
        # The server must have them to itself (a pod's /tmp emptyDir, its /dev/shm).
        scratch: tuple[str, ...] = ()

        def build(self) -> "Jail":
            if self.isolation not in ISOLATIONS:
                raise ValueError(f"sandbox isolation {self.isolation!r}: one of {', '.join(ISOLATIONS)}")
            if self.isolation == "pod":
                if not self.scratch or not os.path.isdir(self.scratch[0]):
                    raise ValueError(f"sandbox scratch {list(self.scratch)!r}: isolation=pod needs a directory of its "
                                     "own first (emptied after every run), then any other writable paths")
                for path in self.scratch:
                    if not (os.path.isdir(path) or os.path.isfile(path)) or not os.access(path, os.W_OK):
                        raise ValueError(f"sandbox scratch {path!r}: not a writable directory or file")
            elif self.scratch:
                raise ValueError(f"sandbox scratch {list(self.scratch)!r}: only for isolation=pod "
                                 "(a namespaces jail's scratch is its own tmpfs)")
            if not os.access(self.python, os.X_OK):
                raise ValueError(f"sandbox python {self.python!r}: not an executable file")
            return Jail(self, _exposed(self.python) if self.isolation == "namespaces" else [])

    def __init__(self, config: Config, exposed: list[str]) -> None:
        self.config = config
        self.exposed = exposed  # the host paths a `namespaces` jail's root holds, read-only
        self._scratch_modes = {path: os.stat(path).st_mode & 0o7777 for path in config.scratch}
        if config.isolation == "pod":
            # Orphans of a program are reparented here, where _kill_leftovers finds them.
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)

    def _command(self, workdir: str | None) -> list[str]:
        limits = self.config.limits
        namespaces = self.config.isolation == "namespaces"
        root = os.geteuid() == 0
        settings = {"namespaces": namespaces, "workdir": workdir, "python": self.config.python, "expose": self.exposed,
                    "uid": _program_uid() if root else None,
                    "cpu_s": limits.cpu_s, "memory_bytes": limits.memory_bytes, "processes": limits.processes,
                    "file_bytes": limits.file_bytes, "open_files": limits.open_files}
        init = [sys.executable, "-I", "-S", str(INIT), json.dumps(settings)]
        if not namespaces:
            return init
        unshare = ["unshare", "--net", "--pid", "--fork", "--kill-child", "--mount", "--mount-proc", "--ipc", "--uts"]
        # Not root: a user namespace in which the caller is root, enough to mount inside it.
        return [*unshare, *([] if root else ["--user", "--map-root-user"]), "--", *init]

    def run(self, source: str, stdin: bytes = b"") -> RunResult:
        """Run `source` as a Python program; never raises for what the program does."""
        limits = self.config.limits
        pod = self.config.isolation == "pod"
        ipc_before = _sysv_objects() if pod else set()
        workdir = tempfile.mkdtemp(prefix="run-", dir=self.config.scratch[0]) if pod else None
        program = source.encode()
        try:
            process = subprocess.Popen(self._command(workdir), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, env={}, cwd="/", start_new_session=True)
            output = _Output(process, b"%d\n" % len(program) + program + stdin, limits.output_bytes)
            timed_out = not output.collect(time.monotonic() + limits.wall_s)
            if not timed_out:
                try:
                    # Both pipes closed, but the program may still run: it has what is left of the limit.
                    process.wait(max(0.0, output.deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    timed_out = True
            if timed_out:
                # Over time, or done but a process it left holds its output open.
                self._kill(process)
                process.wait()
                if pod:
                    _kill_leftovers()  # before reading on: they hold the pipes
                output.collect(time.monotonic() + DRAIN_AFTER_KILL_S)
            output.close()
            if pod:
                _kill_leftovers()
        finally:
            if pod:
                _remove_sysv_objects(ipc_before)
                _reset(self._scratch_modes)
        stdout, stderr = bytes(output.stdout), bytes(output.stderr)
        if process.returncode == SETUP_FAILED and stderr.startswith(b"sandbox setup failed"):
            raise SandboxError(stderr.decode(errors="replace").strip())
        if process.returncode == 1 and stderr.startswith(b"unshare:"):
            raise SandboxError(f"namespaces refused ({stderr.decode(errors='replace').strip()}); "
                               "this host needs isolation=pod inside a sandbox pod")
        return RunResult(process.returncode, stdout, stderr, timed_out, output.cut)

    @staticmethod
    def _kill(process: subprocess.Popen) -> None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _exposed(python: str) -> list[str]:
    """The host paths the interpreter needs: the system libraries, the interpreter itself, and
    its prefixes unless they are /usr (whose libraries are /usr/lib*: the rest of /usr, its
    programs among them, stays out)."""
    probe = subprocess.run([python, "-I", "-S", "-c", "import sys; print(sys.base_prefix); print(sys.base_exec_prefix)"],
                           capture_output=True, text=True, env={}, timeout=30)
    if probe.returncode != 0:
        raise ValueError(f"sandbox python {python!r}: does not run ({probe.stderr.strip()[-200:]})")
    prefixes = [p for p in dict.fromkeys(probe.stdout.split()) if os.path.realpath(p) != "/usr"]
    return [p for p in SYSTEM_LIBRARIES if os.path.lexists(p)] + prefixes + [python]


class _Output:
    """A running jail's pipes, served together: its stdin fed in chunks as it takes them, stdout
    and stderr read as they come, each kept up to `cap` bytes and the rest read and dropped.

    Past the cap the output is drained, not the program killed: its exit code stays its own
    (a program that prints a lot and passes its asserts still passes), the wall limit bounds
    how long it can keep writing, and what the server holds is the cap plus one chunk per pipe
    (`communicate()` held all of it: 3 GiB of prints took a 1 GiB pod's server past its limit)."""

    def __init__(self, process: subprocess.Popen, stdin: bytes, cap: int) -> None:
        self.cap, self.cut = cap, False
        self.stdout, self.stderr = bytearray(), bytearray()
        self._stdin, self._sent = memoryview(stdin), 0
        self._selector = selectors.DefaultSelector()
        for pipe, kept in ((process.stdout, self.stdout), (process.stderr, self.stderr)):
            _enlarge(pipe.fileno())
            os.set_blocking(pipe.fileno(), False)
            self._selector.register(pipe, selectors.EVENT_READ, kept)
        os.set_blocking(process.stdin.fileno(), False)
        self._selector.register(process.stdin, selectors.EVENT_WRITE, None)
        self.deadline = 0.0

    def collect(self, deadline: float) -> bool:
        """Serve the pipes until both outputs close (True) or `deadline` passes (False)."""
        self.deadline = deadline
        while any(key.data is not None for key in self._selector.get_map().values()):
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            for key, _ in self._selector.select(left):
                if key.data is None:
                    self._feed(key.fileobj)
                else:
                    self._read(key.fileobj, key.data)
        return True

    def _feed(self, pipe) -> None:
        try:
            self._sent += os.write(pipe.fileno(), self._stdin[self._sent: self._sent + CHUNK_BYTES])
        except BlockingIOError:
            return
        except BrokenPipeError:  # the program exited, or closed its stdin, before reading it all
            self._sent = len(self._stdin)
        if self._sent >= len(self._stdin):
            self._selector.unregister(pipe)
            pipe.close()

    def _read(self, pipe, kept: bytearray) -> None:
        try:
            chunk = os.read(pipe.fileno(), CHUNK_BYTES)
        except BlockingIOError:
            return
        if not chunk:
            self._selector.unregister(pipe)
            pipe.close()
            return
        room = max(0, self.cap - len(kept))
        if len(chunk) > room:
            self.cut = True
        kept += chunk[:room]

    def close(self) -> None:
        for key in list(self._selector.get_map().values()):
            self._selector.unregister(key.fileobj)
            key.fileobj.close()
        self._selector.close()


def _enlarge(fd: int) -> None:
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, CHUNK_BYTES)
    except OSError as exc:  # over the user's pipe-size allowance: the default size still works
        if exc.errno not in (errno.EPERM, errno.EBUSY):
            raise


def _reset(scratch: dict[str, int]) -> None:
    """Give every scratch path (Config.scratch, with its mode when the server started) back as
    it was: a directory emptied, a file truncated, whatever the program did to them and to the
    modes of what it left; what cannot be removed is an error, not a channel to the next run."""
    def unlock(_function, path, _exc) -> None:  # something the program made unreadable or unwritable
        os.chmod(os.path.dirname(path), 0o700)
        if os.path.isdir(path) and not os.path.islink(path):
            os.chmod(path, 0o700)
            shutil.rmtree(path, onerror=unlock)
        elif os.path.lexists(path):
            os.unlink(path)

    try:
        for path, mode in scratch.items():
            if os.stat(path).st_mode & 0o7777 != mode:  # the program's chmod (only an owner's can change it)
                os.chmod(path, mode)
            if os.path.isfile(path):
                os.truncate(path, 0)
                continue
            for entry in os.scandir(path):
                if entry.is_dir(follow_symlinks=False):
                    os.chmod(entry.path, 0o700)
                    shutil.rmtree(entry.path, onerror=unlock)
                else:
                    os.unlink(entry.path)
            if os.listdir(path):
                raise OSError(f"left {sorted(os.listdir(path))[:5]}")
    except OSError as exc:
        raise SandboxError(f"sandbox scratch {path}: not reset after a run ({exc})") from exc


# System V IPC objects outlive their processes, in the pod's one IPC namespace: /proc/sysvipc's
# file, the column of the creator's uid, and the call that removes one (IPC_RMID = 0).
SYSV_IPC = {"shm": (9, lambda libc, id_: libc.shmctl(id_, 0, None)),
            "sem": (6, lambda libc, id_: libc.semctl(id_, 0, 0)),
            "msg": (9, lambda libc, id_: libc.msgctl(id_, 0, None))}


def _program_uid() -> int:
    return NOBODY if os.geteuid() == 0 else os.geteuid()


def _sysv_objects() -> set[tuple[str, int]]:
    """The System V IPC objects (kind, id) that the programs' user created."""
    found = set()
    for kind, (cuid_column, _) in SYSV_IPC.items():
        try:
            rows = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if int(fields[cuid_column]) == _program_uid():
                found.add((kind, int(fields[1])))
    return found


def _remove_sysv_objects(keep: set[tuple[str, int]]) -> None:
    """Remove those a run made (all of this user's but `keep`, what there was before it)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for kind, id_ in _sysv_objects() - keep:
        SYSV_IPC[kind][1](libc, id_)  # gone already (another's removal) is as good


def _kill_leftovers() -> None:
    """In a sandbox pod, a program may leave processes that escaped its process group (setsid,
    a double fork). The server is their subreaper (PID 1 of its container, or set in
    Jail.__init__), so they are its descendants: kill and reap them until none is left."""
    while pids := _descendants(os.getpid()):
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.waitpid(-1, 0)  # each reaped orphan, or a child that killed orphans reparent to
        except ChildProcessError:
            pass


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found
