"""The embedded engine's one seeded sampling stream: what keeps `payload local` repeatable."""

from payload.rollout.engine import Engine, SamplingOptions

PROMPT = [3, 14, 15, 92, 65]


def sampled_then(engine: Engine, between: list[list[int]] | None) -> list[list[int]]:
    """A sampled group of 8, optionally a greedy request, then another sampled group: the outputs."""
    sampled = SamplingOptions(temperature=1.0, max_new_tokens=4)
    first = [f.result(60).output_ids for f in engine.submit([PROMPT] * 8, [sampled] * 8)]
    if between:
        greedy = SamplingOptions(temperature=0.0, max_new_tokens=4)
        [f.result(60) for f in engine.submit(between, [greedy] * len(between))]
    return first + [f.result(60).output_ids for f in engine.submit([PROMPT] * 8, [sampled] * 8)]


def test_a_greedy_request_between_sampled_ones_leaves_their_samples_as_they_were(tiny_models):
    """An eval (greedy) between two rollout groups draws nothing: the second group samples the
    same tokens as with no eval at all, so an eval cannot make a seeded run differ."""
    runs = []
    for between in (None, [[1, 2, 3], [4, 5, 6, 7]]):
        engine = Engine.Config(model_path=str(tiny_models[0]), seed=7, max_batch_size=8).build()
        try:
            runs.append(sampled_then(engine, between))
        finally:
            engine.close()
    assert runs[0] == runs[1]
    assert len({tuple(ids) for ids in runs[0]}) > 1  # sampled: the group's samples differ
