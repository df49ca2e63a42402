"""Token ids ↔ text for the embedded engine's `text` field (what verifiers read).

A checkpoint directory with tokenizer files gets its own tokenizer (transformers, read from
the directory, never from a hub). One without (the tiny test and demo models, vocab 256+)
gets bytes: id < 256 is that byte, UTF-8 decoded, larger ids are special and dropped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol


class Tokenizer(Protocol):
    def encode(self, text: str) -> list[int]: ...

    def decode(self, ids: list[int]) -> str: ...


class ByteTokenizer:
    def encode(self, text: str) -> list[int]:
        return list(text.encode("utf-8"))

    def decode(self, ids: list[int]) -> str:
        return bytes(i for i in ids if 0 <= i < 256).decode("utf-8", errors="replace")


class HFTokenizer:
    def __init__(self, path: str | Path) -> None:
        from transformers import AutoTokenizer

        self._tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)

    def encode(self, text: str) -> list[int]:
        return self._tokenizer.encode(text, add_special_tokens=False)

    def decode(self, ids: list[int]) -> str:
        return self._tokenizer.decode(ids, skip_special_tokens=True)


_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "tokenizer.model")


def load_tokenizer(path: str | Path) -> Tokenizer:
    if any((Path(path) / name).is_file() for name in _TOKENIZER_FILES):
        return HFTokenizer(path)
    return ByteTokenizer()
