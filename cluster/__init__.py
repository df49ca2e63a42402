"""The cluster's shared facts, read by the CDK app (infra/), the cdk8s app (k8s/) and the planner
(payload.balance): the environment schema, instance types, names, the job's layout on the pools,
pod placement and the deploy outputs. Nothing here imports infra/ or k8s/.
"""
