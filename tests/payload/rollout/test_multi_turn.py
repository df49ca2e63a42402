"""Multi-turn rollouts with tool calls: the token sequence and loss mask against the chat
template, the episode loop against the real embedded engine, and what the trainer makes of
the mask."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid

import numpy as np
import pytest
import torch

import yaml

from payload.envs.base import ToolEnvironment, Step, get_environment
from payload.envs.calculator import CalculatorError, evaluate
from payload.queue.base import RolloutQueue, Stage
from payload.queue.experience import Task, decode_group, encode_group
from payload.rollout.chat import ChatTemplateError, ChatTurns
from payload.rollout.client import ROUTING_KEY_HEADER, SamplingParams, SGLangClient
from payload.rollout.episode import EpisodeRunner
from payload.train.batch import Sample as TrainSample, collate, pack
from payload.train.loss import grpo_loss
from payload.common.ports import free_port
from tests.payload.rollout.chat_helpers import ScriptedPolicy, make_tool_tokenizer
from tests.payload.rollout.helpers import REPO, env

SYSTEM = 'Use the calculator: <tool_call>{"name": "calculator", "arguments": {"expression": "..."}}</tool_call>'
QUESTION = "What is 12 * (3 + 4)?"
CALL = '<tool_call>\n{"name": "calculator", "arguments": {"expression": "12 * (3 + 4)"}}\n</tool_call>'
FINAL = "The answer is \\boxed{84}."


@pytest.fixture(scope="module")
def chat(tmp_path_factory):
    return ChatTurns.from_pretrained(make_tool_tokenizer(tmp_path_factory.mktemp("tokenizer")))


def prompt_ids(chat):
    text = chat.tokenizer.apply_chat_template([{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTION}],
                                              tokenize=False, add_generation_prompt=True)
    return chat.tokenizer.encode(text, add_special_tokens=False)


def test_a_tool_calling_episode_is_the_chat_templates_own_rendering_with_the_tools_masked(chat):
    task = Task(task_id="mt1", prompt_id="p", prompt_tokens_P=prompt_ids(chat), group_size=2, label="84",
                environment="calculator")
    with ScriptedPolicy(chat.tokenizer, [CALL, FINAL], versions=["3", "4"]) as policy:
        client = SGLangClient.Config(url=policy.url, max_attempts=1).build()
        group = EpisodeRunner(EpisodeRunner.Config(max_turns=4, max_response_tokens=512), client, chat).rollout(
            task, SamplingParams(max_new_tokens=256), worker="w")
        client.close()
    # The whole conversation, as the template renders it with the calculator's real answer; the
    # sequence ends at the policy's last <|im_end|> (the template's "\n" after it is never generated).
    rendered = chat.tokenizer.encode(chat.tokenizer.apply_chat_template([
        {"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTION},
        {"role": "assistant", "content": CALL}, {"role": "tool", "content": "84"},
        {"role": "assistant", "content": FINAL}], tokenize=False), add_special_tokens=False)
    assert chat.tokenizer.decode(rendered[-1:]) == "\n"
    first, second = policy.output(0), policy.output(1)
    for sample in group.samples:
        assert group.prompt_tokens_P.tolist() + sample.token_ids_T.tolist() == rendered[:-1]
        tool = len(sample.token_ids_T) - len(first) - len(second)
        assert sample.loss_mask_T.tolist() == [1] * len(first) + [0] * tool + [1] * len(second)
        assert chat.tokenizer.decode(sample.token_ids_T[len(first):len(first) + tool].tolist()) == (
            "\n<|im_start|>user\n<tool_response>\n84\n</tool_response><|im_end|>\n<|im_start|>assistant\n")
        np.testing.assert_allclose(sample.logprobs_T, policy.logprobs(0, len(first)) + [0.0] * tool
                                   + policy.logprobs(1, len(second)), rtol=1e-6)
        assert sample.finish_reason == "stop" and sample.text == FINAL
        # Every token keeps its turn's version; the tool's reply (never trained) joins the turn before it.
        assert sample.version_spans == ((3, 0, len(first) + tool), (4, len(first) + tool, len(sample.token_ids_T)))
    # Staleness counts from the oldest turn's weights.
    assert (group.policy_version, group.newest_version) == (3, 4)
    # Token-in: turn 2 sends back exactly the ids turn 1 returned, plus the tool's reply; every
    # request of the task carries its session key for the router.
    turn_one, turn_two = policy.requests
    assert turn_one["input_ids"] == [prompt_ids(chat)] * 2
    assert turn_two["input_ids"] == [prompt_ids(chat) + group.samples[0].token_ids_T[:-len(second)].tolist()] * 2
    assert {r["headers"][ROUTING_KEY_HEADER.lower()] for r in policy.requests} == {"mt1"}
    assert chat.end_of_turn_id in turn_one["sampling_params"]["stop_token_ids"]
    # The mask survives the queue's record format.
    back = decode_group(encode_group(group))
    assert [s.loss_mask_T.tolist() for s in back.samples] == [s.loss_mask_T.tolist() for s in group.samples]
    assert [s.version_spans for s in back.samples] == [s.version_spans for s in group.samples]


def test_the_trainer_trains_only_the_policys_tokens_of_a_multi_turn_sample():
    prompt, response = np.array([5, 6, 7]), np.array([10, 11, 20, 21, 22, 12, 13])
    mask = np.array([1, 1, 0, 0, 0, 1, 1], dtype=bool)
    logprobs = np.where(mask, -0.5, 0.0)
    samples = [TrainSample(prompt, response, logprobs, 1.0, advantage=1.0, response_mask=mask),
               TrainSample(np.array([1, 2]), np.array([3, 4]), [-0.1, -0.2], 0.0, advantage=-1.0)]
    for micro in (collate(samples), pack(samples)):
        # Response token j is predicted at position P + j - 1.
        expected = np.zeros((2, micro.loss_mask_BT1.shape[1]), dtype=bool)
        expected[0, 2:9] = mask
        expected[1, 1:3] = True
        assert micro.loss_mask_BT1.numpy().tolist() == expected.tolist()
        assert micro.rollout_logprobs_BT1[0, 2:9].tolist() == pytest.approx(logprobs.tolist())
        logprobs_BT = torch.full(micro.loss_mask_BT1.shape, -0.5, requires_grad=True)
        loss, _ = grpo_loss(logprobs_BT, logprobs_BT.detach(), micro.advantages_B, micro.loss_mask_BT1)
        loss.backward()
        # Gradient on exactly the policy's tokens; the tool's reply and the padding get none.
        assert (logprobs_BT.grad != 0).numpy().tolist() == expected.tolist()
    with pytest.raises(ValueError, match="response mask"):
        TrainSample(prompt, response, logprobs, 1.0, response_mask=mask[:3])


class FixedReplies(ToolEnvironment):
    """A plug-in that answers every turn with the same tool message, for two turns."""

    name = "test_fixed_replies"

    def __init__(self) -> None:
        self.turns = 0

    def step(self, action: str) -> Step:
        self.turns += 1
        return Step([{"role": "tool", "content": "42"}], done=self.turns == 2)


def test_the_loop_runs_against_the_real_engine_token_in_token_out(chat, served_tiny):
    task = Task(task_id="mt2", prompt_id="p", prompt_tokens_P=prompt_ids(chat), group_size=2, label="",
                environment=FixedReplies.name)
    # Greedy, and a turn ends at any even id: short turns that stop without <|im_end|>, which
    # the rollout closes itself (masked) before the tool's reply.
    sampling = SamplingParams(temperature=0.0, max_new_tokens=16, stop_token_ids=list(range(0, 256, 2)))
    client = SGLangClient.Config(url=served_tiny.url).build()
    try:
        group = EpisodeRunner(EpisodeRunner.Config(max_turns=4, max_response_tokens=256), client, chat).rollout(
            task, sampling, worker="w", stop=threading.Event())
        for sample in group.samples:
            ids, mask = sample.token_ids_T.tolist(), sample.loss_mask_T.tolist()
            first_end = mask.index(0)
            second_start = first_end + mask[first_end:].index(1)
            assert mask == [1] * first_end + [0] * (second_start - first_end) + [1] * (len(mask) - second_start)
            reply = chat.tokenizer.decode(ids[first_end:second_start])
            closed = "" if ids[first_end - 1] == chat.end_of_turn_id else "<|im_end|>"
            assert reply == closed + "\n<|im_start|>user\n<tool_response>\n42\n</tool_response><|im_end|>\n<|im_start|>assistant\n"
            assert not np.any(sample.logprobs_T[first_end:second_start])
            # Token-in/token-out: each turn is exactly what the engine generates after the ids
            # before it (greedy, so asking again gives the same tokens and logprobs).
            prompt = group.prompt_tokens_P.tolist()
            for start, end in ((0, first_end), (second_start, len(ids))):
                [again] = client.generate(np.array(prompt + ids[:start]), 1, sampling)
                assert again.token_ids_T.tolist() == ids[start:end]
                np.testing.assert_allclose(again.logprobs_T, sample.logprobs_T[start:end], rtol=1e-4, atol=1e-5)
        assert group.policy_version == 0  # the engine's weight version on every turn
    finally:
        client.close()


def test_plug_in_errors_are_one_line():
    from spec.job import JobConfigError, parse_job_config

    data = {"train": "/fsx/t.jsonl", "environment": "calculator", "chat_template": False}
    with pytest.raises(JobConfigError, match=r"^job.yaml: job.data: data.environment\(s\) need chat_template: true"):
        parse_job_config({"data": data}, "job.yaml")
    with pytest.raises(JobConfigError, match=r"^job.yaml: job.data.environment: environment 'web': not one of calculator, code"):
        parse_job_config({"data": {**data, "environment": "web"}}, "job.yaml")
    with pytest.raises(ValueError, match=r"environment 'nope': not one of calculator, code"):
        get_environment("nope")
    assert evaluate("12 * (3 + 4)") == 84 and evaluate("-2 ** 3") == -8
    for bad in ("__import__('os')", "9 ** 9 ** 9", "1 / 0", "x + 1"):
        with pytest.raises(CalculatorError):
            evaluate(bad)
    env = get_environment("calculator")
    assert env.step("no tool call: the answer is 3").done
    assert "error: tool call is not JSON" in env.step("<tool_call>{oops</tool_call>").observation[0]["content"]
    assert json.dumps(env.step(CALL).observation) == json.dumps([{"role": "tool", "content": "84"}])


def test_a_tokenizer_without_a_chat_template_is_refused_in_one_line(tmp_path):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(make_tool_tokenizer(tmp_path)), local_files_only=True)
    tokenizer.chat_template = None
    with pytest.raises(ChatTemplateError, match="has no chat template"):
        ChatTurns(tokenizer)


def _rollout_worker(name, server_url, queue_url, namespace, job_config):
    command = [sys.executable, "-m", "payload", "rollout", "--server-url", server_url, "--queue-url", queue_url,
               "--namespace", namespace, "--name", name, "--concurrency", "1", "--max-new-tokens", "512",
               "--visibility-timeout-s", "1", "--max-deliveries", "5", "--metrics-port", str(free_port()),
               # Scoring is the verifiers' (tested elsewhere): the group goes to the VERIFY stage.
               "--no-inline-verifier", "--job-config", str(job_config)]
    # Its own process group: SIGKILL takes its verifier process too, as losing the node would.
    return subprocess.Popen(command, env=env(), cwd=REPO, start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def test_a_killed_workers_conversation_is_played_again_from_the_prompt_exactly_once(chat, redis_server, tmp_path):
    job_config = tmp_path / "job.yaml"
    job_config.write_text(yaml.safe_dump({"model": {"path": chat.tokenizer.name_or_path}}))
    namespace = uuid.uuid4().hex[:8]
    queue = RolloutQueue.Config(backend="redis", url=redis_server.url, namespace=namespace,
                                visibility_timeout_s=1.0).build()
    prompt = prompt_ids(chat)
    queue.submit([Task(task_id="mt3", prompt_id="p", prompt_tokens_P=prompt, group_size=2, label="84",
                       verifier="math", environment="calculator")])
    workers = []
    with ScriptedPolicy(chat.tokenizer, [CALL, FINAL], versions=["1", "1"]) as policy:
        policy.hold_after_first_turn.set()  # the first worker dies between its tool call and turn 2
        try:
            first = _rollout_worker("first", policy.url, redis_server.url, namespace, job_config)
            workers.append(first)
            deadline = time.monotonic() + 60
            while len(policy.requests) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert [len(r["input_ids"][0]) > len(prompt) for r in policy.requests] == [False, True]
            os.killpg(first.pid, signal.SIGKILL)
            first.wait(10)
            policy.hold_after_first_turn.clear()
            second = _rollout_worker("second", policy.url, redis_server.url, namespace, job_config)
            workers.append(second)
            received = []
            deadline = time.monotonic() + 60
            while not received and time.monotonic() < deadline:
                if (delivery := queue.claim(Stage.VERIFY, "verifier", block_s=0.2)) is not None:
                    received.append(delivery)
            # Nothing else arrives once the task is done (a second group would be a duplicate).
            if (late := queue.claim(Stage.VERIFY, "verifier", block_s=1.5)) is not None:
                received.append(late)
            stats = queue.stats()
        finally:
            for worker in workers:
                if worker.poll() is None:
                    os.killpg(worker.pid, signal.SIGKILL)
                    worker.wait(10)
            queue.close()
    [delivery] = received
    group = delivery.item
    assert group.task_id == "mt3" and group.worker == "second"
    # Restarted, not resumed: the second worker's first request is the prompt itself.
    after_kill = policy.requests[2:]
    assert after_kill[0]["input_ids"] == [prompt] * 2 and len(after_kill) == 2
    assert [s.text for s in group.samples] == [FINAL, FINAL]  # what the verifier scores: the final turn
    assert all(s.loss_mask_T.tolist().count(0) > 0 for s in group.samples)
    assert stats.dead_letters == 0 and stats.tasks_in_flight == 0 and stats.tasks_waiting == 0
    assert stats.verify_in_flight == 1 and stats.verify_waiting == 0


def test_the_code_environment_runs_the_policys_program_in_the_sandbox(monkeypatch):
    from payload.sandbox.client import SANDBOX_URL_ENV

    monkeypatch.delenv(SANDBOX_URL_ENV, raising=False)  # the local jail, as the verifier's executor uses
    env = get_environment("code")
    call = '<tool_call>{"name": "python", "arguments": {"code": "print(6 * 7)"}}</tool_call>'
    [reply] = env.step(call).observation
    assert reply["role"] == "tool" and reply["content"].startswith("exit code 0\nstdout:\n42\n")
    [failed] = env.step('<tool_call>{"name": "python", "arguments": {"code": "raise SystemExit(3)"}}</tool_call>').observation
    assert failed["content"].startswith("exit code 3\n")
    assert env.step("def add(a, b): return a + b").done  # no tool call: the final answer


def test_a_job_with_environments_and_no_tokenizer_is_refused_at_start_in_one_line(tmp_path):
    job_config = tmp_path / "job.yaml"
    job_config.write_text(yaml.safe_dump({"model": {"path": str(tmp_path / "no-model")},
                                          "data": {"train": "/fsx/t.jsonl", "environment": "calculator"}}))
    result = subprocess.run([sys.executable, "-m", "payload", "rollout", "--server-url", "http://127.0.0.1:9",
                             "--queue-url", "redis://127.0.0.1:9", "--metrics-port", "0", "--job-config", str(job_config)],
                            cwd=REPO, env=env(), capture_output=True, text=True, timeout=300)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"error: {tmp_path / 'no-model'}: no tokenizer for multi-turn rollouts")
