"""`python -m payload data check`: the feeder's reading of job.data before anything starts, with the
tokenizer only (no Redis); real files, a real tokenizer, the CLI's own entry point."""

import json
from pathlib import Path

import datasets
import pytest
import yaml

from data_helpers import make_tokenizer, write_jsonl
from payload.__main__ import main

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def chat_model(tmp_path_factory):
    return make_tokenizer(tmp_path_factory.mktemp("chat") / "model")


def write_job(directory: Path, model: Path, train, evaluation=None, **data) -> Path:
    job = {"model": {"path": str(model)}, "batch": {"max_prompt_tokens": 20, "max_response_tokens": 2},
           "data": {"train": str(train), "columns": {"prompt": "question", "label": "answer"},
                    "verifier": "exact_match", **data}}
    if evaluation is not None:
        job["data"]["eval"] = str(evaluation)
    path = directory / "job.yaml"
    path.write_text(yaml.safe_dump(job))
    return path


def gsm8k_rows(count: int) -> list[dict]:
    return [{"question": f"what is {i % 10} plus {i // 10} ?", "answer": f"Add them .\n#### {i % 10 + i // 10}"}
            for i in range(count)]


def test_gsm8k_style_report_counts_filters_duplicates_overlap_coverage_and_lengths(tmp_path, chat_model, capsys):
    rows = gsm8k_rows(12)
    rows[3]["answer"] = "3"  # the one label exact_match can match within 2 response tokens
    rows.append(dict(rows[5]))  # a duplicate prompt
    rows.append({"question": "what is " + "one plus " * 10 + "two ?", "answer": "3"})  # over 20 tokens
    train = write_jsonl(tmp_path / "train.jsonl", rows)
    evaluation = write_jsonl(tmp_path / "eval.jsonl", [rows[0], {"question": "what is two plus two ?", "answer": "4"}])
    job = write_job(tmp_path, chat_model, train, evaluation, system_prompt="be brief .")
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["data", "check", "--job-config", str(job), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    t, e = report["train"], report["eval"]
    assert (t["rows"], t["kept"], t["duplicates"]) == (14, 13, 1)
    assert t["filtered"] == {"prompt longer than batch.max_prompt_tokens 20": 1}
    # Labels: 12 worked solutions never match, "3" twice (row 4 and the long one) do.
    assert t["coverage"] == [2, 14] and t["solution_labels"] == 12
    assert t["uncovered_example"] == f"{train}: line 1: label 'Add them .\\n#### 0'"
    # Chat-templated prompts: 11 tokens of template and "be brief .", and the question (6 or 24).
    assert t["token_percentiles"]["p50"] == 17 and t["token_percentiles"]["max"] == 35
    assert (e["rows"], report["overlap"]) == (2, 1)
    assert any("eval: 1 of 2 eval prompts are also training prompts" in w for w in report["warnings"])
    assert any("12 labels are worked solutions ending '#### answer'" in w for w in report["warnings"])
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written
    # The console form says the same in lines.
    assert main(["data", "check", "--job-config", str(job)]) == 0
    text = capsys.readouterr().out
    assert f"train {train}: 14 rows, 13 kept, filtered: 1 prompt longer than batch.max_prompt_tokens 20" in text
    assert "eval prompts also in train: 1 of 2" in text


def test_the_environment_files_job_with_local_copies_and_a_save_to_disk_folder(tmp_path, chat_model, capsys):
    # environments/default.yaml's data section (columns problem/answer, math verifier) on local copies.
    table = datasets.Dataset.from_list([{"problem": f"what is {i} plus one ?", "answer": str(i + 1)} for i in range(6)])
    datasets.DatasetDict({"train": table.select(range(4)), "test": table.select(range(4, 6))}).save_to_disk(
        str(tmp_path / "saved"))
    table.select(range(4, 6)).to_parquet(str(tmp_path / "test.parquet"))
    code = main(["data", "check", "--env", "default", "--tokenizer", str(chat_model),
                 "--train", str(tmp_path / "saved"), "--eval", str(tmp_path / "test.parquet"), "--json"])
    out, err = capsys.readouterr()
    # A DatasetDict folder is recognised and needs its split named (the environment's train has none).
    assert code == 2 and err == f"error: {tmp_path / 'saved'}: a DatasetDict with splits train, test: set split\n"
    table.select(range(4)).save_to_disk(str(tmp_path / "single"))
    assert main(["data", "check", "--env", "default", "--tokenizer", str(chat_model), "--train",
                 str(tmp_path / "single"), "--eval", str(tmp_path / "test.parquet"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["train"]["rows"], report["eval"]["rows"], report["overlap"]) == (4, 2, 0)
    assert report["train"]["verifiers"] == {"math": 4} and report["train"]["coverage"] == [4, 4]


BROKEN = {
    "not_utf8.jsonl": (b'{"question": "what is one ?", "answer": "1"}\n{"question": "caf\xe9", "answer": "1"}\n',
                       "line 2: not UTF-8 (byte 0xe9 at column 18); re-encode the file as UTF-8"),
    "bad_json.jsonl": (b'{"question": "what is one ?", "answer": "1"}\n\n{"question": what}\n',
                       "line 3: not valid JSON (Expecting value at column 14)"),
    "empty.jsonl": (b"", "empty file (no rows)"),
    "no_column.jsonl": (b'{"prompt": "what is one ?", "answer": "1"}\n',
                        "no prompt column 'question' (columns: prompt, answer); set data.columns"),
    "null_label.jsonl": (b'{"question": "what is one ?", "answer": "1"}\n{"question": "what is two ?", "answer": null}\n',
                         "line 2: column 'answer' must be a string or a number, got NoneType"),
    "no_suffix": (b"question,answer\nwhat is one ?,1\n",
                  "unknown format '(no suffix)': expected .parquet, .pq, .jsonl, .json, .ndjson or a save_to_disk directory"),
    "empty.parquet": (None, "empty Parquet file (0 rows; columns: question, answer)"),
    "folder": (None, "a directory that is not a Hugging Face save_to_disk dataset (no dataset_dict.json or state.json)"),
    "missing.jsonl": (None, "no such file or directory"),
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_a_broken_file_is_one_line_exit_2_and_nothing_written(tmp_path, chat_model, capsys, name):
    content, message = BROKEN[name]
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    elif name == "empty.parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.table({"question": pa.array([], pa.string()), "answer": pa.array([], pa.string())}), path)
    elif name == "folder":
        path.mkdir()
        write_jsonl(path / "train.jsonl", [{"question": "what is one ?", "answer": "1"}])
    job = write_job(tmp_path, chat_model, path)
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    assert main(["data", "check", "--job-config", str(job)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"error: {path}: {message}\n"
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before


def test_what_is_known_without_reading_a_file_is_refused_with_the_job(tmp_path, chat_model, capsys):
    (tmp_path / "train.csv").write_text("question,answer\nwhat is one ?,1\n")
    job = write_job(tmp_path, chat_model, tmp_path / "train.csv")
    assert main(["data", "check", "--job-config", str(job)]) == 2
    assert capsys.readouterr().err == (f"error: {job}: job.data.train.path: {tmp_path / 'train.csv'}: unsupported file "
                                       "type '.csv': expected .parquet, .pq, .jsonl, .json, .ndjson or a save_to_disk "
                                       "directory\n")
    job = write_job(tmp_path, chat_model, tmp_path / "train.jsonl", verifier="judge")
    assert main(["data", "check", "--job-config", str(job)]) == 2
    assert capsys.readouterr().err == f"error: {job}: job.data.verifier: verifier 'judge': not one of code, exact_match, math\n"
