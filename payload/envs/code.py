"""A code environment: the policy may call `python` with a program and reads its exit code,
stdout and stderr; a turn without a tool call is its final answer, which the task's verifier
(code: the program and the task's tests) scores.

Programs run where the `code` verifier's do (payload.sandbox.client.executor: the sandbox pod
pool on the cluster, a local jail otherwise), with the same isolation and limits. A sandbox
that cannot run the program at all raises SandboxError: the worker hands the task back, it is
not turned into a tool answer the policy would be trained on.
"""

from __future__ import annotations

from payload.envs.base import ToolEnvironment, Step
from payload.envs.tool_calls import MalformedToolCall, first_tool_call, tool_message

# What the policy reads back per stream: enough for a traceback, bounded so a program that
# prints without end cannot fill the context.
MAX_OUTPUT_CHARS = 2000


class CodeEnvironment(ToolEnvironment):
    name = "code"

    def __init__(self) -> None:
        self._executor = None

    def _run(self, source: str):
        if self._executor is None:  # one per episode, made on its first tool call
            from payload.sandbox.client import executor

            self._executor = executor()
        return self._executor.run(source)

    def step(self, action: str) -> Step:
        try:
            call = first_tool_call(action)
        except MalformedToolCall as exc:
            return Step([tool_message(f"error: {exc}")])
        if call is None:
            return Step(done=True)
        if call.name != "python":
            return Step([tool_message(f"error: unknown tool {call.name!r}; the only tool is python")])
        source = call.arguments.get("code")
        if not isinstance(source, str):
            return Step([tool_message('error: python takes {"code": "<program>"}')])
        result = self._run(source)
        status = "timed out" if result.timed_out else f"exit code {result.exit_code}"
        stdout = result.stdout.decode(errors="replace")[:MAX_OUTPUT_CHARS]
        stderr = result.stderr.decode(errors="replace")[:MAX_OUTPUT_CHARS]
        return Step([tool_message(f"{status}\nstdout:\n{stdout}\nstderr:\n{stderr}")])
