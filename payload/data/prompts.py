"""Dataset rows -> prompts: the column mapping, the chat template and the prompt-length filter.

    builder = PromptBuilder.Config.of(job).build()       # the model's tokenizer, from job.model.path
    scan = builder.scan(dataset)                          # every row checked once; over-long ones counted
    prompt = builder.prompt(dataset, scan.kept[0])        # tokens, label, verifier, data source

Chat templating is the model's own (`apply_chat_template(messages, add_generation_prompt=True,
**chat_template_kwargs)`, e.g. `enable_thinking: false` for Qwen3), so the policy sees prompts
the way it was trained to; the rendered text is tokenized without adding special tokens again.
A prompt longer than `batch.max_prompt_tokens` is dropped and counted, never truncated (a
truncated question has a different answer).

`scan` reads every row before anything is submitted, so a bad row (no prompt, a label that is
not text, an unknown verifier) stops the feeder with one line naming it, not halfway through
an epoch. It keeps only the row indices and prompt lengths, nothing of the rows: 12 bytes per row.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from payload.data import DataError
from payload.data.source import OpenDataset
from spec.job import DataColumns, JobConfig

_SCAN_BATCH = 1024


@dataclass(frozen=True)
class Prompt:
    row: int
    tokens_P: np.ndarray
    label: str
    verifier: str
    data_source: str


@dataclass
class Scan:
    kept: np.ndarray  # row indices (int64) whose prompt fits
    filtered: int  # rows dropped for being longer than max_prompt_tokens
    rows: int
    lengths: np.ndarray  # prompt tokens of every row (int32): 4 bytes a row


class PromptBuilder:
    @dataclass
    class Config:
        model_path: str
        columns: DataColumns
        max_prompt_tokens: int
        verifier: str = "math"
        system_prompt: str | None = None
        chat_template: bool = True
        chat_template_kwargs: dict | None = None

        @classmethod
        def of(cls, job: JobConfig) -> "PromptBuilder.Config":
            data = job.data
            if data is None:
                raise DataError("job.data is not set: name the training set (job.data.train)")
            return cls(model_path=job.model.path, columns=data.columns, max_prompt_tokens=job.batch.max_prompt_tokens,
                       verifier=data.verifier, system_prompt=data.system_prompt, chat_template=data.chat_template,
                       chat_template_kwargs=dict(data.chat_template_kwargs))

        def build(self) -> "PromptBuilder":
            return PromptBuilder(self)

    def __init__(self, config: Config) -> None:
        from payload.rewards.base import VerifierError, get_verifier

        self.config = config
        self._known_verifiers: set[str] = set()
        self._get_verifier, self._verifier_error = get_verifier, VerifierError
        self._check_verifier(config.verifier, "data.verifier")
        path = Path(config.model_path)
        self._hf = None
        if config.chat_template:
            from transformers import AutoTokenizer

            try:
                self._hf = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
            except (OSError, ValueError) as exc:
                raise DataError(f"model.path {path}: cannot load its tokenizer for the chat template: "
                                f"{str(exc).splitlines()[0]}") from None
            if not getattr(self._hf, "chat_template", None):
                raise DataError(f"model.path {path}: its tokenizer has no chat template; set data.chat_template: false "
                                "to send prompts as they are")
        else:
            from payload.rollout.tokenizer import load_tokenizer

            self._raw = load_tokenizer(path)

    def _check_verifier(self, name: str, where: str) -> None:
        if name in self._known_verifiers:
            return
        try:
            self._get_verifier(name)
        except self._verifier_error as exc:
            raise DataError(f"{where}: {exc}") from None
        self._known_verifiers.add(name)

    # -- one row ----------------------------------------------------------------------------

    def _columns(self, dataset: OpenDataset) -> list[str]:
        """The top-level columns the mapping reads; a name with dots that is no column itself is
        a path into a struct column (verl's `reward_model.ground_truth`)."""
        c = self.config.columns
        names = dataset.table.column_names
        self._paths: dict[str, tuple[str, ...]] = {}
        for name in (c.prompt or c.messages, c.label, *(x for x in (c.verifier, c.data_source) if x)):
            path = (name,) if name in names or "." not in name else tuple(name.split("."))
            if path[0] not in names:
                kind = "prompt column" if name == (c.prompt or c.messages) else "column"
                raise DataError(f"{dataset.path}: no {kind} {path[0]!r} "
                                f"(columns: {', '.join(names)}); set data.columns")
            self._paths[name] = path
        return list(dict.fromkeys(path[0] for path in self._paths.values()))

    def _get(self, dataset: OpenDataset, row: int, record: dict, name: str):
        path = self._paths[name]
        value = record[path[0]]
        for depth, key in enumerate(path[1:], start=1):
            if not isinstance(value, dict) or key not in value:
                held = f"fields {', '.join(value)}" if isinstance(value, dict) else f"a {type(value).__name__}"
                raise DataError(f"{dataset.where(row)}: column {name!r}: {'.'.join(path[:depth])!r} has no field "
                                f"{key!r} ({held})")
            value = value[key]
        return value

    def _text(self, dataset: OpenDataset, row: int, record: dict) -> str:
        c, where = self.config.columns, dataset.where(row)
        system = self.config.system_prompt
        if c.messages is not None:
            messages = self._get(dataset, row, record, c.messages)
            if not isinstance(messages, list) or not messages or not all(
                isinstance(m, dict) and isinstance(m.get("role"), str) and isinstance(m.get("content"), str)
                for m in messages
            ):
                raise DataError(f"{where}: column {c.messages!r} must be a non-empty list of "
                                "{role: str, content: str} messages")
            messages = [{"role": m["role"], "content": m["content"]} for m in messages]
            if system and messages[0]["role"] != "system":
                messages.insert(0, {"role": "system", "content": system})
        else:
            prompt = self._get(dataset, row, record, c.prompt)
            if not isinstance(prompt, str) or not prompt:
                got = "empty" if prompt == "" else f"a {type(prompt).__name__}"
                raise DataError(f"{where}: column {c.prompt!r} must be a non-empty string, got {got}")
            if self._hf is None:
                return f"{system}\n{prompt}" if system else prompt
            messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": prompt}]
        return self._hf.apply_chat_template(messages, tokenize=False, add_generation_prompt=True,
                                            **(self.config.chat_template_kwargs or {}))

    def _fields(self, dataset: OpenDataset, row: int, record: dict) -> tuple[str, str, str]:
        c, where = self.config.columns, dataset.where(row)
        label = self._get(dataset, row, record, c.label)
        if isinstance(label, bool) or not isinstance(label, (str, int, float)):
            raise DataError(f"{where}: column {c.label!r} must be a string or a number, got {type(label).__name__}")
        verifier = self.config.verifier
        row_verifier = self._get(dataset, row, record, c.verifier) if c.verifier is not None else None
        if row_verifier not in (None, ""):
            verifier = row_verifier
            if not isinstance(verifier, str):
                raise DataError(f"{where}: column {c.verifier!r} must be a verifier name, got {type(verifier).__name__}")
            self._check_verifier(verifier, f"{where}: column {c.verifier!r}")
        source = self._get(dataset, row, record, c.data_source) if c.data_source is not None else None
        return str(label), verifier, str(source) if source not in (None, "") else Path(dataset.path).stem

    def encode(self, texts: list[str]) -> list[list[int]]:
        if self._hf is not None:
            return self._hf(texts, add_special_tokens=False)["input_ids"]
        return [self._raw.encode(t) for t in texts]

    def prompt(self, dataset: OpenDataset, row: int) -> Prompt:
        if not hasattr(self, "_paths"):
            self._columns(dataset)
        record = dataset.table[int(row)]
        text = self._text(dataset, row, record)
        label, verifier, source = self._fields(dataset, row, record)
        return Prompt(int(row), np.asarray(self.encode([text])[0], dtype=np.int32), label, verifier, source)

    # -- every row --------------------------------------------------------------------------

    def scan(self, dataset: OpenDataset, limit: int | None = None, on_row=None) -> Scan:
        """Check every row (the first `limit`), keep those whose prompt fits max_prompt_tokens.
        `on_row(row, prompt_text, label, verifier)` sees every row (the data check's statistics)."""
        rows = len(dataset) if limit is None else min(limit, len(dataset))
        if rows == 0:
            raise DataError(f"{dataset.path}: no rows")
        columns = self._columns(dataset)
        table = dataset.table.select_columns(columns)
        lengths = np.empty(rows, dtype=np.int32)
        start = 0
        for batch in table.iter(batch_size=_SCAN_BATCH):
            count = min(len(batch[columns[0]]), rows - start)
            records = [{name: batch[name][i] for name in columns} for i in range(count)]
            texts = [self._text(dataset, start + i, r) for i, r in enumerate(records)]
            for i, r in enumerate(records):
                label, verifier, _ = self._fields(dataset, start + i, r)
                if on_row is not None:
                    on_row(start + i, texts[i], label, verifier)
            lengths[start:start + count] = [len(t) for t in self.encode(texts)]
            start += count
            if start >= rows:
                break
        kept_rows = np.flatnonzero(lengths <= self.config.max_prompt_tokens)
        if kept_rows.size == 0:
            raise DataError(f"{dataset.path}: all {rows} prompts are longer than batch.max_prompt_tokens "
                            f"{self.config.max_prompt_tokens} (the shortest has {int(lengths.min())} tokens)")
        return Scan(kept_rows, rows - kept_rows.size, rows, lengths)
