"""Multi-turn rollouts: a group's G conversations between the policy and an environment.

    runner = EpisodeRunner(EpisodeRunner.Config(max_turns=8, max_response_tokens=8192), client, chat)
    group = runner.rollout(task, sampling, worker="pod-7", stop=stop)

Each turn is one request for every conversation still running (the server batches them),
with the whole conversation so far as `input_ids`: the ids the policy generated, kept as they
came back, and the environment's replies as the chat template frames them (payload.rollout.chat).
The response of a sample is everything after the prompt; its loss mask is 1 on the policy's
tokens and 0 on the environment's, whose logprob slots are 0 and never read by the loss.

Every request of a task carries the task id as its session key: the router sends all of them
to the server whose radix cache already holds the conversation (and the G conversations share
their prompt), so a turn prefills only the environment's reply.

Staleness: every policy token keeps the version that sampled it (each turn's SGLang spans,
shifted to where the turn sits in the response); the environment's tokens between turns,
never trained, take the version of the policy token before them. The group's version is the
oldest of all its turns (a conversation that spans a publish is as stale as its first turn).

Spot tolerance: a conversation lives only in this worker's memory. A reclaimed worker's task
returns to the queue and is played again from the prompt (restart, not resume): resuming would
need every turn written to Redis and the tool's state (a sandbox's files) rebuilt, and the
turns a restart replays are generated with newer weights anyway. The queue's task-id guard
keeps the redone episode's group the only one.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace

import numpy as np

from payload.envs.base import get_environment
from payload.queue.experience import ExperienceGroup, Sample, Task
from payload.rollout.chat import ChatTurns
from payload.rollout.client import Generation, SamplingParams, SGLangClient, integer_spans


@dataclass
class _Conversation:
    env: object
    prompt: list[int]
    response: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    mask: list[int] = field(default_factory=list)
    versions: list[str] = field(default_factory=list)
    # Per response token: the version that sampled it (str, as the server says it); None for the
    # environment's tokens, which take the policy token's before them (`_spans`).
    token_versions: list[str | None] = field(default_factory=list)
    turns: int = 0
    done: bool = False
    finish: str = "stop"
    final_text: str = ""
    reward: float = float("nan")
    routed: np.ndarray | None = None

    def add(self, ids: list[int], policy: bool, logprobs: list[float] | None = None) -> None:
        self.response += ids
        self.logprobs += logprobs if policy else [0.0] * len(ids)
        self.mask += [int(policy)] * len(ids)
        if not policy:
            self.token_versions += [None] * len(ids)


class EpisodeRunner:
    @dataclass
    class Config:
        # Policy turns per conversation; one that is still calling tools then is cut ("length").
        max_turns: int = 8
        # Response tokens (policy and environment together) per conversation: the trainer's
        # batch.max_response_tokens.
        max_response_tokens: int = 8192

    def __init__(self, config: Config, client: SGLangClient, chat: ChatTurns) -> None:
        self.config = config
        self.client = client
        self.chat = chat

    def rollout(self, task: Task, sampling: SamplingParams, worker: str = "",
                stop: threading.Event | None = None) -> ExperienceGroup:
        conversations = []
        for _ in range(task.group_size):
            env = get_environment(task.environment)
            conversations.append(_Conversation(env, [int(t) for t in env.reset(task)]))
        stops = sorted({*sampling.stop_token_ids, self.chat.end_of_turn_id})
        while running := [c for c in conversations if not c.done]:
            prompts = [c.prompt + c.response for c in running]
            params = [replace(sampling, stop_token_ids=stops,
                              max_new_tokens=min(sampling.max_new_tokens, self.config.max_response_tokens - len(c.response)))
                      for c in running]
            generations = self.client.generate_each(prompts, params, stop, session=task.task_id)
            for conversation, generation in zip(running, generations):
                self._turn(conversation, generation)
        return self._group(task, conversations, worker)

    def _turn(self, c: _Conversation, g: Generation) -> None:
        ids = [int(t) for t in g.token_ids_T]
        c.add(ids, policy=True, logprobs=[float(x) for x in g.logprobs_T])
        c.versions.append(g.weight_version)
        for version, start, end in g.weight_spans:
            c.token_versions += [version] * (end - start)
        c.turns += 1
        c.routed = g.routed_experts_SLK  # the last turn's covers the whole conversation
        c.final_text = self.chat.decode(ids)
        if g.finish_reason == "length" or len(c.response) >= self.config.max_response_tokens:
            c.done, c.finish = True, "length"
            return
        step = c.env.step(c.final_text)
        if step.done:
            c.done = True
            if step.reward is not None:
                c.reward = float(step.reward)
            return
        if c.turns >= self.config.max_turns:
            c.done, c.finish = True, "length"
            return
        observation = self.chat.observation_ids(step.observation, turn_ended=bool(ids) and ids[-1] == self.chat.end_of_turn_id)
        # The next turn needs room for at least one token after the reply.
        if len(c.response) + len(observation) >= self.config.max_response_tokens:
            c.done, c.finish = True, "length"
            return
        c.add(observation, policy=False)

    def _group(self, task: Task, conversations: list[_Conversation], worker: str) -> ExperienceGroup:
        prompts = {tuple(c.prompt) for c in conversations}
        if len(prompts) != 1:
            raise ValueError(f"environment {task.environment!r} started the group's conversations from different prompts")
        versions = [v for c in conversations for v in c.versions]
        # A bare SGLang says "default"; servers started by `serve` carry an integer version.
        version = min(int(v) for v in versions) if all(v.isdigit() for v in versions) else task.policy_version
        spans = [integer_spans(_spans(c.token_versions)) for c in conversations]
        if not all(v.isdigit() for v in versions) or any(s is None for s in spans):
            spans = [None] * len(conversations)
        samples = [
            Sample(token_ids_T=c.response, logprobs_T=c.logprobs, finish_reason=c.finish, text=c.final_text,
                   reward=c.reward, routed_experts_SLK=c.routed, loss_mask_T=c.mask, version_spans=span)
            for c, span in zip(conversations, spans)
        ]
        return ExperienceGroup(task_id=task.task_id, prompt_id=task.prompt_id, policy_version=version,
                               prompt_tokens_P=conversations[0].prompt, samples=samples, label=task.label,
                               verifier=task.verifier, worker=worker, data_source=task.data_source)


def _spans(token_versions: list[str | None]) -> list[tuple[str, int, int]]:
    """Per-token versions as (version, start, end) spans; the environment's tokens (None) join
    the span before them, or the first policy span where the response starts with them."""
    # No policy token at all: "" (not an integer version), so the sample carries no spans.
    first = next((v for v in token_versions if v is not None), "")
    spans: list[tuple[str, int, int]] = []
    for i, version in enumerate(token_versions):
        version = version if version is not None else spans[-1][0] if spans else first
        if spans and spans[-1][0] == version:
            spans[-1] = (version, spans[-1][1], i + 1)
        else:
            spans.append((version, i, i + 1))
    return spans
