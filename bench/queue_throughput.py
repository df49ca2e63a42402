"""Experience groups per second through the Redis queue, against raw redis-py on the same bytes.

    python bench/queue_throughput.py [--tasks 1000] [--group-size 8] [--tokens 2048] [--repeats 3]

Ours: the path a group takes in production, through payload.queue's RedisQueue:
    submit(tasks) → per task: wait_for_room + claim + complete(group)   (what a rollout worker does)
    → consume(batch) + ack                                               (what the trainer does)
with a realistic group (G samples × T tokens: int32 token ids + fp32 logprobs, encoded per
complete and decoded per consume).

The limit: raw redis-py moving the very same bytes through the same streams pattern with no
payload logic: pipelined XADD of the tasks, XREADGROUP one task, XADD its (pre-encoded) group
+ XACK pipelined, XREADGROUP + XACK the groups in batches. Both run against one redis-server
started here, alternating, best of --repeats. Target: ours ≥ 0.8 × raw.

Then the reclaim latency: a `rollout`-like subprocess claims a task and is SIGKILLed; the time
until a live consumer claims it again, against the visibility timeout (target ≤ timeout + 1 s).
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from payload.queue.base import RolloutQueue, Stage  # noqa: E402
from payload.queue.experience import ExperienceGroup, Sample, Task, encode_group, encode_task  # noqa: E402
from tests.payload.queue.redis_server import RedisServer  # noqa: E402

BATCH = 64  # trainer reads per call


def make_tasks(n: int, group_size: int, tag: str) -> list[Task]:
    return [Task(task_id=f"{tag}-{i}", prompt_id=f"p{i}", prompt_tokens_P=np.arange(256), group_size=group_size)
            for i in range(n)]


def make_group(task: Task, tokens: int, rng: np.random.Generator) -> ExperienceGroup:
    samples = [Sample(token_ids_T=rng.integers(0, 150_000, tokens), logprobs_T=-rng.random(tokens).astype(np.float32),
                      finish_reason="length", text="", reward=1.0) for _ in range(task.group_size)]
    return ExperienceGroup(task_id=task.task_id, prompt_id=task.prompt_id, policy_version=0,
                           prompt_tokens_P=task.prompt_tokens_P, samples=samples)


def run_ours(url: str, tasks: list[Task], template: ExperienceGroup) -> float:
    queue = RolloutQueue.Config(backend="redis", url=url, namespace=uuid.uuid4().hex[:8],
                                high_water_groups=10 * BATCH).build()
    got = 0
    start = time.perf_counter()
    for lo in range(0, len(tasks), BATCH):
        queue.submit(tasks[lo:lo + BATCH])
        for _ in tasks[lo:lo + BATCH]:
            queue.wait_for_room(10.0)
            delivery = queue.claim(Stage.ROLLOUT, "worker", block_s=1.0)
            template.task_id = delivery.task_id  # the group a worker would have generated for it
            queue.complete(delivery, template)
        while got < lo + BATCH and got < len(tasks):
            batch = queue.consume("trainer", BATCH, 1.0, current_version=0, max_staleness=1)
            got += len(batch.groups)
            queue.ack([g.entry_id for g in batch.groups])
    elapsed = time.perf_counter() - start
    assert got == len(tasks)
    queue.close()
    return len(tasks) / elapsed


def run_raw(url: str, tasks: list[Task], group_bytes: bytes) -> float:
    import redis

    r = redis.Redis.from_url(url)
    ns = uuid.uuid4().hex[:8]
    task_stream, exp_stream = f"{ns}:tasks", f"{ns}:exp"
    r.xgroup_create(task_stream, "workers", id="0", mkstream=True)
    r.xgroup_create(exp_stream, "trainer", id="0", mkstream=True)
    encoded = [encode_task(t) for t in tasks]
    got = 0
    start = time.perf_counter()
    for lo in range(0, len(tasks), BATCH):
        with r.pipeline(transaction=False) as pipe:
            for payload in encoded[lo:lo + BATCH]:
                pipe.xadd(task_stream, {"d": payload})
            pipe.execute()
        for _ in encoded[lo:lo + BATCH]:
            [[_, [(entry_id, _fields)]]] = r.xreadgroup("workers", "worker", {task_stream: ">"}, count=1)
            with r.pipeline(transaction=True) as pipe:
                pipe.xadd(exp_stream, {"d": group_bytes})
                pipe.xack(task_stream, "workers", entry_id)
                pipe.execute()
        while got < lo + BATCH and got < len(tasks):
            reply = r.xreadgroup("trainer", "trainer", {exp_stream: ">"}, count=BATCH, block=1000)
            ids = [entry_id for entry_id, _ in reply[0][1]]
            got += len(ids)
            r.xack(exp_stream, "trainer", *ids)
    elapsed = time.perf_counter() - start
    assert got == len(tasks)
    r.close()
    return len(tasks) / elapsed


_VICTIM = """
import sys, time
sys.path.insert(0, {repo!r})
from payload.queue.base import RolloutQueue, Stage
q = RolloutQueue.Config(backend="redis", url={url!r}, namespace={ns!r}, visibility_timeout_s={vis}).build()
d = q.claim(Stage.ROLLOUT, "victim", block_s=5)
print(d.task_id, flush=True)
time.sleep(3600)
"""


def reclaim_latency(url: str, visibility_s: float) -> float:
    ns = uuid.uuid4().hex[:8]
    queue = RolloutQueue.Config(backend="redis", url=url, namespace=ns, visibility_timeout_s=visibility_s).build()
    queue.submit(make_tasks(1, 2, "reclaim"))
    victim = subprocess.Popen([sys.executable, "-c", _VICTIM.format(repo=str(REPO), url=url, ns=ns, vis=visibility_s)],
                              stdout=subprocess.PIPE, text=True)
    victim.stdout.readline()  # it holds the task
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    killed = time.perf_counter()
    while (delivery := queue.claim(Stage.ROLLOUT, "survivor", block_s=0.05)) is None:
        pass
    latency = time.perf_counter() - killed
    assert delivery.deliveries == 2
    queue.close()
    return latency


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--tokens", type=int, default=2048)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--visibility-s", type=float, default=2.0)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    template = make_group(make_tasks(1, args.group_size, "x")[0], args.tokens, rng)
    group_bytes = encode_group(template)
    server = RedisServer().start()
    import redis

    admin = redis.Redis.from_url(server.url)
    # An AOF rewrite (a fork copying the whole dataset) would land on whichever run happens to
    # cross the size threshold; both runs get the same fsync-always AOF without rewrites.
    admin.config_set("auto-aof-rewrite-percentage", 0)
    try:
        ours, raw = [], []
        for rep in range(args.repeats):
            runs = [(raw, lambda: run_raw(server.url, make_tasks(args.tasks, args.group_size, f"raw{rep}"), group_bytes)),
                    (ours, lambda: run_ours(server.url, make_tasks(args.tasks, args.group_size, f"ours{rep}"), template))]
            for results, run in runs if rep % 2 == 0 else runs[::-1]:  # alternate who goes first
                admin.flushall()
                admin.bgrewriteaof()  # start each run from a compact AOF
                while admin.info("persistence")["aof_rewrite_in_progress"]:
                    time.sleep(0.05)
                results.append(run())
        latency = reclaim_latency(server.url, args.visibility_s)
    finally:
        admin.close()
        server.close()
    mb = len(group_bytes) / 2**20
    print(f"group: G={args.group_size} x {args.tokens} tokens = {len(group_bytes)} bytes; {args.tasks} tasks, "
          f"best of {args.repeats}")
    print(f"raw redis-py  {max(raw):8.1f} groups/s  ({max(raw) * mb:6.1f} MiB/s)   runs {[round(x) for x in raw]}")
    print(f"payload.queue {max(ours):8.1f} groups/s  ({max(ours) * mb:6.1f} MiB/s)   runs {[round(x) for x in ours]}")
    paired = sorted(o / r for o, r in zip(ours, raw))
    print(f"ratio {max(ours) / max(raw):.2f} best/best (target >= 0.80); per-repeat ratios median "
          f"{paired[len(paired) // 2]:.2f}, range {paired[0]:.2f}-{paired[-1]:.2f}")
    print(f"reclaim after kill -9: {latency:.2f} s with visibility timeout {args.visibility_s:g} s "
          f"(target <= {args.visibility_s + 1:g} s)")


if __name__ == "__main__":
    main()
