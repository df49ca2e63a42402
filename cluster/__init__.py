"""The cluster's shared facts, read by the CDK app (infra/), the cdk8s app (k8s/) and the planner
(payload.plan): the GPU shares of the job's layout on the pools,
pod placement and the deploy outputs. Nothing here imports infra/ or k8s/.
"""
