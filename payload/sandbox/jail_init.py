"""The first process inside a sandbox jail: sets the jail up, then becomes the untrusted program.

Run as `python -I -S jail_init.py SETTINGS_JSON` (standard library only: it must not import the
payload, whose files the program could otherwise observe being loaded). It reads the program from
stdin as `<byte count>\\n<source>`; what follows on stdin is left unread for the program.

With `namespaces` (a fresh mount, network, PID, IPC and UTS namespace, made by util-linux
`unshare` around this process): every mount is remounted read-only, empty tmpfs file systems
of the settings' size cover /tmp (the program's own directory and working directory), /var/tmp
and /dev/shm, and the secret paths (a service-account token, container secrets) are covered by
empty unreadable tmpfs. Without namespaces (a sandbox pod, whose boundaries the pod spec and
its runtime provide), the working directory is the one the settings name.

Then, in both modes: resource limits, root dropped to `uid` (when started as root), no new
privileges (setuid binaries lose their power), an empty environment, and exec.
"""

import ctypes
import json
import os
import resource
import sys

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = (
    1, 2, 4, 8, 32, 4096, 16384, 1 << 18)
PR_SET_NO_NEW_PRIVS = 38
# statvfs f_flag bits that a read-only remount must keep (the kernel refuses to drop locked ones).
KEPT_FLAGS = {os.ST_NOSUID: MS_NOSUID, os.ST_NODEV: MS_NODEV, os.ST_NOEXEC: MS_NOEXEC}
SCRATCH = ("/tmp", "/var/tmp", "/dev/shm")
SECRETS = ("/var/run/secrets", "/run/secrets", "/root", "/home")
MAIN = "main.py"

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


def _mount_points() -> list[str]:
    with open("/proc/self/mountinfo") as f:
        points = [line.split()[4].replace("\\040", " ") for line in f]
    return [p for p in points if not p.startswith(("/proc", "/sys"))]


def _lock_filesystem(scratch_bytes: int) -> None:
    _mount("none", "/", None, MS_REC | MS_PRIVATE, None)  # nothing here propagates to the host
    for point in _mount_points():
        try:
            kept = sum(bit for flag, bit in KEPT_FLAGS.items() if os.statvfs(point).f_flag & flag)
            _mount(point, point, None, MS_BIND, None)
            _mount("none", point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | kept, None)
        except OSError:
            continue  # a mount gone or hidden by an earlier one: covered by its parent's
    for path in SCRATCH:
        if os.path.isdir(path):
            _mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, f"size={scratch_bytes},mode=1777")
    for path in SECRETS:
        if os.path.isdir(path):
            _mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, "size=4096,mode=000")


def _limit(settings: dict) -> None:
    for name, value in (("RLIMIT_CPU", settings["cpu_s"]), ("RLIMIT_AS", settings["memory_bytes"]),
                        ("RLIMIT_NPROC", settings["processes"]), ("RLIMIT_FSIZE", settings["file_bytes"]),
                        ("RLIMIT_NOFILE", settings["open_files"]), ("RLIMIT_CORE", 0)):
        resource.setrlimit(getattr(resource, name), (value, value))


def main() -> None:
    settings = json.loads(sys.argv[1])
    source = _read_program()
    if settings["namespaces"]:
        _lock_filesystem(settings["file_bytes"])
        workdir = "/tmp"
    else:
        workdir = settings["workdir"]
    os.chdir(workdir)
    with open(MAIN, "wb") as f:
        f.write(source)
    uid = settings["uid"]
    if os.geteuid() == 0 and uid is not None:
        os.chown(workdir, uid, uid)
        os.chown(MAIN, uid, uid)
    _limit(settings)
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    if os.geteuid() == 0 and uid is not None:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    os.execve(settings["python"], [settings["python"], "-I", MAIN], {})


if __name__ == "__main__":
    try:
        main()
    except Exception as exc:  # noqa: BLE001 - the jail could not be built: say so on stderr, exit 125
        print(f"sandbox setup failed: {exc}", file=sys.stderr)
        sys.exit(125)
