"""`python -m payload local` on a user's data: the cluster's data section as it is (columns, nested
label paths, split, verifier, system prompt), checked before anything starts. No loop is run here
(test_local_demo runs it): these read the job the launcher writes for its processes."""

import json
from pathlib import Path

import datasets
import pytest
import yaml

from estimate.checks import load_environment
from payload.__main__ import main
from payload.local.launcher import Launcher, LocalError

PATH_FIELDS = {"train", "eval", "total_steps", "epochs", "seed", "chat_template"}


def verl_style(directory: Path) -> tuple[Path, Path]:
    rows = [{"question": f"{a}+{b}=", "reward_model": {"ground_truth": str(a + b)}, "data_source": "sums"}
            for a in range(5) for b in range(5)]
    datasets.DatasetDict({"train": datasets.Dataset.from_list(rows[5:]),
                          "test": datasets.Dataset.from_list(rows[:5])}).save_to_disk(str(directory / "saved"))
    return directory / "saved", directory / "saved"


def test_the_job_files_data_section_is_used_as_it_is(tmp_path, capsys):
    train, evaluation = verl_style(tmp_path)
    section = {"train": {"path": str(train), "split": "train"}, "eval": {"path": str(evaluation), "split": "test"},
               "columns": {"prompt": "question", "label": "reward_model.ground_truth", "data_source": "data_source"},
               "verifier": "exact_match", "shuffle": False, "epochs": 2}
    (tmp_path / "job.yaml").write_text(yaml.safe_dump({"data": section}))
    launcher = Launcher.Config(job_config=str(tmp_path / "job.yaml"), output=str(tmp_path / "run"), steps=7).build()
    lines = launcher.prepare()
    assert lines[0] == f"train {train}: 20 rows, 20 kept, filtered: none"
    assert "eval prompts also in train: 0 of 5" in lines
    assert lines[-1].startswith("note: the generated toy model reads only the characters 0-9 + =")
    assert not (tmp_path / "run").exists()  # checked, nothing written yet
    job = launcher.job(tmp_path / "model", 64, toy=True)
    data = job.data.model_dump(mode="json")
    assert {k: v for k, v in data.items() if k not in PATH_FIELDS} == {
        k: v for k, v in job.data.model_validate(section).model_dump(mode="json").items() if k not in PATH_FIELDS}
    assert (data["train"], data["eval"]) == (section["train"], section["eval"])
    # One machine's sizes: the run's steps instead of epochs; the toy model's one-token answers.
    assert (data["total_steps"], data["epochs"], job.batch.max_response_tokens) == (7, None, 1)


def test_the_environment_files_section_with_local_copies(tmp_path):
    table = datasets.Dataset.from_list([{"problem": f"{i}+1=", "answer": str(i + 1)} for i in range(8)])
    table.to_parquet(str(tmp_path / "train.parquet"))
    table.select(range(2)).to_json(str(tmp_path / "test.jsonl"))
    launcher = Launcher.Config(env="default", data=str(tmp_path / "train.parquet"),
                               eval_data=str(tmp_path / "test.jsonl"), output=str(tmp_path / "run")).build()
    # The environment's system prompt alone is longer than the toy model's context: it says so.
    with pytest.raises(LocalError) as error:
        launcher.prepare()
    assert str(error.value) == (f"{tmp_path / 'train.parquet'}: all 8 prompts are longer than "
                                "batch.max_prompt_tokens 63 (the shortest has 75 tokens) (the generated toy model's "
                                "limit: a 64-character context; pass --model for your own data)")
    assert not (tmp_path / "run").exists()
    on_cluster = load_environment("default").job.data
    here = launcher.job(tmp_path / "model", 64, toy=True).data
    assert (here.columns, here.verifier, here.system_prompt, here.chat_template_kwargs) == (
        on_cluster.columns, on_cluster.verifier, on_cluster.system_prompt, on_cluster.chat_template_kwargs)
    assert here.train.path == str(tmp_path / "train.parquet")


@pytest.mark.parametrize("content, message", [
    (b'{"q": "1+1=", "a": "2"}\n{"q": "caf\xe9", "a": "1"}\n', "line 2: not UTF-8 (byte 0xe9 at column 11)"),
    (b'{"q": "' + b"1+" * 40 + b'", "a": "1"}\n',
     "all 1 prompts are longer than batch.max_prompt_tokens 63 (the shortest has 80 tokens) (the generated toy "
     "model's limit: a 64-character context; pass --model for your own data)"),
])
def test_bad_data_is_one_line_before_anything_is_written(tmp_path, capsys, content, message):
    (tmp_path / "train.jsonl").write_bytes(content)
    job = tmp_path / "job.yaml"
    job.write_text(yaml.safe_dump({"data": {"train": str(tmp_path / "train.jsonl"), "verifier": "exact_match",
                                            "columns": {"prompt": "q", "label": "a"}}}))
    assert main(["local", "--job-config", str(job), "--output", str(tmp_path / "run"), "--no-progress"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"error: {tmp_path / 'train.jsonl'}: {message}") and err.count("\n") == 1
    assert not (tmp_path / "run").exists()


def test_chat_data_needs_a_model_with_a_chat_template(tmp_path, capsys):
    (tmp_path / "train.jsonl").write_text(json.dumps({"messages": [{"role": "user", "content": "1+1="}], "a": "2"}))
    job = tmp_path / "job.yaml"
    job.write_text(yaml.safe_dump({"data": {"train": str(tmp_path / "train.jsonl"), "verifier": "exact_match",
                                            "columns": {"messages": "messages", "label": "a"}}}))
    assert main(["local", "--job-config", str(job), "--output", str(tmp_path / "run"), "--no-progress"]) == 2
    assert capsys.readouterr().err == ("error: data.columns.messages 'messages': the generated toy model has no chat "
                                       "template; pass --model with a chat-template checkpoint for chat data\n")


def test_a_run_whose_first_steps_all_score_zero_warns():
    from payload.local.report import ZERO_REWARD_STEPS, zero_reward_warning

    zeros = [{"mean_reward": 0.0}] * ZERO_REWARD_STEPS
    assert zero_reward_warning(zeros[:-1]) is None  # too early to say
    assert zero_reward_warning(zeros[:-1] + [{"mean_reward": 0.125}]) is None
    warning = zero_reward_warning(zeros + [{"mean_reward": 0.5}])
    assert warning.startswith(f"mean reward 0 on each of the first {ZERO_REWARD_STEPS} steps")


def test_the_plot_shows_the_held_out_eval_at_the_steps_it_ran(tmp_path):
    from payload.local.report import reward_figure, write_plot

    records = [{"step": s, "mean_reward": s / 10, "tokens_per_s": 5.0} for s in range(1, 6)]
    evals = [{"step": 0, "mean_reward": 0.2}, {"step": 5, "mean_reward": 0.6}]
    reward_ax = reward_figure(records, evals).axes[0]
    (line,) = [line for line in reward_ax.get_lines() if line.get_label() == "held-out eval"]
    assert list(line.get_xdata()) == [0, 5] and list(line.get_ydata()) == [0.2, 0.6]
    assert write_plot(records, tmp_path / "reward.png", evals).stat().st_size > 10_000
    # The generated problems' shortcut (the best held-out reward without comparing the digits).
    shortcut_ax = reward_figure(records, evals, eval_shortcut=0.6).axes[0]
    (line,) = [line for line in shortcut_ax.get_lines() if line.get_label() == "held-out: best without comparing"]
    assert list(line.get_ydata()) == [0.6, 0.6]
