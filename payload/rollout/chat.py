"""The environment's reply as token ids, rendered by the policy's own chat template.

Token-in/token-out: a multi-turn rollout never re-tokenises what the policy generated (the
same text can tokenise differently, and the trainer must score exactly the ids the server
sampled). Only the environment's reply is tokenised, as the template would frame it after an
assistant turn: the rest of the assistant turn's framing after its end-of-turn token (Qwen's
"\\n" after <|im_end|>), the tool message, and the next assistant header (add_generation_prompt).

This is the delta method of verl's AgentLoop and SkyRL: render a fixed conversation that ends
with an assistant turn, render it again with the new messages, and keep the difference. It
holds only for templates that render earlier turns the same whatever follows them, which
`observation_ids` checks on every call (a template that does not fails with one line).
"""

from __future__ import annotations

from pathlib import Path

_BASE = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
_ASSISTANT = {"role": "assistant", "content": "a"}


class ChatTemplateError(ValueError):
    """The policy's tokenizer cannot frame environment replies (a setup mistake: one line)."""


class ChatTurns:
    def __init__(self, tokenizer, template_kwargs: dict | None = None) -> None:
        if not getattr(tokenizer, "chat_template", None):
            raise ChatTemplateError(f"the tokenizer of {tokenizer.name_or_path!r} has no chat template: multi-turn "
                                    "environments need one to frame the tools' replies")
        self.tokenizer = tokenizer
        self.template_kwargs = dict(template_kwargs or {})
        self._base_ids = self._render([*_BASE, _ASSISTANT], generation_prompt=False)
        before = self._render(_BASE, generation_prompt=True)
        turn = self._base_ids[len(before):] if self._base_ids[: len(before)] == before else []
        special = set(tokenizer.all_special_ids)
        ends = [i for i, t in enumerate(turn) if t in special]
        if not ends:
            raise ChatTemplateError(f"the chat template of {tokenizer.name_or_path!r} does not close an assistant turn "
                                    "with a special token after the generation prompt")
        # The token the policy ends its turn with (a stop token of every turn's request), and
        # what the template writes after it before the next message.
        self.end_of_turn_id = turn[ends[-1]]
        self._after_end = turn[ends[-1] + 1:]

    @classmethod
    def from_pretrained(cls, path: str | Path, template_kwargs: dict | None = None) -> "ChatTurns":
        from transformers import AutoTokenizer

        try:
            tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        except (OSError, ValueError) as exc:
            raise ChatTemplateError(f"{path}: no tokenizer for multi-turn rollouts ({str(exc).splitlines()[0]})") from None
        return cls(tokenizer, template_kwargs)

    def _render(self, messages: list[dict], generation_prompt: bool) -> list[int]:
        text = self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=generation_prompt,
                                                  **self.template_kwargs)
        return list(self.tokenizer.encode(text, add_special_tokens=False))

    def observation_ids(self, messages: list[dict], turn_ended: bool) -> list[int]:
        """The ids that follow a policy turn: (its end-of-turn token when the turn stopped without
        it), the template's framing after it, `messages`, and the next assistant header."""
        full = self._render([*_BASE, _ASSISTANT, *messages], generation_prompt=True)
        if full[: len(self._base_ids)] != self._base_ids:
            raise ChatTemplateError(f"the chat template of {self.tokenizer.name_or_path!r} renders an assistant turn "
                                    "differently once a tool message follows it: its replies cannot be appended token-in/token-out")
        return ([] if turn_ended else [self.end_of_turn_id]) + self._after_end + full[len(self._base_ids):]

    def decode(self, ids: list[int]) -> str:
        return self.tokenizer.decode(ids, skip_special_tokens=True)
