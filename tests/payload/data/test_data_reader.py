"""Reading a prompt dataset: the three formats, the chat template, the length filter, bad input.

Real files written with Hugging Face `datasets` and pyarrow, and a real tokenizer with a chat
template made here; every bad input is the one-line DataError naming the file, column or row.
"""

import datasets
import numpy as np
import pytest

from data_helpers import make_tokenizer, write_jsonl
from payload.data import DataError
from payload.data.plan import FeedPlan
from payload.data.prompts import PromptBuilder
from payload.data.source import open_dataset
from spec.job import DataColumns, DataSource

@pytest.fixture
def tokenizer_dir(tmp_path):
    return make_tokenizer(tmp_path / "model")


ROWS = [{"question": f"what is {a} plus {b} ?", "answer": str(a + b), "source": "add" if a < 2 else "sum"}
        for a in range(4) for b in range(3)]


def builder(model_dir, columns=None, **options):
    config = dict(model_path=str(model_dir), columns=columns or DataColumns(prompt="question"), max_prompt_tokens=64,
                  verifier="exact_match")
    return PromptBuilder.Config(**(config | options)).build()


def test_parquet_jsonl_and_save_to_disk_read_the_same_rows_memory_mapped(tmp_path):
    table = datasets.Dataset.from_list(ROWS)
    table.to_parquet(str(tmp_path / "train.parquet"))
    write_jsonl(tmp_path / "train.jsonl", ROWS)
    table.save_to_disk(str(tmp_path / "single"))
    datasets.DatasetDict({"train": table, "test": table.select(range(3))}).save_to_disk(str(tmp_path / "dict"))
    cache = tmp_path / "cache"
    opened = [open_dataset(DataSource(path=str(tmp_path / name)), cache)
              for name in ("train.parquet", "train.jsonl", "single")]
    opened.append(open_dataset(DataSource(path=str(tmp_path / "dict"), split="test"), cache))
    for dataset in opened[:3]:
        assert len(dataset) == len(ROWS) and dataset.table[5] == ROWS[5]
        # Backed by an Arrow file on disk, not loaded into memory.
        assert dataset.table.cache_files and all(f["filename"].endswith(".arrow") for f in dataset.table.cache_files)
    assert len(opened[3]) == 3
    # Fingerprints follow the content: the same bytes again, the same fingerprint; other bytes, another.
    again = open_dataset(DataSource(path=str(tmp_path / "train.jsonl")), tmp_path / "cache2")
    assert again.fingerprint == opened[1].fingerprint
    write_jsonl(tmp_path / "other.jsonl", ROWS[:-1])
    assert open_dataset(DataSource(path=str(tmp_path / "other.jsonl")), cache).fingerprint != opened[1].fingerprint


def test_chat_template_of_the_models_tokenizer_with_its_options(tmp_path, tokenizer_dir):
    from transformers import AutoTokenizer

    dataset = open_dataset(DataSource(path=str(write_jsonl(tmp_path / "t.jsonl", ROWS))), tmp_path / "cache")
    prompts = builder(tokenizer_dir, system_prompt="be brief .", chat_template_kwargs={"enable_thinking": False})
    prompt = prompts.prompt(dataset, 7)
    tokenizer = AutoTokenizer.from_pretrained(str(tokenizer_dir))
    text = tokenizer.decode(prompt.tokens_P.tolist())
    assert text == ("<|im_start|> system be brief . <|im_end|> <|im_start|> user what is 2 plus 1 ? <|im_end|> "
                    "<|im_start|> assistant <think> </think>")
    assert (prompt.label, prompt.verifier, prompt.data_source, prompt.row) == ("3", "exact_match", "t", 7)
    # Thinking left on: no closed think block, the model opens its own.
    thinking = builder(tokenizer_dir).prompt(dataset, 7)
    assert tokenizer.decode(thinking.tokens_P.tolist()).endswith("<|im_start|> assistant")


def test_messages_column_and_per_row_verifier_and_source(tmp_path, tokenizer_dir):
    rows = [{"messages": [{"role": "user", "content": "what is one plus two ?"}], "answer": 3, "check": "math",
             "origin": "gsm8k"}]
    dataset = open_dataset(DataSource(path=str(write_jsonl(tmp_path / "m.jsonl", rows))), tmp_path / "cache")
    columns = DataColumns(messages="messages", verifier="check", data_source="origin")
    prompt = builder(tokenizer_dir, columns).prompt(dataset, 0)
    assert prompt.tokens_P.tolist()[:2] == [2, 7]  # <|im_start|> user
    assert (prompt.label, prompt.verifier, prompt.data_source) == ("3", "math", "gsm8k")


def test_raw_prompts_and_the_length_filter_is_counted(tmp_path):
    model = make_tokenizer(tmp_path / "model", chat_template=None)
    rows = [{"question": "what is one plus two ?" + " ?" * k, "answer": "3"} for k in range(6)]
    dataset = open_dataset(DataSource(path=str(write_jsonl(tmp_path / "r.jsonl", rows))), tmp_path / "cache")
    prompts = builder(model, chat_template=False, max_prompt_tokens=8)
    scan = prompts.scan(dataset)
    # 6 tokens + k question marks: k = 0, 1, 2 fit in 8.
    assert scan.kept.tolist() == [0, 1, 2] and scan.filtered == 3 and scan.rows == 6
    assert prompts.prompt(dataset, 0).tokens_P.tolist() == [9, 10, 11, 12, 13, 14]


def test_plan_is_deterministic_and_covers_every_kept_row_each_epoch():
    plan = FeedPlan("fp", np.array([0, 2, 3, 5, 8]), passes=3, shuffle=True, seed=4)
    order = [plan.at(p) for p in range(plan.total)]
    assert order == [FeedPlan("fp", np.array([0, 2, 3, 5, 8]), passes=3, seed=4).at(p) for p in range(15)]
    for epoch in range(3):
        assert sorted(row for e, row in order if e == epoch) == [0, 2, 3, 5, 8]
    assert [row for e, row in order if e == 0] != [row for e, row in order if e == 1]  # reshuffled per epoch
    assert plan.task_id(1, 5) == "fp-e1-r5"
    assert FeedPlan("fp", np.array([0, 2]), seed=4).fingerprint != FeedPlan("fp", np.array([0, 3]), seed=4).fingerprint


@pytest.mark.parametrize("content, columns, message", [
    ("", None, "r.jsonl: empty file (no rows)"),
    ('{"question": "what is one ?", "answer": "1"}\n{"question": oops}\n', None,
     "r.jsonl: line 2: not valid JSON (Expecting value at column 14)"),
    ('{"question": "what is one ?", "answer": "1"}\n{"question": "one", "answer": "1"', None,
     "r.jsonl: line 2: not valid JSON (Expecting ',' delimiter at column 34)"),
    ('{"question": "what is one ?", "answer": "1"}\n[1, 2]\n', None,
     "r.jsonl: line 2: a JSON list, expected an object"),
    ("\n\n", None, "r.jsonl: empty file (only blank lines, no rows)"),
    # Blank lines hold no row: the line named is the one an editor shows.
    ('{"question": "what is one ?", "answer": "1"}\n\n{"question": "", "answer": "1"}\n', None,
     "r.jsonl: line 3: column 'question' must be a non-empty string, got empty"),
    ('{"prompt": "what is one ?", "answer": "1"}\n', None, "r.jsonl: no prompt column 'question' (columns: prompt, answer)"),
    ('{"question": "what is one ?", "label": "1"}\n', None, "r.jsonl: no column 'answer' (columns: question, label)"),
    ('{"question": "what is one ?", "answer": "1"}\n{"question": 7, "answer": "1"}\n', None,
     "r.jsonl: line 2: column 'question' must be a non-empty string, got a int"),
    ('{"question": "what is one ?", "answer": null}\n', None, "r.jsonl: line 1: column 'answer' must be a string or a number"),
    ('{"question": "what is one ?", "answer": "1", "check": "nope"}\n', DataColumns(prompt="question", verifier="check"),
     "r.jsonl: line 1: column 'check': verifier 'nope': not one of"),
    ('{"question": "what is one plus two ? ? ? ? ?", "answer": "3"}\n', None,
     "r.jsonl: all 1 prompts are longer than batch.max_prompt_tokens 8 (the shortest has 10 tokens)"),
])
def test_bad_input_is_one_line_naming_file_column_or_row(tmp_path, content, columns, message):
    model = make_tokenizer(tmp_path / "model", chat_template=None)
    path = tmp_path / "r.jsonl"
    path.write_text(content)
    with pytest.raises(DataError) as error:
        dataset = open_dataset(DataSource(path=str(path)), tmp_path / "cache")
        builder(model, columns, chat_template=False, max_prompt_tokens=8).scan(dataset)
    text = str(error.value)
    assert message in text and "\n" not in text, text


def test_non_utf8_byte_names_its_line(tmp_path):
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'{"question": "what is one ?", "answer": "1"}\n{"question": "caf\xe9", "answer": "2"}\n')
    with pytest.raises(DataError) as error:
        open_dataset(DataSource(path=str(path)), tmp_path / "cache")
    assert str(error.value) == f"{path}: line 2: not UTF-8 (byte 0xe9 at column 18); re-encode the file as UTF-8"


def test_parquet_that_is_empty_or_not_parquet(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"question": pa.array([], pa.string()), "answer": pa.array([], pa.string())}),
                   tmp_path / "empty.parquet")
    with pytest.raises(DataError) as error:
        open_dataset(DataSource(path=str(tmp_path / "empty.parquet")), tmp_path / "cache")
    assert str(error.value) == f"{tmp_path / 'empty.parquet'}: empty Parquet file (0 rows; columns: question, answer)"
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(DataError, match=r"bad.parquet: not valid Parquet: "):
        open_dataset(DataSource(path=str(tmp_path / "bad.parquet")), tmp_path / "cache")


def test_nested_label_path_and_chat_prompt_of_verl_style_parquet(tmp_path, tokenizer_dir):
    rows = [{"data_source": "openai/gsm8k", "prompt": [{"role": "user", "content": "what is one plus two ?"}],
             "reward_model": {"style": "rule", "ground_truth": "3"}, "extra_info": {"index": 0}}]
    datasets.Dataset.from_list(rows).to_parquet(str(tmp_path / "verl.parquet"))
    dataset = open_dataset(DataSource(path=str(tmp_path / "verl.parquet")), tmp_path / "cache")
    columns = DataColumns(messages="prompt", label="reward_model.ground_truth", data_source="data_source")
    prompts = builder(tokenizer_dir, columns, verifier="math")
    assert prompts.scan(dataset).kept.tolist() == [0]
    prompt = prompts.prompt(dataset, 0)
    assert (prompt.label, prompt.data_source) == ("3", "openai/gsm8k")
    with pytest.raises(DataError) as error:
        builder(tokenizer_dir, DataColumns(messages="prompt", label="reward_model.answer")).scan(dataset)
    assert str(error.value) == (f"{tmp_path / 'verl.parquet'}: row 1: column 'reward_model.answer': 'reward_model' "
                                "has no field 'answer' (fields style, ground_truth)")
    with pytest.raises(DataError, match=r"no column 'reward' \(columns: data_source, prompt, reward_model, extra_info\)"):
        builder(tokenizer_dir, DataColumns(messages="prompt", label="reward.ground_truth")).scan(dataset)


def test_bad_paths_and_settings(tmp_path, tokenizer_dir):
    with pytest.raises(DataError, match="nothing.jsonl: no such file"):
        open_dataset(DataSource(path=str(tmp_path / "nothing.jsonl")), tmp_path)
    # A file type the job section refuses (make manifests), and a file with no suffix at all.
    with pytest.raises(ValueError, match=r"data.csv: unsupported file type '.csv': expected .parquet, .pq, .jsonl"):
        DataSource(path=str(tmp_path / "data.csv"))
    (tmp_path / "data").write_text("a,b\n")
    with pytest.raises(DataError, match=r"data: unknown format '\(no suffix\)'"):
        open_dataset(DataSource(path=str(tmp_path / "data")), tmp_path)
    datasets.DatasetDict({"train": datasets.Dataset.from_list(ROWS)}).save_to_disk(str(tmp_path / "dict"))
    with pytest.raises(DataError, match="a DatasetDict with splits train: set split"):
        open_dataset(DataSource(path=str(tmp_path / "dict")), tmp_path)
    with pytest.raises(DataError, match=r"no split 'test' \(splits: train\)"):
        open_dataset(DataSource(path=str(tmp_path / "dict"), split="test"), tmp_path)
    plain = make_tokenizer(tmp_path / "plain", chat_template=None)
    with pytest.raises(DataError, match="its tokenizer has no chat template; set data.chat_template: false"):
        builder(plain)
    with pytest.raises(DataError, match="data.verifier: verifier 'judge': not one of"):
        builder(tokenizer_dir, verifier="judge")
