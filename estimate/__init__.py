"""The torch-free models of a run: memory, traffic, compute, publish, checkpoint, throughput, the
loop's simulator and planner, the autoscaling rule, and the cross-checks of an environment
against them. Imports spec/ only."""
