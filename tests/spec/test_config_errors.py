"""A mistake in an environment or job file comes back as one line that names it: the key an unknown
key was probably meant to be, a YAML syntax error's line and column, every schema error at once,
and what to do instead of a Hub id or an unknown model folder."""

import copy

import pytest
import yaml

from estimate.checks import load_environment, parse_environment
from payload.__main__ import main
from spec.environment import ENVIRONMENTS_DIR, EnvironmentFileError
from spec.job import JobConfigError, load_job_config, parse_job_config

DEFAULT_TEXT = (ENVIRONMENTS_DIR / "default.yaml").read_text()
DEFAULT = yaml.safe_load(DEFAULT_TEXT)


def rejected(change) -> str:
    data = copy.deepcopy(DEFAULT)
    change(data)
    with pytest.raises(EnvironmentFileError) as error:
        parse_environment(data, "default.yaml")
    message = str(error.value)
    assert "\n" not in message
    return message


def renamed(data: dict, section: dict, old: str, new: str) -> None:
    section[new] = section.pop(old)


def test_a_misspelt_key_names_the_key_it_was_meant_to_be():
    # One mistake, one error: not also "availability_zone: required field is missing".
    assert rejected(lambda d: renamed(d, d, "availability_zone", "availabilty_zone")) == (
        "default.yaml: unknown key 'availabilty_zone' at the top level: did you mean 'availability_zone'?")
    assert rejected(lambda d: renamed(d, d["pools"]["train"], "max_size", "max_sise")) == (
        "default.yaml: unknown key 'max_sise' in pools.train: did you mean 'max_size'?")


def test_unknown_keys_inside_jobs_lists_and_mappings_are_placed():
    assert rejected(lambda d: renamed(d, d["job"], "model", "modle")) == (
        "default.yaml: unknown key 'modle' in job: did you mean 'model'?")
    assert rejected(lambda d: d["pools"]["train"]["taints"][0].update(efect="NoSchedule")) == (
        "default.yaml: unknown key 'efect' in pools.train.taints.0: did you mean 'effect'?")
    assert rejected(lambda d: d["job"].update(rewards={"sources": {"gsm8k": {"verifer": 1.0}}})) == (
        "default.yaml: unknown key 'verifer' in job.rewards.sources.gsm8k: did you mean 'verifier'?")


def test_every_schema_error_is_listed():
    def two_mistakes(d):
        d.pop("region")
        d["pools"]["rollout"]["efaa"] = True

    message = rejected(two_mistakes)
    assert message == ("default.yaml: region: required field is missing; "
                       "unknown key 'efaa' in pools.rollout: did you mean 'efa'?")
    assert "more)" not in message


def test_a_job_file_names_its_mistakes_the_same_way():
    with pytest.raises(JobConfigError) as error:
        parse_job_config({"batch": {"prompts_per_stp": 8}, "eval": {"interval_steps": "often"}}, "job.yaml")
    assert str(error.value) == ("job.yaml: unknown key 'prompts_per_stp' in job.batch: did you mean 'prompts_per_step'?; "
                                "job.eval.interval_steps: Input should be a valid integer, unable to parse string as an integer")


def test_a_yaml_syntax_error_names_its_line_and_column(tmp_path):
    lines = DEFAULT_TEXT.splitlines()
    broken = lines.index("    instance_type: p5en.48xlarge")  # the train pool's
    lines[broken] = "    instance_type: [p5en.48xlarge"  # an unclosed flow sequence
    path = tmp_path / "broken.yaml"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(EnvironmentFileError) as error:
        load_environment(str(path))
    # The parser stops on the next line; where the bracket opened is the line to fix.
    assert str(error.value) == (f"broken.yaml: not valid YAML at line {broken + 2}, column 13: expected ',' or ']', "
                                f"but got ':' (while parsing a flow sequence from line {broken + 1}, column 20)")

    job = tmp_path / "job.yaml"
    job.write_text("model:\n  path: /fsx/models/Qwen3-30B-A3B\n\tbatch: {}\n")
    with pytest.raises(JobConfigError) as error:
        load_job_config(job)
    assert str(error.value).startswith(f"{job}: not valid YAML at line 3, column 1: found character '\\t' that cannot "
                                       "start any token")


def test_a_hub_id_as_the_model_path_says_what_to_do_instead():
    assert rejected(lambda d: d["job"]["model"].update(path="Qwen/Qwen3-30B-A3B")) == (
        "default.yaml: job.model.path 'Qwen/Qwen3-30B-A3B' is a Hugging Face Hub id, but the job reads a checkpoint "
        "folder and never downloads: download it (huggingface-cli download Qwen/Qwen3-30B-A3B --local-dir "
        "Qwen3-30B-A3B), copy it to s3://<bucket>/models/Qwen3-30B-A3B/ (README \"Train Qwen3-30B-A3B on your math "
        "dataset\") and set job.model.path: /fsx/models/Qwen3-30B-A3B")
    assert rejected(lambda d: d["job"].update(rewards={"model": {"path": "Skywork/Skywork-Reward-V2-Qwen3-8B"}})).startswith(
        "default.yaml: job.rewards.model.path 'Skywork/Skywork-Reward-V2-Qwen3-8B' is a Hugging Face Hub id")
    assert rejected(lambda d: d["job"]["model"].update(path="models/a/b")) == (
        "default.yaml: job.model.path 'models/a/b' is relative: the pods read an absolute path on FSx, e.g. /fsx/models/b")


def cli_error(capsys, tmp_path, change) -> str:
    data = copy.deepcopy(DEFAULT)
    change(data)
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump({**data, "name": "mine"}))
    assert main(["plan", "--env", str(path)]) == 2
    out, err = capsys.readouterr()
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in out + err
    return err.strip()


def test_the_cli_prints_them_in_one_line(capsys, tmp_path):
    """What `python -m payload plan --env FILE` (and `make manifests`, k8s/main.py) print."""
    assert cli_error(capsys, tmp_path, lambda d: renamed(d, d["pools"]["train"], "efa", "efaa")) == (
        "error: mine.yaml: unknown key 'efaa' in pools.train: did you mean 'efa'?")
    # A folder named after no release: the error says how to name its architecture.
    err = cli_error(capsys, tmp_path, lambda d: d["job"]["model"].update(path="/fsx/models/my-sft"))
    assert err.startswith("error: mine.yaml: job.model.path '/fsx/models/my-sft': 'my-sft' is not a released model")
    assert "set job.model.architecture to the release it was trained from" in err
