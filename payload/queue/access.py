"""Who may do what on the Redis buffer: one ACL user per role, allowed only the commands and
keys its own queue calls use (payload/queue/redis_streams.py, scripts included: Redis checks
every `redis.call` inside a script against the caller's ACL), and the TLS material the server
and its clients use.

    role      process                      writes                                  reads
    feeder    python -m payload feed       tasks, the feed cursor                  counters, other streams' lengths
    worker    python -m payload rollout    tasks (its group), verify               buffer length
    worker-inline  (the same, scoring)     ... and experiences
    verifier  python -m payload verify     verify (its group), experiences         -
    trainer   torchrun ... train           experiences, policy pointer, progress   feed, stream lengths
    server    python -m payload serve      -                                       the policy pointer
    monitor   redis_exporter, the probe    no key at all                           INFO, CONFIG GET, SLOWLOG, LATENCY

A rollout worker connects as `worker` or `worker-inline` by what it writes (`worker_role`):
with the inline verifier off and no tool environment (whose episodes it may score) every group
it finishes is unverified and goes to the verifiers, so its user may not add to or delete from
the buffer: a worker that handles model output cannot forge experience there. Only a worker
that scores (rollout.inline_verifier: true, the default) keeps the buffer write.

The `default` user is switched off: a connection that does not authenticate can run nothing.
Every queue user may create its consumer groups (the connect step creates all three, whoever
connects first, in an allow-oom script where the role may run scripts) through a selector that
allows XGROUP CREATE and nothing else on those streams, so a feeder cannot XADD into the buffer
even though it may create the buffer's group.

Certificates: `write_access` issues a private CA (its key is deleted once the server
certificate is signed, so the Secret holds nothing that can issue another) and a server
certificate for the buffer's Service names and loopback; clients verify the server against
ca.crt. The server does not ask clients for certificates: each role authenticates with its
password. Rotating: run the command again and replace the Secret (k8s/README.md).
"""

from __future__ import annotations

import hashlib
import secrets
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from spec.job import JobConfig

# Files of the access directory (the keys of the operator's `rl-redis` Secret).
ACL_FILE = "users.acl"
CA_CERT = "ca.crt"
SERVER_CERT = "tls.crt"
SERVER_KEY = "tls.key"

# What every queue client sends: the connect ping and redis-py's health checks, and INFO
# (its memory section: maxmemory at connect, used_memory for the buffer's byte mark in
# wait_for_room; server statistics, no key). Not CLIENT SETINFO: redis-py ignores its
# refusal, and Redis before 7.2 does not know it.
_QUEUE_CLIENT = ("ping", "info")
# A MULTI/EXEC transaction; a script (redis-py's EVALSHA, SCRIPT LOAD when not cached).
_TRANSACTION = ("multi", "exec", "discard")
_SCRIPT = ("evalsha", "script|load")
_STREAMS = ("tasks", "verify", "experiences")
# claim() (XREADGROUP; the reclaim script: XAUTOCLAIM, XPENDING, XADD to the dead letters, XACK,
# XDEL), complete() (MULTI XADD XACK XDEL INCR EXPIRE; XDEL HINCRBY for a duplicate; redis-py
# sends INCR as INCRBY), release() (XPENDING XRANGE XADD XACK XDEL XCLAIM), wait_for_room() (XLEN).
_STAGE_CONSUMER = (*_TRANSACTION, *_SCRIPT, "xreadgroup", "xautoclaim", "xpending", "xadd", "xack", "xdel", "xclaim",
                   "xrange", "incrby", "expire", "hincrby", "xlen")


# The rollout worker's two users (worker_role picks one).
WORKER, WORKER_INLINE = "worker", "worker-inline"


@dataclass(frozen=True)
class Role:
    commands: tuple[str, ...]
    # Key names after the namespace's "{ns}:" prefix; glob patterns allowed.
    writes: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    queue_client: bool = True


ROLES: dict[str, Role] = {
    # stats(), submit_feed() (HMGET, XADD, HSET in a script), feed_cursor(), trainer_progress().
    "feeder": Role(
        commands=(*_SCRIPT, "xlen", "xpending", "hgetall", "hget", "hmget", "hset", "xadd"),
        writes=("tasks", "feed"),
        reads=("verify", "experiences", "dead:*", "stats", "progress"),
    ),
    # The ROLLOUT stage, scored elsewhere: tasks in, groups out to the verifiers only. The
    # buffer's length is read (wait_for_room's XLEN), never written.
    WORKER: Role(
        commands=_STAGE_CONSUMER,
        writes=("tasks", "verify", "dead:rollout", "done:rollout:*", "stats"),
        reads=("experiences",),
    ),
    # The ROLLOUT stage scoring its own groups: verified ones go straight to the buffer (and a
    # duplicate's copy is taken back out of it: XDEL).
    WORKER_INLINE: Role(
        commands=_STAGE_CONSUMER,
        writes=("tasks", "verify", "experiences", "dead:rollout", "done:rollout:*", "stats"),
    ),
    # The VERIFY stage: results go to the buffer only.
    "verifier": Role(
        commands=_STAGE_CONSUMER,
        writes=("verify", "experiences", "dead:verify", "done:verify:*", "stats"),
    ),
    # consume() (XPENDING, XREADGROUP, the ingest script's SET NX GET EX, the ack script's
    # XACK XDEL HINCRBY), ack(), exhausted() (a no-writes script, EVALSHA_RO: HGET XLEN XPENDING; no MULTI,
    # which Redis 7.0 refuses at maxmemory), buffer_fill(), report_progress() and
    # publish_policy() (the pointer script's HGET + HSET).
    "trainer": Role(
        commands=(*_SCRIPT, "evalsha_ro", "xpending", "xreadgroup", "set", "xack", "xdel", "hincrby", "hget", "hset",
                  "xlen"),
        writes=("experiences", "consumed:*", "stats", "policy", "progress"),
        reads=("feed", "tasks", "verify"),
    ),
    # latest_policy(): where a (re)started server loads its weights from.
    "server": Role(commands=("hgetall",), reads=("policy",)),
    # redis_exporter's documented minimal user without any key (it reads no key unless told
    # to), without EVAL and with only the read-only subcommands; the readiness probe's PING.
    "monitor": Role(
        commands=("ping", "select", "client|setname", "client|list", "client|info", "info", "config|get",
                  "slowlog|get", "slowlog|len", "latency|latest", "latency|histogram", "memory|stats", "cluster|info"),
        queue_client=False,
    ),
}


def worker_role(job: JobConfig, inline_verifier: bool | None = None) -> str:
    """The user a rollout worker of `job` connects as (`inline_verifier`: the command line's
    override of job.rollout.inline_verifier). A worker writes a group to the buffer when the
    group is verified: scored by its inline verifier, or by a tool environment that rewards its
    own episodes (payload/envs/base.py Step.reward; a site may add such an environment, so any
    job that plays environments keeps the write). Otherwise each group is unverified and goes
    to the verifiers, and `worker` may not touch the buffer."""
    inline = job.rollout.inline_verifier if inline_verifier is None else inline_verifier
    environments = job.data is not None and bool(job.data.environment or job.data.environments)
    return WORKER_INLINE if inline or environments else WORKER


def worker_user_error(url: str, job: JobConfig, inline_verifier: bool | None = None) -> str | None:
    """One line when a worker's queue URL names `worker` but the worker writes the buffer (Redis
    would refuse every verified group; the tasks would circle to the dead letters instead)."""
    user = urlsplit(url).username
    needed = worker_role(job, inline_verifier)
    if user != WORKER or needed == WORKER:
        return None
    return (f"queue url user {WORKER!r} may not write the buffer, which this worker does (rollout.inline_verifier "
            f"on, or tool environments that may score their episodes): connect as {WORKER_INLINE!r}")


def password_hash(password: str) -> str:
    return hashlib.sha256(password.encode()).hexdigest()


def acl_rules(role: Role, namespace: str) -> str:
    """The ACL rules of one user (without its name and password)."""
    ns = "{" + namespace + "}:"
    commands = (*_QUEUE_CLIENT, *role.commands) if role.queue_client else role.commands
    rules = ["resetkeys", "resetchannels", "-@all", *(f"+{c}" for c in dict.fromkeys(commands))]
    rules += [f"~{ns}{key}" for key in role.writes]
    rules += [f"%R~{ns}{key}" for key in role.reads]
    if role.queue_client:
        rules.append("(" + " ".join([*(f"~{ns}{s}" for s in _STREAMS), "+xgroup|create"]) + ")")
    return " ".join(rules)


def acl_file(passwords: dict[str, str], namespace: str) -> str:
    """Redis's ACL file: `default` off, then one user per role with its password's SHA-256."""
    lines = ["user default off resetkeys resetchannels -@all"]
    for name, role in ROLES.items():
        lines.append(f"user {name} on #{password_hash(passwords[name])} {acl_rules(role, namespace)}")
    return "\n".join(lines) + "\n"


def server_names(service_host: str) -> list[str]:
    """What the server certificate covers: the Service's names, and loopback for the exporter
    and the probe in the Redis pod."""
    short = service_host.split(".")[0]
    return [short, service_host, f"{service_host}.cluster.local", "localhost"]


def _issue_certificates(out: Path, service_host: str, days: int) -> None:
    """A private CA and a server certificate for the buffer (openssl, present wherever
    kubectl is used); the CA's key never leaves a temporary directory."""

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True)

    ec = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes")
    with tempfile.TemporaryDirectory(prefix="rl-redis-ca-") as tmp:
        ca_key, serial = Path(tmp, "ca.key"), Path(tmp, "ca.srl")
        csr, ext = Path(tmp, "tls.csr"), Path(tmp, "ext.cnf")
        openssl("req", "-x509", *ec, "-keyout", str(ca_key), "-out", str(out / CA_CERT), "-days", str(days),
                "-subj", "/CN=rl-redis-ca", "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign")
        openssl("req", *ec, "-keyout", str(out / SERVER_KEY), "-out", str(csr), "-subj", f"/CN={service_host}")
        alt_names = ",".join([*(f"DNS:{name}" for name in server_names(service_host)), "IP:127.0.0.1"])
        ext.write_text(f"subjectAltName={alt_names}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n")
        openssl("x509", "-req", "-in", str(csr), "-CA", str(out / CA_CERT), "-CAkey", str(ca_key),
                "-CAserial", str(serial), "-CAcreateserial", "-out", str(out / SERVER_CERT), "-days", str(days), "-extfile", str(ext))


def server_args(directory: str, port: int) -> list[str]:
    """redis-server's access flags: TLS only (no plaintext port), clients not asked for a
    certificate, the users from the ACL file (the chart and the tests run these)."""
    return [
        "--port", "0",
        "--tls-port", str(port),
        "--tls-cert-file", f"{directory}/{SERVER_CERT}",
        "--tls-key-file", f"{directory}/{SERVER_KEY}",
        "--tls-ca-cert-file", f"{directory}/{CA_CERT}",
        "--tls-auth-clients", "no",
        "--aclfile", f"{directory}/{ACL_FILE}",
    ]  # fmt: skip


def probe_command(directory: str, port: int) -> list[str]:
    """The readiness probe in the Redis pod: PING as `monitor` over TLS. PING answers LOADING
    while the append-only file replays, so the pod is ready only once it is done. The password
    goes through redis-cli's REDISCLI_AUTH, not its arguments."""
    script = (f'REDISCLI_AUTH="$(cat {directory}/monitor)" redis-cli --tls --cacert {directory}/{CA_CERT} '
              f"-p {port} --user monitor ping | grep -q PONG")
    return ["sh", "-c", script]


def client_url(role: str, host: str, port: int, ca_cert: str, db: int = 0) -> str:
    """A role's queue URL: its ACL user, TLS verified against the CA, no password (that comes
    from $RL_QUEUE_PASSWORD_FILE, payload/queue/url.py)."""
    return f"rediss://{role}@{host}:{port}/{db}?ssl_ca_certs={ca_cert}"


def write_access(out: Path, namespace: str, service_host: str, days: int = 365) -> dict[str, str]:
    """Fresh passwords (one file per role), the ACL file and the TLS material into `out`
    (created, mode 0700; files 0600). Returns the passwords."""
    out.mkdir(mode=0o700, parents=True, exist_ok=True)
    passwords = {name: secrets.token_hex(32) for name in ROLES}
    for name, password in passwords.items():
        (out / name).write_text(password)
    (out / ACL_FILE).write_text(acl_file(passwords, namespace))
    _issue_certificates(out, service_host, days)
    for path in out.iterdir():
        path.chmod(0o600)
    return passwords
