"""The scaling rule inside the discrete-event simulator (estimate.autoscale.SimulatedScaling):
the controller drains before it releases a node, never goes below the floor, counts the
GPU-hours it holds, and a seed reproduces a run. bench/autoscale.py has the 48-node comparison."""

from estimate.autoscale import RolloutScaler, SimulatedScaling, compare
from estimate.loop import Spot
from estimate.simulator import Simulator


def spot_spec(spec_factory):
    return spec_factory(spot=Spot(reclaims_per_node_hour=0.5, replacement_s=60.0, notice_s=10.0))


def always_shrink(floor: int, ceiling: int) -> RolloutScaler:
    """The rule with marks that make every evaluation ask for fewer replicas."""
    return RolloutScaler(min_replicas=floor, max_replicas=ceiling, idle_high=1.0, idle_low=1.01, batches_high=0.0,
                         interval_s=5.0, sync_s=5.0, scale_down_stabilization_s=5.0)


def test_scaling_down_drains_to_the_floor_and_every_step_still_trains(spec_factory):
    spec = spot_spec(spec_factory)
    split = spec.split(1, 7)
    controller = SimulatedScaling(always_shrink(2, split.replicas))
    sim = Simulator.Config(spec, split, steps=12, seed=0, controller=controller).build()
    result = sim.run()
    assert result.steps == 12 - sim.config.warmup_steps  # no step starved: drained groups were trained
    assert min(n for _, n in controller.billed) == 2 == sum(not r.parked for r in sim.replicas)
    t0, t1 = sim._marks[sim.config.warmup_steps - 1][0], sim._marks[-1][0]
    assert controller.replica_hours(t0, t1) < split.replicas * (t1 - t0) / 3600


def test_the_comparison_is_reproducible_and_the_fixed_run_holds_every_replica(spec_factory):
    spec = spot_spec(spec_factory)
    split = spec.split(1, 7)
    first = compare(spec, split, always_shrink(2, split.replicas), steps=10, seed=3)
    again = compare(spec, split, always_shrink(2, split.replicas), steps=10, seed=3)
    assert first == again
    fixed, scaled = first
    assert fixed.replica_hours > scaled.replica_hours
    assert fixed.gpu_hours == fixed.replica_hours * spec.replica_gpus
