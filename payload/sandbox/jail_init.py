"""The first process inside a sandbox jail: sets the jail up, then becomes the untrusted program.

Run as `python -I -S jail_init.py SETTINGS_JSON` (standard library only: it must not import the
payload, whose files the program could otherwise observe being loaded). It reads the program from
stdin as `<byte count>\\n<source>`; what follows on stdin is left unread for the program.

With `namespaces` (a fresh mount, network, PID, IPC and UTS namespace, made by util-linux
`unshare` around this process): the program gets an empty root, a fresh tmpfs made read-only
once built, holding only what its interpreter needs, each bind-mounted read-only, nosuid:
the settings' `expose` paths (the system libraries /usr/lib* and /lib*, /etc/ld.so.cache, the
interpreter and its prefix when that is not /usr) with the symlinks on their way; the devices
null, zero, full, random and urandom; a fresh /proc of its PID namespace; and empty tmpfs of the
settings' size on /tmp (its working directory) and /dev/shm. Nothing else of the host is there:
no /home, /root, /run, /var, /etc beyond the loader's cache, no repository, no host file system
Unix socket (abstract ones belong to the network namespace, which is new). The host's root is
detached after pivot_root, so no mount or chroot trick reaches it. Without namespaces (a sandbox
pod, whose boundaries the pod spec and its runtime provide), the working directory is the one the
settings name, and also the program's HOME and TMPDIR.

Then, in both modes: resource limits, root dropped to `uid` (when started as root), no
capabilities for the program (in a user namespace it stays uid 0 there, so the bounding and
ambient sets are emptied and root's exec-time capabilities turned off), no new privileges
(setuid binaries lose their power), an empty environment, and exec.
"""

import ctypes
import json
import os
import resource
import sys

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = (
    1, 2, 4, 8, 32, 4096, 16384, 1 << 18)
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
MNT_DETACH = 2
PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP, PR_SET_SECUREBITS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 38, 24, 28, 47, 4
SECBIT_NOROOT, SECBIT_NOROOT_LOCKED = 1, 2
# statvfs f_flag bits that a read-only remount must keep (in a user namespace the kernel refuses
# to drop the flags, atime ones included, of a mount that came from the host).
KEPT_FLAGS = {os.ST_NOSUID: MS_NOSUID, os.ST_NODEV: MS_NODEV, os.ST_NOEXEC: MS_NOEXEC,
              os.ST_NOATIME: MS_NOATIME, os.ST_NODIRATIME: MS_NODIRATIME, os.ST_RELATIME: MS_RELATIME}
# The new root is built on a tmpfs mounted here (in the jail's mount namespace only), so no
# exposed path may lie under it.
STAGING = "/tmp"
DEVICES = ("null", "zero", "full", "random", "urandom")
DEVICE_LINKS = {"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1",
                "stderr": "/proc/self/fd/2"}
SCRATCH = ("/tmp", "/dev/shm")
MAIN = "main.py"
# pivot_root(2) has no libc wrapper: its syscall number per machine.
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}

libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def _mount(source: str, target: str, fstype, flags: int, data) -> None:
    _check(libc.mount(source.encode(), target.encode(), fstype and fstype.encode(), flags, data and data.encode()),
           f"mount {target}")


def _read_exact(count: int) -> bytes:
    chunks, left = [], count
    while left:
        chunk = os.read(0, left)
        if not chunk:
            raise EOFError("program source cut short")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _read_program() -> bytes:
    header = b""
    while not header.endswith(b"\n"):
        byte = os.read(0, 1)
        if not byte:
            raise EOFError("no program header")
        header += byte
    return _read_exact(int(header))


def _resolve(path: str, links: list[tuple[str, str]]) -> str:
    """`path` with every symlink on its way followed, each recorded as (where, its target)."""
    parts = [p for p in path.split("/") if p]
    here = "/"
    for i, part in enumerate(parts):
        step = os.path.join(here, part)
        if os.path.islink(step):
            target = os.readlink(step)
            links.append((step, target))
            return _resolve(os.path.normpath(os.path.join(here, target, *parts[i + 1:])), links)
        here = step
    return here


def _bind(source: str, target: str, flags: int) -> None:
    """Bind `source` at `target`, read-only with `flags` added to those the source's mount keeps."""
    if os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        open(target, "a").close()
    kept = sum(bit for flag, bit in KEPT_FLAGS.items() if os.statvfs(source).f_flag & flag)
    _mount(source, target, None, MS_BIND | MS_REC, None)
    _mount("none", target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | flags | kept, None)


def _expose(paths: list[str], root: str) -> None:
    bound: list[str] = []
    for path in paths:
        links: list[tuple[str, str]] = []
        real = _resolve(path, links)
        for link, target in links:
            if not os.path.lexists(root + link):
                os.makedirs(os.path.dirname(root + link), exist_ok=True)
                os.symlink(target, root + link)
        if os.path.exists(real) and not any(real == b or real.startswith(b.rstrip("/") + "/") for b in bound):
            if real == STAGING or real.startswith(STAGING + "/"):
                raise ValueError(f"{path} lies under {STAGING}, where the jail's root is built")
            _bind(real, root + real, MS_NOSUID | MS_NODEV)
            bound.append(real)


def _pivot_root(root: str) -> None:
    os.chdir(root)
    _check(libc.syscall(SYS_PIVOT_ROOT[os.uname().machine], b".", b"."), "pivot_root")
    _check(libc.umount2(b".", MNT_DETACH), "detach the host's root")  # the old root, stacked on "."
    os.chdir("/")


def _empty_root(settings: dict) -> None:
    """Build the program's root on a fresh tmpfs and switch to it (see the module docstring)."""
    _mount("none", "/", None, MS_REC | MS_PRIVATE, None)  # nothing here propagates to the host
    root = STAGING
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=755")
    # Longest last: a parent directory is bound before anything beneath it is considered.
    _expose(sorted(settings["expose"], key=len), root)
    for name in DEVICES:
        _bind(f"/dev/{name}", f"{root}/dev/{name}", MS_NOSUID | MS_NOEXEC)
    for name, target in DEVICE_LINKS.items():
        os.symlink(target, f"{root}/dev/{name}")
    os.makedirs(f"{root}/proc")
    _mount("proc", f"{root}/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
    for path in SCRATCH:
        os.makedirs(root + path, exist_ok=True)
        _mount("tmpfs", root + path, "tmpfs", MS_NOSUID | MS_NODEV, f"size={settings['file_bytes']},mode=1777")
    _pivot_root(root)
    _mount("none", "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, None)


def _drop_capabilities() -> None:
    """A uid 0 that keeps no capability, now or across exec: in a user namespace the program
    stays root there (the only uid mapped), and root's capabilities there would let it mount,
    unmount and remount what the jail set up."""
    with open("/proc/sys/kernel/cap_last_cap") as f:
        last = int(f.read())
    for cap in range(last + 1):
        _check(libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), f"drop capability {cap}")
    _check(libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "clear ambient capabilities")
    _check(libc.prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED, 0, 0, 0), "securebits")


def _limit(settings: dict) -> None:
    for name, value in (("RLIMIT_CPU", settings["cpu_s"]), ("RLIMIT_AS", settings["memory_bytes"]),
                        ("RLIMIT_NPROC", settings["processes"]), ("RLIMIT_FSIZE", settings["file_bytes"]),
                        ("RLIMIT_NOFILE", settings["open_files"]), ("RLIMIT_CORE", 0),
                        # No POSIX message queue (in a pod, one would outlive the run).
                        ("RLIMIT_MSGQUEUE", 0)):
        resource.setrlimit(getattr(resource, name), (value, value))


def main() -> None:
    settings = json.loads(sys.argv[1])
    source = _read_program()
    if settings["namespaces"]:
        _empty_root(settings)
        workdir, environment = "/tmp", {}
    else:
        # The run's own directory, removed after it (payload/sandbox/jail.py): where a program
        # that looks for a home or a temporary directory writes.
        workdir = settings["workdir"]
        environment = {"HOME": workdir, "TMPDIR": workdir}
    os.chdir(workdir)
    with open(MAIN, "wb") as f:
        f.write(source)
    uid = settings["uid"]
    if os.geteuid() == 0 and uid is not None:
        os.chown(workdir, uid, uid)
        os.chown(MAIN, uid, uid)
    _limit(settings)
    if os.geteuid() == 0:
        _drop_capabilities()
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    if os.geteuid() == 0 and uid is not None:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    if not settings["namespaces"]:
        os.execve(settings["python"], [settings["python"], "-I", MAIN], environment)
    # In the PID namespace this process is init: it waits for the program and exits as a shell
    # does (128 + signal). Exec'ing instead makes `unshare --fork` see its child die of a signal
    # (the CPU limit's SIGKILL, say), and util-linux 2.38's unshare then fails on its way out
    # ("sigprocmask unblock failed", exit 1), which reads as a jail that could not be built.
    # Its own exit ends the namespace and every process the program left in it.
    pid = os.fork()
    if pid == 0:
        try:
            os.execve(settings["python"], [settings["python"], "-I", MAIN], environment)
        finally:
            os._exit(127)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    os._exit(128 - code if code < 0 else code)


if __name__ == "__main__":
    try:
        main()
    except Exception as exc:  # noqa: BLE001 - the jail could not be built: say so on stderr, exit 125
        print(f"sandbox setup failed: {exc}", file=sys.stderr)
        sys.exit(125)
