"""The data check: what the feeder and the evaluator would make of `job.data`, before anything starts.

    report = check_data(job, cache_dir)      # DataError (one line) on a file the job cannot use
    print("\n".join(report.lines()))

Reads every row of the training and eval sets through the feeder's own code (source.py,
prompts.py: the same formats, column mapping, chat template and length filter), with the model's
tokenizer only: no Redis, no GPU, no engine. Reports per set: rows, rows kept and filtered by
reason, duplicate prompts, label coverage for the verifier and prompt-token percentiles; and
eval prompts that are also in the training set. Duplicates and overlap are found by a 64-bit
hash of the rendered prompt (8 bytes a row; a 1M-row set costs 8 MB).

Label coverage is whether a row's label can ever score 1: `exact_match` needs a non-empty label
no longer than `batch.max_response_tokens` (a GSM8K "... #### 72" solution text never matches);
`math` needs a label math-verify can parse (checked on the first COVERAGE_ROWS rows: a parse
costs ~1 ms). Other verifiers are reported as not measured.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from payload.data.prompts import PromptBuilder
from payload.data.source import OpenDataset, open_dataset
from spec.job import DataSource, JobConfig

COVERAGE_ROWS = 2000
PERCENTILES = (50, 90, 99)


@dataclass
class SetReport:
    role: str  # "train" or "eval"
    path: str
    rows: int
    kept: int
    filtered: dict[str, int]  # reason -> rows
    duplicates: int  # rows whose rendered prompt an earlier row already had
    coverage: tuple[int, int] | None  # (labels that can score 1, labels looked at); None: not measured
    uncovered_example: str | None
    solution_labels: int  # exact_match labels holding a GSM8K-style worked solution ("... #### 72")
    verifiers: dict[str, int]
    token_percentiles: dict[str, int]


@dataclass
class DataReport:
    train: SetReport
    eval: SetReport | None
    overlap: int  # eval rows whose prompt is also a training prompt
    warnings: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = []
        for s in (self.train, self.eval):
            if s is None:
                continue
            filtered = ", ".join(f"{n} {reason}" for reason, n in s.filtered.items() if n) or "none"
            cov = "not measured" if s.coverage is None else f"{s.coverage[0]}/{s.coverage[1]}"
            tokens = " ".join(f"{k}={v}" for k, v in s.token_percentiles.items())
            verifiers = ", ".join(f"{name} {n}" for name, n in s.verifiers.items())
            out += [f"{s.role} {s.path}: {s.rows} rows, {s.kept} kept, filtered: {filtered}",
                    f"  duplicate prompts {s.duplicates}; verifiers: {verifiers}; labels that can score 1: {cov}",
                    f"  prompt tokens {tokens}"]
        if self.eval is not None:
            out.append(f"eval prompts also in train: {self.overlap} of {self.eval.rows}")
        out += [f"warning: {w}" for w in self.warnings]
        return out

    def as_dict(self) -> dict:
        from dataclasses import asdict

        return asdict(self)


class _Collector:
    """Per-row statistics a scan feeds: prompt hashes, verifiers, label coverage."""

    def __init__(self, prompts: PromptBuilder, dataset: OpenDataset, rows: int, max_response_tokens: int) -> None:
        self.prompts, self.dataset, self.max_response_tokens = prompts, dataset, max_response_tokens
        self.digests = np.empty(rows, dtype=np.uint64)
        self.verifiers: Counter[str] = Counter()
        self.covered = self.looked = self.solutions = 0
        self.measured = True
        self.uncovered_example: str | None = None

    def __call__(self, row: int, text: str, label: str, verifier: str) -> None:
        import xxhash

        self.digests[row] = xxhash.xxh3_64_intdigest(text.encode())
        self.verifiers[verifier] += 1
        if verifier == "exact_match" and "####" in label:
            self.solutions += 1
        if self.looked >= COVERAGE_ROWS and verifier == "math":
            return
        ok = self._can_score(label, verifier)
        if ok is None:
            self.measured = False
            return
        self.looked += 1
        self.covered += ok
        if not ok and self.uncovered_example is None:
            self.uncovered_example = f"{self.dataset.where(row)}: label {label[:60]!r}"

    def _can_score(self, label: str, verifier: str) -> bool | None:
        if verifier == "exact_match":
            text = label.strip()
            return bool(text) and len(self.prompts.encode([text])[0]) <= self.max_response_tokens
        if verifier == "math":
            from math_verify import parse

            from payload.rewards.math import cap_math_verify_logs

            cap_math_verify_logs()  # a label that times out is logged clipped, not whole
            return bool(parse(label if "$" in label else f"${label}$", parsing_timeout=5))
        return None


def _check_set(role: str, source: DataSource, job: JobConfig, prompts: PromptBuilder, cache_dir,
               limit: int | None = None) -> tuple[SetReport, np.ndarray]:
    dataset = open_dataset(source, cache_dir)
    rows = len(dataset) if limit is None else min(limit, len(dataset))
    collect = _Collector(prompts, dataset, rows, job.batch.max_response_tokens)
    scan = prompts.scan(dataset, limit=rows, on_row=collect)
    digests = collect.digests[:scan.rows]
    duplicates = scan.rows - len(np.unique(digests))
    coverage = (collect.covered, collect.looked) if collect.measured and collect.looked else None
    percentiles = {f"p{p}": int(np.percentile(scan.lengths, p)) for p in PERCENTILES} | {"max": int(scan.lengths.max())}
    reason = f"prompt longer than batch.max_prompt_tokens {job.batch.max_prompt_tokens}"
    report = SetReport(role, dataset.path, scan.rows, int(scan.kept.size), {reason: scan.filtered}, duplicates,
                       coverage, collect.uncovered_example, collect.solutions, dict(collect.verifiers), percentiles)
    return report, digests[scan.kept]


def check_data(job: JobConfig, cache_dir) -> DataReport:
    """Every row of job.data's sets through the feeder's code; DataError on a file it cannot use."""
    prompts = PromptBuilder.Config.of(job).build()
    data = job.data
    train, train_digests = _check_set("train", data.train, job, prompts, cache_dir)
    evaluation, overlap = None, 0
    if data.eval is not None:
        evaluation, eval_digests = _check_set("eval", data.eval, job, prompts, cache_dir, job.eval.max_prompts)
        overlap = int(np.isin(eval_digests, train_digests).sum())
    report = DataReport(train, evaluation, overlap)
    for s in (train, evaluation):
        if s is None:
            continue
        if s.duplicates:
            report.warnings.append(f"{s.role}: {s.duplicates} rows repeat an earlier row's prompt")
        if s.coverage is not None and s.coverage[0] < s.coverage[1]:
            report.warnings.append(f"{s.role}: {s.coverage[1] - s.coverage[0]} of {s.coverage[1]} labels can never "
                                   f"score 1 (first: {s.uncovered_example})")
        if s.solution_labels:
            report.warnings.append(f"{s.role}: {s.solution_labels} labels are worked solutions ending '#### answer' "
                                   "(GSM8K's answer column): exact_match compares the whole text; use verifier: math "
                                   "or put the final answer in its own column")
        if s.filtered and any(s.filtered.values()):
            report.warnings.append(f"{s.role}: {sum(s.filtered.values())} of {s.rows} rows filtered "
                                   f"({', '.join(s.filtered)})")
    if overlap:
        report.warnings.append(f"eval: {overlap} of {evaluation.kept} eval prompts are also training prompts "
                               "(the eval measures memorisation, not generalisation)")
    return report
