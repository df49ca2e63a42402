"""What the verify-worker tests share: a group put in the verify stream as a rollout worker
leaves it (unscored), and a real VerifyWorker run until that stream is drained."""

import threading
import time

from payload.queue.base import Stage
from payload.queue.experience import ExperienceGroup, Sample, Task


def unverified(queue, task_id: str, texts: list[str], label: str, verifier: str) -> None:
    queue.submit([Task(task_id=task_id, prompt_id="p", prompt_tokens_P=[1], group_size=len(texts), label=label,
                       verifier=verifier)])
    delivery = queue.claim(Stage.ROLLOUT, "rollout", block_s=0.1)
    samples = [Sample(token_ids_T=[1], logprobs_T=[0.0], finish_reason="stop", text=t) for t in texts]
    queue.complete(delivery, ExperienceGroup(task_id=task_id, prompt_id="p", policy_version=0, prompt_tokens_P=[1],
                                             samples=samples, label=label, verifier=verifier))


def verify_until_drained(worker, queue, timeout_s: float) -> float:
    """Run `worker` until nothing waits or is in flight in the verify stream (at most
    `timeout_s`), then stop it; the seconds that took. The worker's thread must have ended."""
    stop = threading.Event()
    thread = threading.Thread(target=worker.run, args=(stop,))
    started = time.monotonic()
    thread.start()
    while queue.stats().verify_waiting + queue.stats().verify_in_flight > 0 and time.monotonic() < started + timeout_s:
        time.sleep(0.05)
    took = time.monotonic() - started
    stop.set()
    thread.join(30)
    assert not thread.is_alive()
    return took
