"""The rollout pool's Cluster Autoscaler as the template installs it (infra/node_autoscaler.py):
pinned and ordered like the other controllers, discovering only the rollout node group, with a
Pod Identity role that can change only that group, and node-template tags that match what the
rollout pods request, so a scale-up from zero picks the right group."""

import json

from infra import versions
from estimate.checks import load_environment
from cluster.gpu_pods import gpu_pods_per_node
from cluster.placement import EFA_HUGEPAGES_GIB
from infra.node_autoscaler import DESCRIBE_ACTIONS, SCALING_ACTIONS, SERVICE_ACCOUNT

TEMPLATE_TAG = "k8s.io/cluster-autoscaler/node-template/resources/"


def autoscaler_chart(synth):
    (found,) = [(k, r["Properties"]) for k, r in synth.resources("Custom::AWSCDK-EKS-HelmChart").items()
                if r["Properties"]["Chart"] == "cluster-autoscaler"]
    return found


def values(properties) -> str:
    """The Values string with every CloudFormation reference written as <logical id>."""
    parts = properties["Values"]["Fn::Join"][1]
    return "".join(p if isinstance(p, str) else f"<{p.get('Ref') or p['Fn::GetAtt'][0]}>" for p in parts)


def test_pinned_on_the_system_nodes_after_them_and_after_its_identity(synthesized, variants):
    for name, synth in synthesized.items():
        logical, properties = autoscaler_chart(synth)
        repository, chart, version = versions.CLUSTER_AUTOSCALER
        assert (properties["Repository"], properties["Chart"], properties["Version"]) == (repository, chart, version)
        assert properties["Namespace"] == "kube-system"
        before = synth.created_before(logical)
        system, _ = synth.one("AWS::EKS::Nodegroup", "/SystemNodes/")
        association, _ = synth.one("AWS::EKS::PodIdentityAssociation", "/NodeAutoscaler/")
        policy, _ = synth.one("AWS::IAM::Policy", "/NodeAutoscaler/")
        assert {system, association, policy} <= before
        chart_values = json.loads(values(properties))
        assert chart_values["nodeSelector"] == {"rl.aws/pool": "system"}
        assert chart_values["rbac"]["serviceAccount"]["name"] == SERVICE_ACCOUNT
    # The image is the release made for the cluster's Kubernetes minor version.
    for version in ("1.32", "1.33", "1.34"):
        _, properties = autoscaler_chart(variants[f"k8s-{version.replace('.', '-')}"])
        assert json.loads(values(properties))["image"]["tag"].startswith(f"v{version}.")


def test_discovers_only_the_rollout_node_group(synthesized):
    for synth in synthesized.values():
        _, properties = autoscaler_chart(synth)
        rollout, _ = synth.one("AWS::EKS::Nodegroup", "/RolloutNodes/")
        (cluster, _), = synth.resources("AWS::EKS::Cluster").items()
        discovery = json.loads(values(properties))["autoDiscovery"]
        # Every tag must match: the cluster's and the rollout node group's Auto Scaling group only.
        assert discovery["tags"] == [f"eks:cluster-name=<{cluster}>", f"eks:nodegroup-name=<{rollout}>"]


def test_the_role_can_change_only_the_rollout_group(synthesized):
    for synth in synthesized.values():
        association_id, association = synth.one("AWS::EKS::PodIdentityAssociation", "/NodeAutoscaler/")
        role_id = association["Properties"]["RoleArn"]["Fn::GetAtt"][0]
        assert (association["Properties"]["Namespace"], association["Properties"]["ServiceAccount"]) == ("kube-system", SERVICE_ACCOUNT)
        trust = synth.template["Resources"][role_id]["Properties"]["AssumeRolePolicyDocument"]["Statement"]
        assert {s["Principal"]["Service"] for s in trust} == {"pods.eks.amazonaws.com"}
        assert "ManagedPolicyArns" not in synth.template["Resources"][role_id]["Properties"]
        policies = [p for p in synth.resources("AWS::IAM::Policy").values() if {"Ref": role_id} in p["Properties"]["Roles"]]
        assert len(policies) == 1
        statements = policies[0]["Properties"]["PolicyDocument"]["Statement"]
        rollout, _ = synth.one("AWS::EKS::Nodegroup", "/RolloutNodes/")
        (cluster, _), = synth.resources("AWS::EKS::Cluster").items()
        rollout_name = {"Fn::GetAtt": [rollout, "NodegroupName"]}
        granted = {}
        for statement in statements:
            assert statement["Effect"] == "Allow"
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            for action in actions:
                granted[action] = statement
        assert set(granted) == {*DESCRIBE_ACTIONS, *SCALING_ACTIONS, "eks:DescribeNodegroup"}
        for action in DESCRIBE_ACTIONS:
            assert action.split(":")[1].startswith("Describe") and "Condition" not in granted[action]
        for action in SCALING_ACTIONS:
            assert granted[action]["Condition"] == {"StringEquals": {
                "aws:ResourceTag/eks:cluster-name": {"Ref": cluster}, "aws:ResourceTag/eks:nodegroup-name": rollout_name}}
            assert ":autoscaling:" in json.dumps(granted[action]["Resource"])
        nodegroup_arn = granted["eks:DescribeNodegroup"]["Resource"]["Fn::Join"][1]
        assert nodegroup_arn[-4:] == [{"Ref": cluster}, "/", rollout_name, "/*"]


def test_node_template_tags_offer_what_the_rollout_pods_request(synthesized):
    for name, synth in synthesized.items():
        environment = load_environment(name)
        pool = environment.pools.rollout
        _, rollout = synth.one("AWS::EKS::Nodegroup", "/RolloutNodes/")
        tags = {k.removeprefix(TEMPLATE_TAG): v for k, v in rollout["Properties"]["Tags"].items() if k.startswith(TEMPLATE_TAG)}
        assert tags["vpc.amazonaws.com/efa"] == str(pool.spec.efa_interfaces)
        pods = gpu_pods_per_node(environment)["rollout"]
        assert int(tags["hugepages-2Mi"].removesuffix("Mi")) >= pods * EFA_HUGEPAGES_GIB * 1024
        # Labels and taints the autoscaler reads from the node group itself (DescribeNodegroup).
        labels = rollout["Properties"]["Labels"]
        assert labels["rl.aws/pool"] == "rollout" and labels["k8s.amazonaws.com/accelerator"] == "nvidia"
        assert [t["Key"] for t in rollout["Properties"]["Taints"]] == [t.key for t in pool.taints]
        # The train pool is a gang the autoscaler never sees.
        _, train = synth.one("AWS::EKS::Nodegroup", "/TrainNodes/")
        assert not any(k.startswith(TEMPLATE_TAG) for k in train["Properties"].get("Tags", {}))
