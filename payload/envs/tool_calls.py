"""Tool calls in the policy's text, in the Hermes / Qwen3 format its chat template teaches:

    <tool_call>
    {"name": "calculator", "arguments": {"expression": "12 * (3 + 4)"}}
    </tool_call>

The first call of a turn is run (one tool call per turn keeps the transcript a strict
alternation of policy and environment). A malformed call is answered with an error the policy
can read, as a real tool server would, rather than ending the episode.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)


@dataclass
class ToolCall:
    name: str
    arguments: dict


class MalformedToolCall(ValueError):
    pass


def first_tool_call(text: str) -> ToolCall | None:
    """The turn's first tool call; None when the turn makes none (its final answer)."""
    match = TOOL_CALL.search(text)
    if match is None:
        return None
    try:
        call = json.loads(match.group(1))
    except json.JSONDecodeError as exc:
        raise MalformedToolCall(f"tool call is not JSON: {exc.msg}") from None
    if not isinstance(call, dict) or not isinstance(call.get("name"), str) or not isinstance(call.get("arguments", {}), dict):
        raise MalformedToolCall('tool call must be {"name": str, "arguments": {...}}')
    return ToolCall(call["name"], call.get("arguments", {}))


def tool_message(content: str) -> dict:
    return {"role": "tool", "content": content}
