import pytest

from estimate.loop import LoopSpec, Rates, ResponseLengths


def small_spec(**changes) -> LoopSpec:
    """A loop small enough to simulate in well under a second: 8 one-replica nodes."""
    rates = Rates(
        rollout_tokens_per_s_per_node=changes.pop("rollout", 8000.0),
        trainer_tokens_per_s_per_node=changes.pop("trainer", 20000.0),
        publish_s=changes.pop("publish_s", 1.0),
        response_tokens_mean=500,
        filtered_fraction=changes.pop("filtered", 0.0),
    )
    base = dict(prompts_per_step=32, group_size=8, max_staleness=2, high_water_groups=256, groups_in_flight=64,
                lengths=ResponseLengths(500, 0.6, 2048), rates=rates, server_slots=64)
    return LoopSpec(**(base | changes))


@pytest.fixture
def spec_factory():
    return small_spec
