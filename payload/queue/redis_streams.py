"""The production backend: Redis Streams with consumer groups.

Keys (one hash tag, so every script's and transaction's keys live in one Redis Cluster slot):

    {ns}:tasks          stream, group "workers"    ROLLOUT items (field d = encoded Task)
    {ns}:verify         stream, group "verifiers"  VERIFY items (d = encoded unverified group)
    {ns}:experiences    stream, group "trainer"    the buffer (d = encoded verified group)
    {ns}:dead:<stage>   stream                     dead letters (d, id, deliveries, reason)
    {ns}:done:<stage>:<task id>   counter with TTL results written for this task in this stage
    {ns}:consumed:<task id>       string with TTL  the buffer entry the trainer took for this task
    {ns}:stats          hash                       duplicates, stale_dropped, trainer_dropped
    {ns}:policy         hash                       newest exported weights (version, path)
    {ns}:feed           hash                       the feed's cursor (position, plan, finished)
    {ns}:progress       hash                       the trainer's published policy version

A handed-out entry sits in its group's pending entries list (PEL) until acknowledged; the
PEL's delivery counter is the attempt count. Every transition is atomic, so a process killed
at any instruction leaves either the old state or the new one: `complete` is one MULTI/EXEC
(write the result, XACK + XDEL the item, count the task's results); reclaim (XAUTOCLAIM,
dead-letter past max_deliveries) and `release` are Lua scripts. Acknowledged entries are
deleted, so XLEN is the backlog.

The feed's tasks and its cursor move together in one Lua script that first checks the stored
cursor is the one the feeder started from: a feeder killed before the script ran resubmits
those positions, one killed after it continues past them, and a second feeder cannot interleave.

Exactly once, in two places: a `complete` that finds its task's result counter above one
(a reclaimed task finished twice) takes its copy back out and returns False; and the
trainer's ingest marks each task id with the entry it took (`SET NX GET`), dropping any
other copy, which covers a process that died between the two steps of the first.

Durability: run Redis with `appendonly yes` and `appendfsync always` (the chart does): Redis
then fsyncs a write before replying, so an acknowledged task's experience survives a Redis
restart. Connection errors are retried with exponential backoff and jitter for up to
`outage_s` (RolloutQueue.Config; 300 s: a Redis pod rescheduled on another memory node and
replaying its append-only file) from the first failure of a call, so every process (trainer,
feeder, workers, verifiers) rides out an outage that short; a longer one raises
`QueueUnavailable` (one line, the URL redacted). A reply that never comes (a half-open
connection to a vanished pod) counts as a connection error after `reply_timeout_s`. A retried `complete` counts as a second
result and is taken back out. A wrong password is not an outage: it fails at once.

Memory: Redis runs with `maxmemory` and `noeviction`, so a full Redis refuses writes (OOM).
Producers wait for room while Redis's used memory is at or above `high_water_bytes` (default:
80% of the server's maxmemory, read at start), on top of the group-count mark; the rest of
maxmemory is the headroom for groups already being generated when the mark is crossed (the
environment's checks size it, estimate/checks.py). A write refused for memory raises
`BufferFull`, which says so, and the worker hands its task back without charging it.

At maxmemory (held there by this job or by a neighbour on the same Redis), nothing a process
does while the buffer is full or empty may be refused, or it is waited out as "buffer full":
- reads are plain commands or a `no-writes` script (`exhausted`), never MULTI: Redis 7.0
  refuses every command queued in a MULTI when out of memory, read-only ones included;
- what frees memory or hands work back (the trainer's ingest and acks, its pointers,
  reclaim, release, a duplicate taken back, the consumer groups at connect) is a script
  flagged `allow-oom`: its own writes are bytes;
- what adds data (a group: `complete`; tasks and the feed's cursor: `submit_feed`) is refused
  whole and raises BufferFull; the worker and the verifier hand the item back uncharged and
  pause, the feeder retries with backoff.
What this relies on, read in Redis's source (tag 7.0.15, the apt/CI version, and the
development tree of October 2024, after 7.4.1, that 8.x grew from; the chart ships 8.2.2):
processCommand refuses a command at OOM only when it is flagged DENYOOM (or, until 7.4, when it
is queued inside MULTI: commit 85a834bfa, "Revert multi OOM limit", dropped that, so newer Redis
refuses less, never more); the command flags are the same in both trees (src/commands/*.json:
XADD, XGROUP CREATE, SET, HSET, HINCRBY, INCR are DENYOOM; XREADGROUP, XACK, XDEL, XCLAIM,
XAUTOCLAIM, EXPIRE are writes without it; XLEN, XPENDING, HGET, HGETALL, INFO, PING, SCRIPT LOAD,
EVALSHA and EVALSHA_RO carry no DENYOOM); and scriptFlagsToCmdFlags (src/script.c, script flags since 7.0)
adds DENYOOM to a script with flags unless it declares `allow-oom` or `no-writes`, identically
in both. So the version difference cannot turn an allowed call into a refused one.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

import redis
from redis.backoff import ExponentialWithJitterBackoff, NoBackoff
from redis.retry import Retry

from estimate.buffer import DEFAULT_HIGH_WATER_SHARE
from payload.queue.base import (
    BufferedGroup,
    Consumed,
    DeadLetter,
    Delivery,
    FeedCursor,
    PolicyPointer,
    BufferFull,
    QueueError,
    QueueStats,
    QueueUnavailable,
    RolloutQueue,
    Stage,
    TrainerProgress,
)
from payload.queue.experience import ExperienceGroup, Task, decode_group, decode_task, encode_group, encode_task
from payload.queue.url import answers_plain_redis, redacted, redis_credentials
from spec.job import drops_group

log = logging.getLogger(__name__)

_GROUPS = {Stage.ROLLOUT: "workers", Stage.VERIFY: "verifiers"}

# Scripts that free memory, or hand work back, must run when Redis is over maxmemory: with
# `noeviction` Redis refuses any write that may grow memory (SET, HSET, HINCRBY, XADD, inside
# scripts and MULTI too), and the trainer's ingest marker or an ack's counter would then block
# the only thing that drains the buffer. Their own writes are bytes (a marker, a counter, a
# task's pending entry), so `allow-oom` (Redis >= 7.0 script flags) cannot be what fills Redis.
_ALLOW_OOM = "#!lua flags=allow-oom\n"
_TRAINER_GROUP = "trainer"

# KEYS: stream, dead.  ARGV: group, consumer, min_idle_ms, max_deliveries, cursor.
# Returns {cursor, id, deliveries, payload} for a reclaimed entry, else {cursor}.
_RECLAIM = _ALLOW_OOM + """
local cursor = ARGV[5]
for _ = 1, 16 do
  local res = redis.call('XAUTOCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[3], cursor, 'COUNT', 1)
  cursor = res[1]
  local entry = res[2][1]
  if entry and entry[2] then
    local id, payload = entry[1], entry[2][2]
    local deliveries = redis.call('XPENDING', KEYS[1], ARGV[1], id, id, 1)[1][4]
    if deliveries > tonumber(ARGV[4]) then
      redis.call('XADD', KEYS[2], '*', 'd', payload, 'id', id, 'deliveries', deliveries - 1,
                 'reason', 'visibility timeout')
      redis.call('XACK', KEYS[1], ARGV[1], id)
      redis.call('XDEL', KEYS[1], id)
    else
      return {cursor, id, deliveries, payload}
    end
  end
  if cursor == '0-0' then return {cursor} end
end
return {cursor}
"""

# The trainer's ingest check. KEYS: {ns}:consumed:<task id> per group read; ARGV: their entry
# ids, then the TTL. Returns 1 per group to train on (first time this task's group is seen, or
# the same entry read again after a restart), 0 for another copy of a task already taken.
_INGEST = _ALLOW_OOM + """
local ttl = ARGV[#ARGV]
local out = {}
for i, key in ipairs(KEYS) do
  local old = redis.call('SET', key, ARGV[i], 'NX', 'GET', 'EX', ttl)
  if (not old) or old == ARGV[i] then out[i] = 1 else out[i] = 0 end
end
return out
"""

# KEYS: stream, dead.  ARGV: group, consumer, id, failed (0|1), max_deliveries, reason, idle_ms.
# Returns 0 (not ours any more), 1 (handed back), 2 (dead-lettered).
_RELEASE = _ALLOW_OOM + """
local info = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1)[1]
if not info or info[2] ~= ARGV[2] then return 0 end
local deliveries = info[4]
if ARGV[4] == '1' and deliveries >= tonumber(ARGV[5]) then
  local entry = redis.call('XRANGE', KEYS[1], ARGV[3], ARGV[3])[1]
  if entry then
    redis.call('XADD', KEYS[2], '*', 'd', entry[2][2], 'id', ARGV[3], 'deliveries', deliveries,
               'reason', ARGV[6])
  end
  redis.call('XACK', KEYS[1], ARGV[1], ARGV[3])
  redis.call('XDEL', KEYS[1], ARGV[3])
  return 2
end
local count = deliveries
if ARGV[4] ~= '1' then count = deliveries - 1 end
redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[3], 'IDLE', ARGV[7], 'RETRYCOUNT', count, 'JUSTID')
return 1
"""


# The trainer's acknowledgement: XACK + XDEL and the counters, as one step that runs at
# maxmemory. KEYS: buffer, stats. ARGV: group, n counters, (field, increment) * n, entry ids.
_ACK = _ALLOW_OOM + """
local n = tonumber(ARGV[2])
for i = 0, n - 1 do
  redis.call('HINCRBY', KEYS[2], ARGV[3 + 2 * i], ARGV[4 + 2 * i])
end
local ids = {unpack(ARGV, 3 + 2 * n)}
redis.call('XACK', KEYS[1], ARGV[1], unpack(ids))
redis.call('XDEL', KEYS[1], unpack(ids))
return #ids
"""

# The trainer's progress and policy pointers (HSET of a few bytes), at maxmemory too.
# KEYS: hash. ARGV: 'forward' (only if the version grows) or 'set', version, path or ''.
_POINTER = _ALLOW_OOM + """
if ARGV[1] == 'forward' then
  local v = redis.call('HGET', KEYS[1], 'version')
  if v and tonumber(v) > tonumber(ARGV[2]) then return 0 end
end
redis.call('HSET', KEYS[1], 'version', ARGV[2])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'path', ARGV[3]) end
return 1
"""

# KEYS: tasks stream, feed hash.  ARGV: expected position ('' = no cursor yet), plan, finished;
# new position, plan, finished; then the encoded tasks. Returns 1 (submitted) or 0 (cursor moved).
# Flags without allow-oom: a full Redis refuses the whole script before it runs (the feeder waits).
_SUBMIT_FEED = """#!lua
local cur = redis.call('HMGET', KEYS[2], 'position', 'plan', 'finished')
if ARGV[1] == '' then
  if cur[1] then return 0 end
elseif cur[1] ~= ARGV[1] or cur[2] ~= ARGV[2] or cur[3] ~= ARGV[3] then
  return 0
end
for i = 7, #ARGV do
  redis.call('XADD', KEYS[1], '*', 'd', ARGV[i])
end
redis.call('HSET', KEYS[2], 'position', ARGV[4], 'plan', ARGV[5], 'finished', ARGV[6])
return 1
"""


# The trainer's end-of-data check, read in one atomic step. `no-writes` lets it run at maxmemory
# (Redis treats it as allow-oom): the trainer asks exactly when the buffer is empty, which is
# when a full Redis holds the producers back. KEYS: feed, tasks, verify, buffer. ARGV: group.
_EXHAUSTED = """#!lua flags=no-writes
if redis.call('HGET', KEYS[1], 'finished') ~= '1' then return 0 end
if redis.call('XLEN', KEYS[2]) ~= 0 or redis.call('XLEN', KEYS[3]) ~= 0 then return 0 end
local pending = redis.call('XPENDING', KEYS[4], ARGV[1])[1]
if redis.call('XLEN', KEYS[4]) ~= pending then return 0 end
return 1
"""

# A consumer group (its stream created with it), at maxmemory too: a pod restarted while Redis
# is full must come up, or the trainer that frees the memory never returns. An empty stream is
# bytes. KEYS: streams. ARGV: their groups.
_CREATE_GROUPS = _ALLOW_OOM + """
for i, key in ipairs(KEYS) do
  local reply = redis.pcall('XGROUP', 'CREATE', key, ARGV[i], '0', 'MKSTREAM')
  if type(reply) == 'table' and reply.err and not string.find(reply.err, 'BUSYGROUP', 1, true) then
    return reply
  end
end
return #KEYS
"""

# A duplicate's copy taken back out of its stream and counted (XDEL frees what XADD took).
# KEYS: stream, stats. ARGV: entry id.
_TAKE_BACK = _ALLOW_OOM + """
redis.call('XDEL', KEYS[1], ARGV[1])
redis.call('HINCRBY', KEYS[2], 'duplicates', 1)
return 1
"""


_REFUSED = (redis.exceptions.AuthenticationError, redis.exceptions.AuthorizationError)


class _RetryFor(Retry):
    """redis-py's Retry bounded by time, not by count: a call keeps retrying connection errors
    until `outage_s` after its first failure (attempts against a refusing port take
    microseconds, against a vanished pod IP a connect timeout, so a count is no bound)."""

    def __init__(self, outage_s: float, url: str) -> None:
        super().__init__(ExponentialWithJitterBackoff(cap=2.0, base=0.05), -1)
        self.outage_s = outage_s
        self.url = url

    def call_with_retry(self, do, fail, is_retryable=None, with_failure_count=False):
        self._backoff.reset()
        failures, first = 0, None
        while True:
            try:
                return do()
            except self._supported_errors as error:
                if isinstance(error, _REFUSED) or (is_retryable and not is_retryable(error)):
                    raise
                failures += 1
                fail(error, failures) if with_failure_count else fail(error)
                now = time.monotonic()
                first = first or now
                if now - first >= self.outage_s:
                    raise QueueUnavailable(
                        f"queue url {redacted(self.url)}: Redis unreachable for {now - first:.0f} s, longer than "
                        f"the {self.outage_s:g} s outage this process rides out: {error}") from None
                if failures == 1:
                    log.warning("Redis unreachable (%s): retrying for up to %g s", error, self.outage_s)
                time.sleep(min(self._backoff.compute(failures), max(0.0, first + self.outage_s - now)))


class RedisQueue(RolloutQueue):
    def __init__(self, config: RolloutQueue.Config) -> None:
        super().__init__(config)
        try:
            self.redis = redis.Redis.from_url(
                config.url, retry=_RetryFor(config.outage_s, config.url), socket_connect_timeout=5.0,
                socket_timeout=config.reply_timeout_s,
                health_check_interval=30, **redis_credentials()
            )
        except ValueError as exc:
            raise QueueError(f"queue url {redacted(config.url)!r}: {exc}") from None
        ns = "{" + config.namespace + "}"
        self._streams = {Stage.ROLLOUT: f"{ns}:tasks", Stage.VERIFY: f"{ns}:verify"}
        self._dead = {stage: f"{ns}:dead:{stage.value}" for stage in Stage}
        self._done_prefix = {stage: f"{ns}:done:{stage.value}:" for stage in Stage}
        self._buffer = f"{ns}:experiences"
        self._stats = f"{ns}:stats"
        self._policy = f"{ns}:policy"
        self._reclaim = self.redis.register_script(_RECLAIM)
        self._ingest = self.redis.register_script(_INGEST)
        self._consumed_prefix = f"{ns}:consumed:"
        self._release = self.redis.register_script(_RELEASE)
        self._ack = self.redis.register_script(_ACK)
        self._pointer = self.redis.register_script(_POINTER)
        self._submit_feed = self.redis.register_script(_SUBMIT_FEED)
        self._exhausted = self.redis.register_script(_EXHAUSTED)
        self._create = self.redis.register_script(_CREATE_GROUPS)
        self._take_back = self.redis.register_script(_TAKE_BACK)
        self._feed = f"{ns}:feed"
        self._progress = f"{ns}:progress"
        self._cursors: dict[tuple[Stage, str], str] = {}
        # Trainer side, per consumer name: where a pending re-read continues, and the groups
        # this process was handed and has not acknowledged.
        self._backlog_from: dict[str, str | None] = {}
        self._outstanding: dict[str, set[str]] = {}
        self._min_idle_ms = int(config.visibility_timeout_s * 1000)
        self._last_reclaim: dict[tuple[Stage, str], float] = {}
        self._reclaim_every_s = min(config.visibility_timeout_s / 4, 5.0)
        self._connect(config.connect_timeout_s)

    def _connect(self, timeout_s: float) -> None:
        # This loop owns the start-up wait, so the client's long retry budget is off meanwhile.
        steady = self.redis.get_retry()
        self.redis.set_retry(Retry(NoBackoff(), 0))
        deadline = time.monotonic() + timeout_s
        pause = 0.05
        try:
            while True:
                try:
                    self.redis.ping()
                    break
                except _REFUSED as exc:
                    # Redis answered and said no: waiting cannot help.
                    raise QueueError(f"queue url {redacted(self.config.url)}: Redis refused the credentials: {exc}") from None
                except redis.ResponseError as exc:
                    if "NOAUTH" in str(exc) or "WRONGPASS" in str(exc):
                        raise QueueError(f"queue url {redacted(self.config.url)}: Redis refused the credentials: "
                                         f"{exc}") from None
                    raise
                except (redis.ConnectionError, redis.TimeoutError) as exc:
                    # rediss:// at a plain Redis: the TLS handshake times out (redis-py's
                    # TimeoutError, no ConnectionError), every attempt alike: say so at once.
                    kwargs = self.redis.connection_pool.connection_kwargs
                    if self.config.url.startswith("rediss://") and answers_plain_redis(kwargs["host"], kwargs["port"]):
                        raise QueueError(f"queue url {redacted(self.config.url)}: rediss:// (TLS) but "
                                         f"{kwargs['host']}:{kwargs['port']} answers plain Redis: use redis://, or the "
                                         "port that serves TLS") from None
                    if time.monotonic() + pause > deadline:
                        raise QueueError(
                            f"queue url {redacted(self.config.url)}: cannot reach Redis within {timeout_s:g} s: {exc}"
                        ) from None
                    time.sleep(pause)
                    pause = min(pause * 2, 2.0)
        finally:
            self.redis.set_retry(steady)
        self._create_groups()
        memory = self.redis.info("memory")
        self.maxmemory = int(memory.get("maxmemory", 0))
        if self.high_water_bytes is None and self.maxmemory:
            self.high_water_bytes = int(self.maxmemory * DEFAULT_HIGH_WATER_SHARE)

    def _create_groups(self) -> None:
        pairs = [(self._streams[s], _GROUPS[s]) for s in Stage] + [(self._buffer, _TRAINER_GROUP)]
        for stream, group in pairs:
            try:
                # EVALSHA asks for write access to its keys: a role gets here for the streams
                # it consumes (whose group it needs), and falls back for the others.
                self._create(keys=[stream], args=[group])
                continue
            except redis.exceptions.NoPermissionError:
                pass
            try:
                self.redis.xgroup_create(stream, group, id="0", mkstream=True)
            except redis.exceptions.OutOfMemoryError:
                log.warning("Redis is full (maxmemory): group %s of %s left to its consumers, which create it "
                            "at maxmemory too", group, stream)
            except redis.ResponseError as exc:
                if "BUSYGROUP" not in str(exc):
                    raise

    def _with_groups(self, call):
        """Run `call`; if Redis lost its groups (restarted without persistence), recreate them once."""
        try:
            return call()
        except redis.ResponseError as exc:
            if "NOGROUP" not in str(exc):
                raise
            log.warning("consumer groups missing (Redis restarted without its data?): recreating them")
            self._create_groups()
            return call()

    @staticmethod
    def _decode(stage: Stage, payload: bytes) -> Task | ExperienceGroup:
        return decode_task(payload) if stage is Stage.ROLLOUT else decode_group(payload)

    def submit(self, tasks: Sequence[Task]) -> None:
        with self.redis.pipeline(transaction=False) as pipe:
            for task in tasks:
                pipe.xadd(self._streams[Stage.ROLLOUT], {"d": encode_task(task)})
            pipe.execute()

    def submit_feed(self, tasks: Sequence[Task], cursor: FeedCursor, expected: FeedCursor | None) -> bool:
        def fields(c: FeedCursor | None) -> list:
            return ["", "", ""] if c is None else [str(c.position), c.plan, str(int(c.finished))]

        # Tasks are small (a 2048-token prompt is 8 KB): copying them into the script is cheap.
        try:
            done = self._submit_feed(keys=[self._streams[Stage.ROLLOUT], self._feed],
                                     args=[*fields(expected), *fields(cursor), *(encode_task(t) for t in tasks)])
        except redis.ResponseError as exc:  # a script refused for memory wrote nothing
            raise self._out_of_memory(exc, f"{len(tasks)} new tasks") from None
        return bool(done)

    def feed_cursor(self) -> FeedCursor | None:
        fields = self.redis.hgetall(self._feed)
        if not fields:
            return None
        return FeedCursor(int(fields[b"position"]), fields[b"plan"].decode(), fields[b"finished"] == b"1")

    def exhausted(self) -> bool:
        # A script, not MULTI: Redis 7.0 refuses every command queued in a MULTI at maxmemory.
        # EVALSHA_RO, not EVALSHA: it needs only read access to its keys, all the trainer has.
        keys = [self._feed, self._streams[Stage.ROLLOUT], self._streams[Stage.VERIFY], self._buffer]
        try:
            return self.redis.evalsha_ro(self._exhausted.sha, len(keys), *keys, _TRAINER_GROUP) == 1
        except redis.exceptions.NoScriptError:
            self.redis.script_load(_EXHAUSTED)
            return self.redis.evalsha_ro(self._exhausted.sha, len(keys), *keys, _TRAINER_GROUP) == 1

    def report_progress(self, policy_version: int) -> None:
        self._pointer(keys=[self._progress], args=["set", policy_version, ""])

    def trainer_progress(self) -> TrainerProgress:
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.hget(self._progress, "version")
            pipe.hget(self._stats, "trainer_dropped")
            version, dropped = pipe.execute()
        return TrainerProgress(int(version or 0), int(dropped or 0))

    def _reclaim_one(self, stage: Stage, consumer: str) -> Delivery | None:
        key = (stage, consumer)
        self._last_reclaim[key] = time.monotonic()
        reply = self._with_groups(
            lambda: self._reclaim(
                keys=[self._streams[stage], self._dead[stage]],
                args=[_GROUPS[stage], consumer, self._min_idle_ms, self.config.max_deliveries,
                      self._cursors.get(key, "0-0")],
            )
        )
        self._cursors[key] = reply[0].decode()
        if len(reply) != 4:
            return None
        entry_id, deliveries, payload = reply[1].decode(), int(reply[2]), reply[3]
        return Delivery(stage, entry_id, self._decode(stage, payload), deliveries, consumer)

    def _block_ms(self, block_s: float) -> int:
        if block_s >= self.config.reply_timeout_s:  # the read would be taken for a dead connection
            raise QueueError(f"a blocking read of {block_s:g} s: must be shorter than the queue's "
                             f"reply_timeout_s ({self.config.reply_timeout_s:g} s)")
        return max(1, int(block_s * 1000))

    def _read_new(self, stage: Stage, consumer: str, block_ms: int | None) -> Delivery | None:
        reply = self._with_groups(
            lambda: self.redis.xreadgroup(_GROUPS[stage], consumer, {self._streams[stage]: ">"}, count=1, block=block_ms)
        )
        if not reply or not reply[0][1]:
            return None
        entry_id, fields = reply[0][1][0]
        return Delivery(stage, entry_id.decode(), self._decode(stage, fields[b"d"]), 1, consumer)

    def claim(self, stage: Stage, consumer: str, block_s: float = 1.0) -> Delivery | None:
        # Scanning for reclaimable items costs a round trip, so a busy consumer does it every
        # `_reclaim_every_s` rather than on every claim (a dead worker's tasks wait at most
        # that much past the visibility timeout); an idle one does it before it blocks.
        due = time.monotonic() - self._last_reclaim.get((stage, consumer), -1e9) >= self._reclaim_every_s
        if due and (delivery := self._reclaim_one(stage, consumer)) is not None:
            return delivery
        if (delivery := self._read_new(stage, consumer, None)) is not None:
            return delivery
        if not due and (delivery := self._reclaim_one(stage, consumer)) is not None:
            return delivery
        return self._read_new(stage, consumer, self._block_ms(block_s))

    def complete(self, delivery: Delivery, group: ExperienceGroup) -> bool:
        stage = delivery.stage
        out = self._buffer if group.verified else self._streams[Stage.VERIFY]
        done = self._done_prefix[stage] + group.task_id
        # One MULTI/EXEC: the result is written and the item acknowledged together. The payload
        # goes through plain XADD, not a script (a script copies its 130 KB argument twice).
        try:
            with self.redis.pipeline(transaction=True) as pipe:
                pipe.xadd(out, {"d": encode_group(group)})
                pipe.xack(self._streams[stage], _GROUPS[stage], delivery.entry_id)
                pipe.xdel(self._streams[stage], delivery.entry_id)
                pipe.incr(done)
                pipe.expire(done, self.config.dedup_ttl_s)
                written_id, _, _, results, _ = pipe.execute()
        except redis.ResponseError as exc:  # the transaction is discarded whole: nothing written
            raise self._out_of_memory(exc, f"the group of task {group.task_id}") from None
        if results == 1:
            return True
        # This task's result already existed (a reclaimed task finished twice): take the copy
        # back out. Should this process die first, the trainer's ingest check drops it.
        self._take_back(keys=[out, self._stats], args=[written_id])
        return False

    def release(self, delivery: Delivery, *, failed: bool, reason: str = "") -> None:
        stage = delivery.stage
        # This process's next claim in the stage scans for it first (others' within their interval).
        for key in [k for k in self._last_reclaim if k[0] is stage]:
            del self._last_reclaim[key]
        self._release(
            keys=[self._streams[stage], self._dead[stage]],
            args=[
                _GROUPS[stage],
                delivery.consumer,
                delivery.entry_id,
                int(failed),
                self.config.max_deliveries,
                reason or "failed",
                # Idle past the visibility timeout: the next claim anywhere takes it.
                self._min_idle_ms + 3_600_000,
            ],
        )

    def dead_letters(self, stage: Stage) -> list[DeadLetter]:
        return [
            DeadLetter(stage, f[b"id"].decode(), f[b"d"], int(f[b"deliveries"]), f[b"reason"].decode())
            for _, f in self.redis.xrange(self._dead[stage])
        ]

    def buffer_fill(self) -> int:
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.xlen(self._buffer)
            pipe.xlen(self._streams[Stage.VERIFY])
            return sum(pipe.execute())

    def _fill_and_bytes(self) -> tuple[int, int | None]:
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.xlen(self._buffer)
            pipe.xlen(self._streams[Stage.VERIFY])
            pipe.info("memory")
            buffered, verify, memory = pipe.execute()
        return buffered + verify, int(memory["used_memory"])

    def _out_of_memory(self, exc: redis.RedisError, what: str) -> QueueError:
        if isinstance(exc, redis.exceptions.OutOfMemoryError) or "maxmemory" in str(exc):
            return BufferFull(
                f"Redis is out of memory (maxmemory {self.maxmemory:,} bytes, noeviction) and refused {what}: "
                f"the buffer's high_water_bytes ({self.high_water_bytes or 0:,}) leaves too little headroom for the "
                f"groups in flight, or something else fills Redis ({exc})")
        return exc

    def consume(
        self, consumer: str, max_groups: int, block_s: float, current_version: int, max_staleness: int,
        stale_tokens: str = "drop_group",
    ) -> Consumed:
        entries = []
        held = self._outstanding.setdefault(consumer, set())
        start = self._backlog_from.get(consumer)
        if start is None:
            # Pending for this consumer name but not held by this process: groups a restarted
            # trainer read and never acknowledged, or a read whose reply was lost while Redis
            # restarted. Both are re-read from the pending list, never left stranded.
            summary = self.redis.xpending(self._buffer, _TRAINER_GROUP)
            mine = next((int(c["pending"]) for c in summary["consumers"] if _text(c["name"]) == consumer), 0)
            if mine > len(held):
                start = "0"
        if start is not None:
            # An explicit id re-reads this consumer's pending entries after it.
            reply = self._with_groups(
                lambda: self.redis.xreadgroup(_TRAINER_GROUP, consumer, {self._buffer: start}, count=max_groups)
            )
            backlog = reply[0][1] if reply else []
            self._backlog_from[consumer] = backlog[-1][0].decode() if backlog else None
            entries = [e for e in backlog if e[0].decode() not in held]
        if not entries:
            block_ms = self._block_ms(block_s)
            reply = self._with_groups(
                lambda: self.redis.xreadgroup(
                    _TRAINER_GROUP, consumer, {self._buffer: ">"}, count=max_groups, block=block_ms
                )
            )
            entries = reply[0][1] if reply else []
        result = Consumed()
        # Deleted after they were read (acknowledged by an earlier incarnation): nothing to do.
        entries = [(entry_id.decode(), fields) for entry_id, fields in entries if fields]
        groups = [decode_group(fields[b"d"]) for _, fields in entries]
        fresh = self._ingest(
            keys=[self._consumed_prefix + g.task_id for g in groups],
            args=[entry_id for entry_id, _ in entries] + [self.config.dedup_ttl_s],
        ) if groups else []
        dropped, duplicates = [], 0
        for (entry_id, _), group, first in zip(entries, groups, fresh):
            if not first:
                dropped.append(entry_id)
                duplicates += 1
            elif drops_group(group.policy_version, group.newest_version, current_version, max_staleness, stale_tokens):
                dropped.append(entry_id)
                result.stale.append(group)
            else:
                result.groups.append(BufferedGroup(entry_id, group))
                held.add(entry_id)
        if dropped:
            self._acknowledge(dropped, stale_dropped=len(result.stale), duplicates=duplicates)
        return result

    def _acknowledge(self, entry_ids: Sequence[str], **counters: int) -> None:
        counted = [(field, n) for field, n in counters.items() if n]
        args = [_TRAINER_GROUP, len(counted), *[x for pair in counted for x in pair], *entry_ids]
        self._ack(keys=[self._buffer, self._stats], args=args)

    def ack(self, entry_ids: Sequence[str], *, dropped: bool = False) -> None:
        if not entry_ids:
            return
        for held in self._outstanding.values():
            held.difference_update(entry_ids)
        self._acknowledge(entry_ids, trainer_dropped=len(entry_ids) if dropped else 0)

    def publish_policy(self, pointer: PolicyPointer) -> None:
        # Only ever moves forward, even if two trainers' publishes race.
        self._pointer(keys=[self._policy], args=["forward", pointer.version, pointer.path])

    def latest_policy(self) -> PolicyPointer | None:
        fields = self.redis.hgetall(self._policy)
        if not fields:
            return None
        return PolicyPointer(int(fields[b"version"]), fields[b"path"].decode())

    def stats(self) -> QueueStats:
        with self.redis.pipeline(transaction=False) as pipe:
            for stage in Stage:
                pipe.xlen(self._streams[stage])
                pipe.xpending(self._streams[stage], _GROUPS[stage])
            pipe.xlen(self._buffer)
            pipe.xlen(self._dead[Stage.ROLLOUT])
            pipe.xlen(self._dead[Stage.VERIFY])
            pipe.hgetall(self._stats)
            tasks, tasks_pending, verify, verify_pending, buffer, dead_r, dead_v, counters = pipe.execute()
        return QueueStats(
            tasks_waiting=tasks - tasks_pending["pending"],
            tasks_in_flight=tasks_pending["pending"],
            verify_waiting=verify - verify_pending["pending"],
            verify_in_flight=verify_pending["pending"],
            buffer_fill=buffer + verify,
            dead_letters=dead_r + dead_v,
            duplicates=int(counters.get(b"duplicates", 0)),
            stale_dropped=int(counters.get(b"stale_dropped", 0)),
        )

    def close(self) -> None:
        self.redis.close()


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
