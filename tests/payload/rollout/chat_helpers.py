"""A tiny policy tokenizer with a tool-calling chat template, and a scripted policy on loopback.

The tokenizer is character-level (every printable ASCII character and newline one id, so any
text round-trips exactly) with Qwen3's special and tool tokens, and fits the tiny test
model's 256-id vocabulary. Its template frames tool results the way Qwen3's does: a user
turn holding <tool_response>...</tool_response>.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import uvicorn
from fastapi import FastAPI, Request

from payload.common.ports import free_port

TOOL_CHAT_TEMPLATE = (
    "{% for m in messages %}"
    "{% if m['role'] == 'tool' %}<|im_start|>user\n<tool_response>\n{{ m['content'] }}\n</tool_response><|im_end|>\n"
    "{% else %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
SPECIAL = ["<|im_start|>", "<|im_end|>"]
TOOL_TOKENS = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"]


def make_tool_tokenizer(directory: Path) -> Path:
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    chars = ["\n"] + [chr(c) for c in range(32, 127)]
    vocab = {w: i for i, w in enumerate(["<unk>", "<pad>", *SPECIAL, *TOOL_TOKENS, *chars])}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
    tokenizer.decoder = decoders.Fuse()
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="<unk>", pad_token="<pad>",
                                   eos_token="<|im_end|>", additional_special_tokens=SPECIAL)
    fast.add_tokens(TOOL_TOKENS)  # added, not special: they survive decode(skip_special_tokens=True)
    fast.chat_template = TOOL_CHAT_TEMPLATE
    directory.mkdir(parents=True, exist_ok=True)
    fast.save_pretrained(str(directory))
    return directory


class ScriptedPolicy:
    """SGLang's /generate on loopback, answering each conversation by its turn: `turns[k]` is
    the text the policy says at its k-th turn (counted from the assistant headers in the
    request), returned as token ids ending in <|im_end|>, with a logprob per token and
    `versions[k]` as the weight version. Records every request (input_ids, headers).
    While `hold_after_first_turn` is set, requests for later turns wait."""

    def __init__(self, tokenizer, turns: list[str], versions: list[str]) -> None:
        self.tokenizer, self.turns, self.versions = tokenizer, turns, versions
        self.header = tokenizer.encode("<|im_start|>assistant\n", add_special_tokens=False)
        self.end = tokenizer.convert_tokens_to_ids("<|im_end|>")
        self.requests: list[dict] = []
        self.hold_after_first_turn = threading.Event()
        app = FastAPI()

        @app.get("/health_generate")
        async def health_generate():
            return {}

        @app.post("/generate")
        async def generate(request: Request):
            body = await request.json()
            self.requests.append({"input_ids": body["input_ids"], "headers": dict(request.headers),
                                  "sampling_params": body["sampling_params"]})
            answers = []
            for ids in body["input_ids"]:
                turn = self._turn(ids)
                while turn > 0 and self.hold_after_first_turn.is_set():
                    await asyncio.sleep(0.05)
                answers.append(self.answer(turn))
            return answers

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="error"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def _turn(self, ids: list[int]) -> int:
        n = len(self.header)
        return sum(ids[i : i + n] == self.header for i in range(len(ids) - n + 1)) - 1

    def output(self, turn: int) -> list[int]:
        return self.tokenizer.encode(self.turns[turn], add_special_tokens=False) + [self.end]

    @staticmethod
    def logprobs(turn: int, count: int) -> list[float]:
        return [-(turn + 1) - i / 100 for i in range(count)]

    def answer(self, turn: int) -> dict:
        ids = self.output(turn)
        return {"text": self.turns[turn], "output_ids": ids,
                "meta_info": {"finish_reason": {"type": "stop", "matched": self.end}, "weight_version": self.versions[turn],
                              "output_token_logprobs": [[lp, t, None] for lp, t in zip(self.logprobs(turn, len(ids)), ids)]}}

    def __enter__(self) -> "ScriptedPolicy":
        self.thread.start()
        while not self.server.started:
            time.sleep(0.01)
        return self

    def __exit__(self, *exc) -> None:
        self.hold_after_first_turn.clear()
        self.server.should_exit = True
        self.thread.join(5)
