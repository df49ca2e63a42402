"""docs/datasets.md's examples, as written: each file it shows is written (a JSON Lines block
as it stands, a Python block run in a fresh folder), and its job YAML goes through
`python -m payload data check` on those files with a real chat-template tokenizer."""

import json
import re
import subprocess
import sys

import pytest
import yaml

from data_helpers import make_tokenizer
from payload.__main__ import main
from tests.infra.environments import REPO

DOC = REPO / "docs" / "datasets.md"
FSX_DATASETS = "/fsx/datasets/"
BLOCK = re.compile(r"^```(\w+) (\S+)\n(.*?)^```$", re.S | re.M)


def examples() -> dict[str, list[tuple[str, str, str]]]:
    """Each `## ` section's fenced blocks that name a file: (language, name, text)."""
    found = {}
    for section in DOC.read_text(encoding="utf-8").split("\n## ")[1:]:
        title = section.splitlines()[0]
        found[title] = BLOCK.findall(section)
    return found


@pytest.fixture(scope="module")
def chat_model(tmp_path_factory):
    return make_tokenizer(tmp_path_factory.mktemp("chat") / "model")


def test_the_doc_shows_the_four_shapes():
    assert list(examples()) == ["GSM8K as published (JSON Lines)", "verl's preprocessed Parquet",
                                "Chat messages (JSON Lines)", "A `save_to_disk` folder with splits"]


@pytest.mark.parametrize("title", list(examples()))
def test_each_example_passes_the_data_check(title, tmp_path, chat_model, capsys):
    job = None
    for language, name, text in examples()[title]:
        if language == "jsonl":
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).write_text(text, encoding="utf-8")
        elif language == "python":
            done = subprocess.run([sys.executable, "-c", text], cwd=tmp_path, capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, done.stderr
            assert (tmp_path / name).exists(), f"the {name} snippet wrote no {name}"
        else:
            assert (language, name) == ("yaml", "job.yaml")
            job = yaml.safe_load(text)
    data = job["data"]
    local = {}
    for role in ("train", "eval"):
        source = data.get(role)
        if source is None:
            continue
        path = source if isinstance(source, str) else source["path"]
        assert path.startswith(FSX_DATASETS), path  # where the bucket's datasets/ appears on every pod
        local[role] = tmp_path / path.removeprefix(FSX_DATASETS)
        assert local[role].exists(), f"{role}: the example writes no {local[role].relative_to(tmp_path)}"
    job_file = tmp_path / "job.yaml"
    job_file.write_text(yaml.safe_dump(job))
    argv = ["data", "check", "--job-config", str(job_file), "--tokenizer", str(chat_model), "--json",
            "--train", str(local["train"])] + (["--eval", str(local["eval"])] if "eval" in local else [])
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads(out)
    for role in local:
        s = report[role]
        assert s["rows"] >= 1 and s["kept"] == s["rows"] and s["duplicates"] == 0, s
        # Every label can score 1 under its verifier (math-verify parses it; exact_match fits).
        assert s["coverage"] == [s["rows"], s["rows"]], s
    assert report["warnings"] == [] and report["overlap"] == 0
    if title.startswith("verl"):
        assert report["train"]["verifiers"] == {"math": 2}
    if title.startswith("Chat"):
        assert report["train"]["verifiers"] == {"exact_match": 1, "math": 1}
