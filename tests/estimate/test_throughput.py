"""estimate/throughput.py: the first-principles GRPO step behind `plan --model-config`."""

import math

import pytest

from estimate.checks import load_environment
from payload.__main__ import main
from estimate.throughput import (
    Assumptions,
    all_tokens_per_s_per_gpu,
    choose_staleness,
    engine_layouts,
    estimate_rates,
    kv_bytes_per_token,
    loop_spec,
)
from spec.model_shape import Qwen3MoeConfig
from spec.hardware import GPUS
from spec.model_shape import ARCHITECTURE_CONFIGS


@pytest.fixture(scope="module")
def env():
    return load_environment("p5en-48")


def config_of(name):
    return Qwen3MoeConfig.from_pretrained(ARCHITECTURE_CONFIGS[name])


@pytest.fixture(scope="module")
def estimate_30b(env):
    return estimate_rates(env)


def test_trainer_flops_are_six_times_active_parameters_plus_attention(env, estimate_30b):
    c = config_of("Qwen3-30B-A3B")
    d, hd, heads, kv, layers = c.hidden_size, c.head_dim, c.num_attention_heads, c.num_key_value_heads, c.num_hidden_layers
    active = layers * (d * hd * (2 * heads + 2 * kv) + d * c.num_experts
                       + c.num_experts_per_tok * 3 * d * c.moe_intermediate_size) + c.vocab_size * d
    sample = estimate_30b.prompt_tokens + estimate_30b.response_tokens_mean
    attention = 6 * layers * heads * hd * int(sample)  # causal: half of the 2·S·H·hd scores, x 3 passes x 2 (QK, PV)
    expected = 6 * active + attention
    assert math.isclose(estimate_30b.trainer.flops_per_token, expected, rel_tol=1e-3)
    # Compute seconds: every token of the step at the assumed MFU over all trainer GPUs, less one
    # LM-head forward a token: the default (auto) keeps the logits for 30B on p5en-48.
    a = estimate_30b.assumptions
    t = estimate_30b.trainer
    assert t.keeps_logits
    work = expected - 2 * d * c.vocab_size
    assert math.isclose(t.compute_s, t.step_tokens * work / (128 * a.train_mfu * a.peak_tflops * 1e12), rel_tol=1e-3)
    # The EP all-to-all is on the critical path, so a step is longer than its compute.
    assert t.step_s > t.compute_s and "EP all-to-all" in t.unhidden


def test_recomputed_logits_cost_the_whole_forward_and_backward(env, estimate_30b):
    job = env.job.model_copy(update={"model": env.job.model.model_copy(update={"lm_head_keep_logits": False})})
    recomputing = estimate_rates(env.model_copy(update={"job": job})).trainer
    kept = estimate_30b.trainer
    assert not recomputing.keeps_logits and recomputing.flops_per_token == kept.flops_per_token
    c = config_of("Qwen3-30B-A3B")
    head = 2 * c.hidden_size * c.vocab_size
    assert math.isclose(kept.compute_s / recomputing.compute_s, 1 - head / kept.flops_per_token, rel_tol=1e-9)
    assert recomputing.memory_gb < kept.memory_gb


def test_kv_heads_split_over_tensor_parallel_then_replicate():
    c = config_of("Qwen3-30B-A3B")  # 4 KV heads
    assert kv_bytes_per_token(c, 1) == 2 * 48 * 4 * 128 * 2
    assert kv_bytes_per_token(c, 4) == kv_bytes_per_token(c, 1) / 4
    assert kv_bytes_per_token(c, 8) == kv_bytes_per_token(c, 4)  # replicated beyond the head count


def test_engine_layouts_fit_the_weights_and_pick_the_fastest():
    kwargs = dict(gpus_per_node=8, gpu_memory_gb=141, prompt_tokens=512, response_mean=8192, response_sigma=0.8,
                  group_size=16, a=Assumptions().on(GPUS["NVIDIA H200"]))
    big = engine_layouts(config_of("Qwen3-235B-A22B"), **kwargs)
    # 470 GB of bf16 weights: TP 1 and 2 cannot hold them on a 141 GB GPU.
    assert {e.tensor_parallel for e in big} <= {4, 8} and big[0].tensor_parallel == 8
    small = engine_layouts(config_of("Qwen3-30B-A3B"), **kwargs)
    assert [e.tokens_per_s_per_node for e in small] == sorted((e.tokens_per_s_per_node for e in small), reverse=True)
    assert small[0].why and small[0].tensor_parallel < 8
    hbm = 4800e9 * 0.75
    for e in small:
        # A decode step reads at least the KV cache of its batch at the HBM rate.
        assert e.decode_step_s >= e.batch * 512 * kv_bytes_per_token(config_of("Qwen3-30B-A3B"), e.tensor_parallel) / hbm
        assert e.batch <= e.kv_capacity_tokens


def test_in_place_pause_drops_the_re_prefill_and_raises_throughput(env, estimate_30b):
    # p5en-48 pauses in place (its job's rollout.pause_mode); a retracting pause re-prefills.
    retract = estimate_rates(env, a=Assumptions(pause_mode="retract"))
    assert estimate_30b.assumptions.pause_mode == "in_place"
    assert retract.engine.reprefill_s > 0 and estimate_30b.engine.reprefill_s == 0
    assert estimate_30b.publish_s < retract.publish_s
    # Without the radix cache (in place) every sample prefills its prompt: a replica's rate
    # between publishes is a little lower than a retracting one's, which shares it.
    assert estimate_30b.engine.batch == retract.engine.batch
    assert estimate_30b.engine.tokens_per_s_per_node < retract.engine.tokens_per_s_per_node
    split = loop_spec(env, retract).split(16, 32)
    retract_rows, _ = choose_staleness(loop_spec(env, retract), split, retract.prompt_tokens)
    in_place_rows, _ = choose_staleness(loop_spec(env, estimate_30b), split, estimate_30b.prompt_tokens)
    for r, i in zip(retract_rows, in_place_rows):
        assert i.tokens_per_s_per_gpu > r.tokens_per_s_per_gpu


def test_tokens_per_gpu_count_prompts_and_responses_over_every_gpu(env, estimate_30b):
    spec = loop_spec(env, estimate_30b).with_(stale_tokens="drop_group")
    rows, pick = choose_staleness(spec, spec.split(16, 32), estimate_30b.prompt_tokens)
    p = pick.prediction
    prompts = spec.prompts_per_step * spec.group_size * estimate_30b.prompt_tokens / p.step_time_s
    assert math.isclose(all_tokens_per_s_per_gpu(p, spec, estimate_30b.prompt_tokens),
                        (p.trained_tokens_per_s + prompts) / 384)
    # The most tokens among the limits dropping under a tenth. The feeder's window releases a
    # step's tasks at its publish, so under drop_group the shipped 30B drops under a tenth at every
    # limit (the simulator: 0.5-0.7 %), and each limit also caps the groups in flight at
    # max_staleness batches: tokens grow with it, and the pick is the largest.
    assert [r.max_staleness for r in rows] == [1, 2, 3, 4]
    assert all(r.prediction.stale_dropped_fraction < 0.10 for r in rows)
    tokens = [r.tokens_per_s_per_gpu for r in rows]
    assert tokens == sorted(tokens) and pick.tokens_per_s_per_gpu == max(tokens)
    assert pick.max_staleness == 4


def test_plan_prints_the_step_beside_nemo_rl(capsys):
    code = main(["plan", "--env", "p5en-48", "--model-config", "Qwen3-30B-A3B", "--train-mfu", "0.3"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "30.0% MFU" in out and "tokens/s/GPU" in out and "NeMo-RL v0.6 on-policy: 1,102" in out
    assert "picked TP" in out and "assumptions: train_mfu 0.3" in out


def test_plan_models_the_job_s_stale_tokens_or_the_flag_s(capsys):
    """p5en-48's job masks stale tokens and each row says what it masks; `--stale-tokens
    drop_group` plans it as if it dropped them. With the feeder's window (a batch of tasks a
    publish) the 30B's groups are trained about max_staleness versions after their claim: at 4
    the odd group a version late is dropped whole or masked in part."""
    rows = {}
    for argv in ([], ["--stale-tokens", "drop_group"]):
        assert main(["plan", "--env", "p5en-48", "--model", "Qwen3-30B-A3B", *argv]) == 0
        out = capsys.readouterr().out
        rows[bool(argv)] = next(line for line in out.splitlines() if line.startswith("    4: step"))
        assert (", rollout.stale_tokens mask):" in out) is not bool(argv)
    assert "stale dropped " in rows[True] and "masked" not in rows[True]
    assert "stale dropped 0.0%" in rows[False] and "stale tokens masked 1.4%" in rows[False]
    with pytest.raises(SystemExit) as exit_:
        main(["plan", "--env", "p5en-48", "--stale-tokens", "drop"])
    assert exit_.value.code == 2 and "--stale-tokens: invalid choice: 'drop'" in capsys.readouterr().err


def test_plan_refuses_a_bad_mfu_in_one_line(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["plan", "--env", "p5en-48", "--model-config", "Qwen3-30B-A3B", "--train-mfu", "1.5"])
    assert exit_.value.code == 2
    assert "--train-mfu" in capsys.readouterr().err


def _metrics(path, **extra):
    import json

    from spec.signals import TrainStepRecord

    lines = []
    for step in range(1, 5):
        record = TrainStepRecord(step=step, wall_time=100.0 * step, mean_reward=0.5, groups=512, tokens=512 * 16 * 4000,
                                 tokens_per_s=1.0, trainer_busy_s=60.0, trainer_wait_s=30.0, publish_s=10.0,
                                 buffer_groups=0, staleness_mean=1.0, staleness_max=2)
        lines.append(json.dumps(json.loads(record.to_json()) | extra))
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_from_metrics_refuses_another_device_and_labels_an_unsaid_one(tmp_path, capsys):
    cpu = _metrics(tmp_path / "cpu.jsonl", device="cpu", model="Qwen3-30B-A3B")
    code = main(["plan", "--env", "p5en-48", "--from-metrics", cpu])
    err = capsys.readouterr().err
    assert code == 2 and "measured on device cpu, not this environment's NVIDIA H200" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    h100 = _metrics(tmp_path / "h100.jsonl", device="NVIDIA H100 80GB HBM3", model="Qwen3-30B-A3B")
    assert main(["plan", "--env", "p5en-48", "--from-metrics", h100]) == 2
    assert "measured on device NVIDIA H100 80GB HBM3, not this environment's NVIDIA H200" in capsys.readouterr().err
    other = _metrics(tmp_path / "other.jsonl", device="NVIDIA H200", model="tiny-demo")
    assert main(["plan", "--env", "p5en-48", "--from-metrics", other]) == 2
    assert "model tiny-demo" in capsys.readouterr().err
    unsaid = _metrics(tmp_path / "unsaid.jsonl")
    code = main(["plan", "--env", "p5en-48", "--from-metrics", unsaid, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert any(h.startswith("UNVERIFIED RATES") for h in __import__("json").loads(out)["hints"])
    same = _metrics(tmp_path / "same.jsonl", device="NVIDIA H200", model="Qwen3-30B-A3B")
    code = main(["plan", "--env", "p5en-48", "--from-metrics", same, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert not any(h.startswith("UNVERIFIED") for h in __import__("json").loads(out)["hints"])


@pytest.mark.parametrize("said,wanted,same", [
    ("NVIDIA H200", "NVIDIA H200", True), ("NVIDIA H100 80GB HBM3", "NVIDIA H100", True),
    ("NVIDIA A100-SXM4-40GB", "NVIDIA A100", True), ("NVIDIA H20", "NVIDIA H200", False),
    ("NVIDIA H200", "NVIDIA H20", False), ("cpu", "NVIDIA H200", False), ("cpu", "cpu", True)])
def test_device_names_match_the_driver_s_spelling(said, wanted, same):
    from estimate.measure import same_device

    assert same_device(said, wanted) is same


def test_every_gpu_instance_type_names_its_gpu():
    from spec.hardware import INSTANCE_TYPES

    for name, spec in INSTANCE_TYPES.items():
        assert bool(spec.gpus) == bool(spec.gpu) and spec.device == (spec.gpu or "cpu"), name
    assert INSTANCE_TYPES["p5en.48xlarge"].device == "NVIDIA H200"




@pytest.mark.parametrize("model,nodes,train", [("Qwen3-30B-A3B", 48, 16),
                                               ("Qwen3-235B-A22B", 48, 16), ("Qwen3-235B-A22B", 125, 40)])
def test_closed_form_agrees_with_the_simulator(env, model, nodes, train):
    """The planner's step from first-principles rates within 10% of the discrete-event loop's
    (bench/throughput_validation.py runs the 30B at 125 nodes too: six minutes of simulation,
    too slow here; the 235B's 125 nodes simulate in under a minute)."""
    from estimate.planner import predict
    from estimate.simulator import Simulator
    from estimate.throughput import scaled_case

    spec, split, _ = scaled_case(load_environment("p5en-48", model=model), nodes, train)
    plan = predict(spec, split)
    sim = Simulator.Config(spec, split, steps=10, warmup_steps=4).build().run()
    assert abs(plan.step_time_s / sim.step_time_s - 1) < 0.10
    assert abs(plan.stale_dropped_fraction - sim.stale_dropped_fraction) < 0.10


def test_traffic_overlaps_by_its_kind_not_its_label(env, estimate_30b):
    """The trainer estimate puts EP and HSDP traffic on the critical path and hides FSDP's behind
    compute by what the footprint says each entry moves (Traffic.kind), not by its label."""
    from estimate.footprint import job_footprint

    _, _, fp = job_footprint(config_of("Qwen3-30B-A3B"), env)
    assert {t.kind for t in fp.traffic_gb.values()} <= {"ep", "fsdp", "hsdp", "pp"}
    critical = {name for name, t in fp.traffic_gb.items() if t.kind in ("ep", "hsdp")}
    assert critical and set(estimate_30b.trainer.unhidden) - {"FSDP gather + reduce-scatter beyond compute"} == critical


def test_plan_prints_one_step_and_one_pause_to_budget(capsys):
    assert main(["plan", "--env", "p5en-48", "--model", "Qwen3-30B-A3B", "--pause-mode", "retract"]) == 0
    out = capsys.readouterr().out.splitlines()
    (budget,) = [line for line in out if line.startswith("  budget:")]
    (picked,) = [line for line in out if line.endswith("<- picked") and ": step " in line]
    step = picked.split(": step ")[1].split(" s,")[0]
    publish = next(line for line in out if line.startswith("  publish:"))
    # The loop's pause: the transfer and load, then the re-prefill of the requests running (a
    # retracting pause), less than a full batch's (76% of the rate fed: 38% of the slots run).
    pause = publish.split("the loop pauses ")[1].split(" s ")[0]
    full = float(publish.split("server pause ")[1].split(" s ")[0])
    assert budget.startswith(f"  budget: {step} s a step (bound: ") and f"and {pause} s a publish pauses each server" in budget
    assert 2.5 < float(pause) < full
    assert "the re-prefill of what runs, at most 16.7 s, pause mode retract)" in budget
    assert not any("step >=" in line for line in out)  # the footprint's cost ranks layouts; it is not a step time


def test_the_job_s_rollout_pause_mode_drives_the_plan_and_pause_mode_overrides_it(env, estimate_30b, tmp_path, capsys):
    """rollout.pause_mode in the job (issue 47 item 1; p5en-48's is in_place): the estimate
    keeps the re-prefill for retract as Assumptions(pause_mode="retract") does; `plan
    --pause-mode in_place` still overrides it."""
    import yaml

    retract_job = env.job.model_copy(update={"rollout": env.job.rollout.model_copy(update={"pause_mode": "retract"})})
    from_job = estimate_rates(env.model_copy(update={"job": retract_job}))
    assert from_job.engine.reprefill_s > 0 and from_job.assumptions.pause_mode == "retract"
    assert estimate_30b.assumptions.pause_mode == "in_place" and estimate_30b.engine.reprefill_s == 0
    assert from_job.publish_s == estimate_rates(env, a=Assumptions(pause_mode="retract")).publish_s

    data = yaml.safe_load(open("environments/p5en-48.yaml"))
    data["job"]["rollout"]["pause_mode"] = "retract"
    path = tmp_path / "p5en-48.yaml"
    path.write_text(yaml.safe_dump(data))

    def budget(*extra):
        assert main(["plan", "--env", str(path), "--model", "Qwen3-30B-A3B", *extra]) == 0
        return next(line for line in capsys.readouterr().out.splitlines() if line.startswith("  budget:"))

    assert "at most 16.7 s, pause mode retract)" in budget()
    in_place = budget("--pause-mode", "in_place")
    assert "and 2.5 s a publish pauses each server" in in_place and "at most 0.0 s, pause mode in_place)" in in_place
