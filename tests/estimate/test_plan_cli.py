"""`python -m payload plan` / `simulate`: tables, JSON, metrics input and one-line errors."""

import json

import pytest
import yaml

from spec.environment import ENVIRONMENTS_DIR
from estimate.checks import load_environment
from payload.__main__ import main
from spec import signals
from estimate.loop import LoopSpec, Rates
from estimate.planner import predict
from estimate.costs import Hardware
from spec.hardware import INSTANCE_TYPES

P5EN = Hardware.of(INSTANCE_TYPES["p5en.48xlarge"])  # the node p5en-48 trains on

RATES = ["--rollout-tokens-per-s", "20000", "--trainer-tokens-per-s", "50000", "--publish-s", "15"]


def env_file(tmp_path, train=(0, 2, 2), rollout=(0, 2, 4), parallel=None, name="small"):
    """The default environment with other pool sizes (min, desired, max) and trainer mesh."""
    data = yaml.safe_load((ENVIRONMENTS_DIR / "default.yaml").read_text())
    data["name"] = name
    for pool, (lo, desired, hi) in (("train", train), ("rollout", rollout)):
        data["pools"][pool] |= {"min_size": lo, "desired_size": desired, "max_size": hi}
    data["job"]["parallel"] |= parallel or {}
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return str(path)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_plan_json_recommends_the_fastest_split_within_limits(tmp_path, capsys):
    # Qwen3-30B-A3B on 2 train nodes takes two pipeline stages (one node's GPUs each), so the
    # trainer comes in whole 2-node multiples.
    path = env_file(tmp_path, train=(2, 2, 4), rollout=(1, 3, 5), parallel={"expert_parallel_size": 8})
    # 32 slots a server: the job's 64 groups in flight keep every split's servers full.
    code, out, err = run(capsys, "plan", "--env", path, *RATES, "--server-slots", "32", "--json")
    assert code == 0, err
    answer = json.loads(out)
    env = load_environment(path)
    assert env.layout.trainer.pipeline == 2
    spec = LoopSpec.from_environment(env, Rates(20000, 50000, 15), server_slots=32)
    steps = {t: predict(spec, spec.split(t, 5 - t)).step_time_s for t in (2, 4)}
    assert answer["budget_nodes"] == 5
    assert answer["current"]["split"] == {"train_nodes": 2, "rollout_nodes": 3, "replicas": 3, "train_gpus": 16}
    assert answer["recommended"]["split"]["train_nodes"] == min(steps, key=steps.get)
    assert answer["recommended"]["step_time_s"] == pytest.approx(min(steps.values()))
    assert [c["split"]["train_nodes"] for c in answer["candidates"]] == [2, 4]


def test_plan_table(capsys):
    # p5en-48's 64 TP4 replicas (two a node) at 128 requests each: a node decodes 256 at once.
    code, out, _ = run(capsys, "plan", "--env", "p5en-48", *RATES, "--response-tokens-mean", "4000", "--server-slots", "128")
    assert code == 0
    assert "current" in out and "recommended" in out and "16:32" in out
    # The environment's 32 workers × 64 groups in flight keep its servers fed.
    assert "2048 groups in flight" in out and "under-fed" not in out


def test_plan_says_when_the_workers_underfeed_the_servers(tmp_path, capsys):
    env = yaml.safe_load((ENVIRONMENTS_DIR / "p5en-48.yaml").read_text())
    env["job"]["rollout"].update(workers=8, worker_concurrency=8)
    path = tmp_path / "underfed.yaml"
    path.write_text(yaml.safe_dump(env))
    code, out, _ = run(capsys, "plan", "--env", str(path), *RATES, "--response-tokens-mean", "4000")
    assert code == 0
    assert "servers are under-fed" in out and "64 groups in flight" in out


def test_plan_from_the_trainers_metrics_jsonl(tmp_path, capsys):
    records = [
        signals.TrainStepRecord(step=n, wall_time=100.0 + 3 * n, mean_reward=0.5, groups=64, tokens=64 * 8 * 300,
                                tokens_per_s=1.0, trainer_busy_s=2.0, trainer_wait_s=0.5, publish_s=0.5,
                                buffer_groups=0, staleness_mean=0.5, staleness_max=1).to_json()
        for n in range(1, 6)
    ]
    metrics = tmp_path / "metrics.jsonl"
    metrics.write_text("\n".join(records) + "\n")
    code, out, err = run(capsys, "plan", "--env", "default", "--from-metrics", str(metrics),
                         "--measured-split", "1:1", "--json")
    assert code == 0, err
    rates = json.loads(out)["rates"]
    assert rates["trainer_tokens_per_s_per_node"] == pytest.approx(64 * 8 * 300 / 2.0)
    assert rates["publish_s"] == pytest.approx(0.5)
    assert rates["response_tokens_mean"] == pytest.approx(300)
    # A flag overrides what the metrics say.
    code, out, _ = run(capsys, "plan", "--env", "default", "--from-metrics", str(metrics), "--measured-split", "1:1",
                       "--publish-s", "3", "--json")
    assert json.loads(out)["rates"]["publish_s"] == 3


def test_simulate_json(capsys):
    code, out, err = run(capsys, "simulate", "--env", "default", *RATES, "--steps", "8", "--warmup-steps", "2", "--json")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["simulated"]["steps"] == 6
    assert answer["simulated"]["step_time_s"] == pytest.approx(answer["predicted"]["step_time_s"], rel=0.15)


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--env", "p5en-48", "--rollout-tokens-per-s", "0", "--trainer-tokens-per-s", "1", "--publish-s", "1"],
         "rollout tokens/s per node 0.0: must be a number > 0"),
        (["--env", "p5en-48", "--trainer-tokens-per-s", "1", "--publish-s", "1"], "--rollout-tokens-per-s is missing"),
        (["--env", "p5en-48", *RATES, "--split", "24:24"],
         "split 24:24: 24 train nodes is outside pools.train min_size..max_size 16..16"),
        (["--env", "p5en-48", *RATES, "--split", "16:16"], "--split 16:16: 32 nodes, the budget is 48"),
        (["--env", "nowhere", *RATES], "unknown environment 'nowhere'"),
        (["--env", "default", *RATES, "--from-metrics", "/nonexistent.jsonl"], "no such file"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    code, out, err = run(capsys, "plan", *argv)
    assert code == 2
    assert err.startswith("error: ") and message in err
    assert len(err.strip().splitlines()) == 1


def test_budget_smaller_than_one_trainer_and_one_replica(tmp_path, capsys):
    path = env_file(tmp_path, train=(0, 1, 2), rollout=(0, 0, 2))  # one node a trainer, none for rollout
    code, _, err = run(capsys, "plan", "--env", path, *RATES)
    assert code == 2
    assert "node budget 1: smaller than one trainer (1 node(s) for the parallel layout's 8 GPUs) plus one rollout replica" in err


def test_bad_split_syntax_is_an_argparse_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["plan", "--env", "default", *RATES, "--split", "half"])
    assert exc.value.code == 2
    assert "'half': expected TRAIN:ROLLOUT" in capsys.readouterr().err


def test_plan_models_publish_checkpoint_and_export_when_not_measured(capsys):
    """Without --publish-s the planner uses the modeled publish (estimate/costs.py) and
    prints the modeled data movements, for the job's model or another architecture."""
    from estimate.costs import model_costs
    from spec.model_shape import ARCHITECTURES

    rates = RATES[:4]
    code, out, err = run(capsys, "plan", "--env", "p5en-48", *rates, "--response-tokens-mean", "4000", "--json")
    assert code == 0, err
    answer = json.loads(out)
    from estimate.checks import job_costs

    costs = job_costs(load_environment("p5en-48"))
    assert answer["rates"]["publish_s"] == pytest.approx(costs.publish.seconds)
    assert answer["data_movement"] == costs.as_dict()
    code, out, _ = run(capsys, "plan", "--env", "p5en-48", *rates, "--response-tokens-mean", "4000",
                       "--architecture", "Qwen3-235B-A22B")
    assert code == 0
    big = model_costs(ARCHITECTURES["Qwen3-235B-A22B"], hardware=P5EN, train_nodes=16, fsx_storage_gib=4800, fsx_mb_s_per_tib=1000,
                      keep_last=3, servers=32, server_gpus=8, shard_gpus=32, pipeline=4)  # p5en-48: its layout, 32 TP8 servers
    assert "modeled for Qwen3-235B-A22B (235.1 B parameters) on 16 training nodes" in out
    assert f"publish: 470 GB bf16 in {big.publish.buckets} buckets; trainer stall {big.publish.stall_s:.2f} s" in out
    assert f"each server paused {big.publish.pause_s:.2f} s" in out and "resume 702 s" in out
    assert "FSx needed 13,334 GiB of 4,800" in out
    code, _, err = run(capsys, "plan", "--env", "p5en-48", *rates, "--architecture", "Llama-70B")
    assert code == 2 and err.strip() == ("error: --model 'Llama-70B': neither a released model (Qwen3-30B-A3B, "
                                         "Qwen3-235B-A22B) nor a config.json or checkpoint folder here")


def test_plan_splits_the_nodes_the_reward_tier_leaves_and_sizes_the_tier(tmp_path, capsys):
    """A job serving its own reward model: the tier's whole rollout nodes are out of the split,
    and --reward-prefill-tokens-per-s sizes it for the recommended split's rollout (its decoded
    response tokens/s, each response scored with its prompt)."""
    path = env_file(tmp_path, train=(1, 2, 3), rollout=(1, 4, 6), parallel={"expert_parallel_size": 8})
    data = yaml.safe_load(open(path))
    data["job"]["rewards"] = {"model": {"path": "/fsx/models/rm", "tensor_parallel_size": 2, "replicas": 4},
                              "default": {"model": 1.0}}
    open(path, "w").write(yaml.safe_dump(data))
    code, out, err = run(capsys, "plan", "--env", path, *RATES, "--server-slots", "32", "--json",
                         "--reward-prefill-tokens-per-s", "50000")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["reward_nodes_held"] == 1  # 4 replicas x TP 2 fill one 8-GPU node
    assert answer["budget_nodes"] == 2 + 4 - 1
    assert answer["current"]["split"]["rollout_nodes"] == 3
    recommended = answer["recommended"]
    decoded = recommended["split"]["rollout_nodes"] * 20000 * (1 - recommended["rollout_idle_fraction"])
    prompt = load_environment(path).job.batch.max_prompt_tokens / 4
    scored = decoded * (1 + prompt / answer["rates"]["response_tokens_mean"])
    tier = answer["reward_tier"]
    assert tier["scored_tokens_per_s"] == pytest.approx(scored)
    assert tier["replicas"] == -(-scored // 50000) and tier["nodes"] == -(-tier["replicas"] // 4)
    code, out, _ = run(capsys, "plan", "--env", path, *RATES, "--server-slots", "32",
                       "--reward-prefill-tokens-per-s", "50000")
    assert code == 0 and "the reward tier holds 1 rollout node(s)" in out
    assert f"job.rewards.model.replicas {tier['replicas']}" in out


def test_sizing_a_reward_tier_the_job_does_not_serve_is_one_line(capsys):
    code, _, err = run(capsys, "plan", "--env", "default", *RATES, "--reward-prefill-tokens-per-s", "50000")
    assert code == 2
    assert err.strip() == ("error: --reward-prefill-tokens-per-s sizes the job's own reward tier: job.rewards.model "
                           "must be set, without a url")
