"""`make scale` (infra/scale.py) against AWS responses played back by botocore's Stubber (which
checks every request and response against the EKS, Auto Scaling and EC2 service models) and
the Kubernetes API served on loopback: success, a capacity miss, DEGRADED, a timeout, and a
Capacity Block that is not active.

The responses are shaped as those APIs return them; the failure texts are EC2's and EKS's own
wording (EC2 User Guide, "Insufficient instance capacity"; EKS API Reference, Issue codes).
"""

import json
import threading
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import boto3
import pytest
from botocore.stub import Stubber

from estimate.checks import load_environment
from infra.scale import (
    KubernetesNodes,
    Scaler,
    ScaleError,
    autoscaled_target,
    check_capacity_block,
    fixed_target,
    main as scale,
)

CLUSTER, NODEGROUP, GROUP = "rl-p5en-48", "TrainNodesNodegroup-abc123", "eks-TrainNodesNodegroup-abc123-58c9"
UPDATE_AT = datetime(2026, 12, 3, 15, 0, tzinfo=timezone.utc)
CAPACITY_MISS = (
    "Could not launch On-Demand Instances. InsufficientInstanceCapacity - We currently do not have sufficient "
    "p5en.48xlarge capacity in the Availability Zone you requested (us-east-2a). Our system will be working on "
    "provisioning additional capacity. Launching EC2 instance failed."
)


def client(service):
    return boto3.client(service, region_name="us-east-2", aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="x")


class FakeClock:
    """Monotonic seconds that pass only when the scaler sleeps."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


@pytest.fixture
def kubernetes():
    """The API server's GET /api/v1/nodes on loopback; `nodes` is what it lists."""
    state = {"nodes": [], "requests": [], "applied": []}

    class Handler(BaseHTTPRequestHandler):
        def do_PATCH(self):
            url = urlparse(self.path)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state["applied"].append((url.path, parse_qs(url.query), self.headers.get("Content-Type"), body))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def do_GET(self):
            url = urlparse(self.path)
            state["requests"].append((url.path, parse_qs(url.query), self.headers.get("Authorization")))
            selector = parse_qs(url.query)["labelSelector"][0]
            key, value = selector.split("=")
            items = [n for n in state["nodes"] if n["metadata"]["labels"].get(key) == value]
            body = json.dumps({"kind": "NodeList", "apiVersion": "v1", "items": items}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state["endpoint"] = f"http://127.0.0.1:{server.server_port}"
    yield state
    server.shutdown()
    server.server_close()


def node(name, ready, nodegroup=NODEGROUP):
    return {
        "metadata": {"name": name, "labels": {"eks.amazonaws.com/nodegroup": nodegroup, "rl.aws/pool": "train"}},
        "status": {"conditions": [{"type": "Ready", "status": "True" if ready else "False"}]},
    }


def update(status, errors=()):
    return {"update": {"id": "9c3f-update", "status": status, "type": "ConfigUpdate", "createdAt": UPDATE_AT,
                       "params": [{"type": "DesiredSize", "value": "2"}], "errors": list(errors)}}


def nodegroup(status, issues=(), scaling=None):
    return {"nodegroup": {"nodegroupName": NODEGROUP, "clusterName": CLUSTER, "status": status,
                          "scalingConfig": scaling or {"minSize": 0, "maxSize": 2, "desiredSize": 2},
                          "resources": {"autoScalingGroups": [{"name": GROUP}]},
                          "health": {"issues": [{"code": c, "message": m, "resourceIds": [GROUP]} for c, m in issues]}}}


def activity(status, message, minutes_after_update):
    recorded = {"ActivityId": f"a-{minutes_after_update}", "AutoScalingGroupName": GROUP, "Cause": "desired capacity changed",
                "StartTime": UPDATE_AT + timedelta(minutes=minutes_after_update), "StatusCode": status,
                "Description": "Launching a new EC2 instance", "Progress": 100}
    return {**recorded, "StatusMessage": message} if message else recorded


class Recorded:
    """Stubbed EKS and Auto Scaling clients, fed one poll at a time."""

    def __init__(self, kubernetes):
        self.eks, self.autoscaling = client("eks"), client("autoscaling")
        self.eks_stub, self.asg_stub = Stubber(self.eks), Stubber(self.autoscaling)
        self.clock = FakeClock()
        self.kubernetes = kubernetes
        self.scaler = Scaler(
            eks=self.eks, autoscaling=self.autoscaling,
            nodes=KubernetesNodes(kubernetes["endpoint"], lambda: "k8s-aws-v1.token"),
            cluster=CLUSTER, nodegroup=NODEGROUP, clock=self.clock, sleep=self.clock.sleep, poll_seconds=20,
        )

    def started(self, config):
        self.eks_stub.add_response("update_nodegroup_config", update("InProgress"),
                                   {"clusterName": CLUSTER, "nodegroupName": NODEGROUP, "scalingConfig": config})

    def poll(self, update_status, group, activities):
        self.eks_stub.add_response("describe_update", update(update_status),
                                   {"name": CLUSTER, "nodegroupName": NODEGROUP, "updateId": "9c3f-update"})
        self.eks_stub.add_response("describe_nodegroup", group, {"clusterName": CLUSTER, "nodegroupName": NODEGROUP})
        self.asg_stub.add_response("describe_scaling_activities", {"Activities": activities},
                                   {"AutoScalingGroupName": GROUP, "MaxRecords": 20})

    def run(self, desired, timeout_s=1800, config=None, joined_at_most=None):
        config = config or {"minSize": 0, "maxSize": 2, "desiredSize": desired}
        with self.eks_stub, self.asg_stub:
            started = self.scaler.start(config)
            self.scaler.wait(started, desired, desired if joined_at_most is None else joined_at_most, timeout_s)
            self.eks_stub.assert_no_pending_responses()
            self.asg_stub.assert_no_pending_responses()


def test_returns_once_every_node_is_ready_not_when_the_group_is_active(kubernetes):
    aws = Recorded(kubernetes)
    aws.started({"minSize": 0, "maxSize": 2, "desiredSize": 2})
    # EKS reports ACTIVE with the update done before any node exists: not done yet.
    aws.poll("Successful", nodegroup("ACTIVE"), [activity("InProgress", "", 1)])
    aws.poll("Successful", nodegroup("ACTIVE"), [activity("Successful", "", 1)])
    aws.poll("Successful", nodegroup("ACTIVE"), [activity("Successful", "", 1)])
    polls = iter([[], [node("ip-10-0-1-5", ready=False)], [node("ip-10-0-1-5", True), node("ip-10-0-1-6", True)]])
    original = aws.scaler.nodes.count

    def count(group):
        kubernetes["nodes"] = next(polls)
        return original(group)

    aws.scaler.nodes.count = count
    aws.run(desired=2)
    assert aws.clock.now == 40  # two sleeps: 0 nodes, then 1 not Ready, then 2 Ready
    path, query, auth = kubernetes["requests"][-1]
    assert path == "/api/v1/nodes" and query["labelSelector"] == [f"eks.amazonaws.com/nodegroup={NODEGROUP}"]
    assert auth == "Bearer k8s-aws-v1.token"


def test_a_capacity_miss_fails_with_auto_scalings_reason(kubernetes):
    aws = Recorded(kubernetes)
    aws.started({"minSize": 0, "maxSize": 2, "desiredSize": 2})
    # The group is still ACTIVE (EKS marks it DEGRADED later); the failed launch is already recorded.
    # An older failure, from before this update, is not this update's reason.
    aws.poll("Successful", nodegroup("ACTIVE"), [activity("Failed", CAPACITY_MISS, 2), activity("Failed", "old", -60)])
    with pytest.raises(ScaleError) as error:
        aws.run(desired=2)
    message = str(error.value)
    assert message.startswith(f"node group {NODEGROUP}: Auto Scaling could not launch an instance: Could not launch")
    assert "InsufficientInstanceCapacity" in message and "NODES=0 stops it" in message


def test_degraded_fails_with_the_health_issues(kubernetes):
    aws = Recorded(kubernetes)
    aws.started({"minSize": 0, "maxSize": 2, "desiredSize": 2})
    aws.poll("Successful", nodegroup("DEGRADED", [("AsgInstanceLaunchFailures", CAPACITY_MISS)]), [])
    with pytest.raises(ScaleError, match=f"^node group {NODEGROUP} is DEGRADED: AsgInstanceLaunchFailures: Could not launch"):
        aws.run(desired=2)


def test_a_failed_update_fails_with_eks_errors(kubernetes):
    aws = Recorded(kubernetes)
    aws.started({"minSize": 0, "maxSize": 2, "desiredSize": 2})
    aws.eks_stub.add_response("describe_update", update("Failed", [{"errorCode": "AccessDenied", "errorMessage": "no iam:PassRole"}]),
                              {"name": CLUSTER, "nodegroupName": NODEGROUP, "updateId": "9c3f-update"})
    with pytest.raises(ScaleError, match="EKS update failed: AccessDenied: no iam:PassRole"):
        aws.run(desired=2)


def test_times_out_after_the_stated_bound_with_what_it_saw(kubernetes):
    aws = Recorded(kubernetes)
    aws.started({"minSize": 0, "maxSize": 2, "desiredSize": 2})
    kubernetes["nodes"] = [node("ip-10-0-1-5", True), node("ip-10-0-1-6", False), node("ip-10-0-9-9", True, nodegroup="other")]
    for _ in range(4):  # 60 s at 20 s a poll: polls at 0, 20, 40 and 60 s
        aws.poll("Successful", nodegroup("ACTIVE"), [activity("Successful", "", 1)])
    with pytest.raises(ScaleError) as error:
        aws.run(desired=2, timeout_s=60)
    assert str(error.value) == (f"node group {NODEGROUP}: 1 of 2 nodes Ready (2 joined) after 1 minutes; "
                                "no launch failure recorded (TIMEOUT_MINUTES waits longer)")
    assert aws.clock.now == 60


def test_scaling_to_zero_waits_for_the_nodes_to_leave(kubernetes):
    aws = Recorded(kubernetes)
    aws.started({"minSize": 0, "maxSize": 2, "desiredSize": 0})
    aws.poll("Successful", nodegroup("ACTIVE"), [])
    aws.poll("Successful", nodegroup("ACTIVE"), [])
    polls = iter([[node("ip-10-0-1-5", True)], []])
    original = aws.scaler.nodes.count
    aws.scaler.nodes.count = lambda group: (kubernetes.update(nodes=next(polls)), original(group))[1]
    aws.run(desired=0)
    assert aws.clock.now == 20


def test_capacity_block_must_be_active():
    ec2 = client("ec2")
    block = {"CapacityReservationId": "cr-0a1b2c3d4e5f60718", "InstanceType": "p5en.48xlarge",
             "StartDate": datetime(2026, 12, 10, 11, 30, tzinfo=timezone.utc),
             "EndDate": datetime(2026, 12, 17, 11, 30, tzinfo=timezone.utc), "ReservationType": "capacity-block"}
    with Stubber(ec2) as stub:
        stub.add_response("describe_capacity_reservations", {"CapacityReservations": [{**block, "State": "scheduled"}]},
                          {"CapacityReservationIds": ["cr-0a1b2c3d4e5f60718"]})
        with pytest.raises(ScaleError) as error:
            check_capacity_block(ec2, "train", "cr-0a1b2c3d4e5f60718")
        assert str(error.value) == ("pools.train: Capacity Block cr-0a1b2c3d4e5f60718 is scheduled (starts "
                                    "2026-12-10T11:30:00+00:00); EC2 launches its instances only while it is active")
        stub.add_response("describe_capacity_reservations", {"CapacityReservations": [{**block, "State": "active"}]},
                          {"CapacityReservationIds": ["cr-0a1b2c3d4e5f60718"]})
        assert check_capacity_block(ec2, "train", "cr-0a1b2c3d4e5f60718") == "2026-12-17T11:30:00+00:00"


@pytest.mark.parametrize(
    "args, expected",
    [(["rollout", "--env", "default", "--nodes", "9"], "error: NODES=9: must be between 0 and the pool's max_size 4"),
     (["train", "--env", "default", "--timeout-minutes", "0"], "error: TIMEOUT_MINUTES=0: must be positive"),
     (["train", "--env", "default", "--outputs", "/nonexistent/cdk-outputs.json"], "error: cdk-outputs.json not found: deploy first")],
)
def test_user_mistakes_are_one_line_before_any_aws_call(capsys, tmp_path, args, expected, monkeypatch):
    # No credentials anywhere: a mistake must be reported before any client would need them.
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    outputs = tmp_path / "cdk-outputs.json"
    outputs.write_text(json.dumps({"MoeRl-default": {"ClusterName": CLUSTER, "TrainNodegroupName": NODEGROUP,
                                                     "RolloutNodegroupName": "r"}}))
    assert scale(args if "--outputs" in args else [*args, "--outputs", str(outputs)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(expected) and len(err.splitlines()) == 1


def test_the_bearer_token_is_a_presigned_get_caller_identity_for_the_cluster():
    """What `aws eks get-token` hands kubectl, made offline by botocore's own signer: the
    cluster name is a signed header, so the token is good for that cluster only."""
    import base64
    from urllib.parse import parse_qs, urlparse

    from infra.scale import eks_token

    session = boto3.Session(region_name="us-east-2", aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="x")
    token = eks_token(session, CLUSTER)
    assert token.startswith("k8s-aws-v1.") and "=" not in token
    encoded = token.removeprefix("k8s-aws-v1.")
    url = urlparse(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode())
    query = parse_qs(url.query)
    assert url.scheme == "https" and url.hostname.startswith("sts.")
    assert query["Action"] == ["GetCallerIdentity"] and query["X-Amz-Expires"] == ["60"]
    assert query["X-Amz-SignedHeaders"] == ["host;x-k8s-aws-id"]


@pytest.mark.parametrize("block_state, code", [("active", 0), ("payment-pending", 2)])
def test_make_scale_checks_the_block_then_scales_and_waits(kubernetes, tmp_path, capsys, monkeypatch, block_state, code):
    """`python -m infra.scale train --env p5en-48` end to end, with AWS's clients stubbed where
    they are built: the block is checked first, and nothing is resized while it is not active."""
    import infra.scale as scale_module

    aws = Recorded(kubernetes)
    ec2 = client("ec2")
    ec2_stub = Stubber(ec2)
    ec2_stub.add_response(
        "describe_capacity_reservations",
        {"CapacityReservations": [{"CapacityReservationId": "cr-0123456789abcdef0", "State": block_state,
                                   "StartDate": datetime(2026, 12, 3, 11, 30, tzinfo=timezone.utc),
                                   "EndDate": datetime(2026, 12, 10, 11, 30, tzinfo=timezone.utc)}]},
        {"CapacityReservationIds": ["cr-0123456789abcdef0"]},
    )
    sixteen = {"minSize": 16, "maxSize": 16, "desiredSize": 16}
    if block_state == "active":
        aws.eks_stub.add_response("update_nodegroup_config", update("InProgress"),
                                  {"clusterName": CLUSTER, "nodegroupName": NODEGROUP, "scalingConfig": sixteen})
        aws.poll("Successful", nodegroup("ACTIVE"), [activity("Successful", "", 3)])
        kubernetes["nodes"] = [node(f"ip-10-0-1-{i}", True) for i in range(16)]
        # Once the nodes are Ready: the pool's scale-to-zero is scheduled on its Auto Scaling group.
        aws.eks_stub.add_response("describe_nodegroup", nodegroup("ACTIVE"),
                                  {"clusterName": CLUSTER, "nodegroupName": NODEGROUP})
        aws.asg_stub.add_response("put_scheduled_update_group_action", {}, {
            "AutoScalingGroupName": GROUP, "ScheduledActionName": "rl-capacity-block-end",
            "StartTime": datetime(2026, 12, 10, 10, 55, tzinfo=timezone.utc), "MinSize": 0, "DesiredCapacity": 0})
    monkeypatch.setattr(scale_module, "_aws_scaler", lambda region, cluster, group: (aws.scaler, ec2))
    outputs = tmp_path / "cdk-outputs.json"
    outputs.write_text(json.dumps({"MoeRl-p5en-48": {"ClusterName": CLUSTER, "TrainNodegroupName": NODEGROUP,
                                                     "RolloutNodegroupName": "r"}}))
    with ec2_stub, aws.eks_stub, aws.asg_stub:
        assert scale(["train", "--env", "p5en-48", "--outputs", str(outputs)]) == code
        aws.eks_stub.assert_no_pending_responses()
    err = capsys.readouterr().err
    if code == 0:
        assert "Capacity Block cr-0123456789abcdef0 is active until 2026-12-10T11:30:00+00:00" in err
        assert err.strip().splitlines()[-1].startswith(f"train: 16 nodes Ready in node group {NODEGROUP}")
        aws.asg_stub.assert_no_pending_responses()
        plan = scale_module.block_end_of(load_environment("p5en-48"), datetime(2026, 12, 10, 11, 30, tzinfo=timezone.utc))
        assert (f"train: scaled to 0 at 2026-12-10T10:55:00+00:00 (Auto Scaling scheduled action rl-capacity-block-end); "
                f"the trainer stops with a checkpoint at RL_STOP_AT={plan.stop_at.isoformat()}") in err
        # The stop time reaches the trainer's pods: a ConfigMap applied server-side in their namespace.
        (ns_path, ns_query, kind, _), (cm_path, _, _, config_map) = kubernetes["applied"]
        assert ns_path == "/api/v1/namespaces/rl" and ns_query["fieldManager"] == ["rl-scale"]
        assert kind == "application/apply-patch+yaml"
        assert cm_path == "/api/v1/namespaces/rl/configmaps/capacity-block"
        assert config_map["data"] == {"RL_STOP_AT": plan.stop_at.isoformat()}
    else:
        assert not kubernetes["applied"]
        assert err.strip() == ("error: pools.train: Capacity Block cr-0123456789abcdef0 is payment-pending (starts "
                               "2026-12-03T11:30:00+00:00); EC2 launches its instances only while it is active")


def test_an_autoscaled_pool_gets_bounds_and_keeps_the_autoscalers_size():
    """The rollout pool (autoscale: true): the file's min/max, or NODES as the ceiling; the
    desired size is the one the Cluster Autoscaler set, moved only into the new bounds."""
    rollout = load_environment("p5en-48").pools.rollout  # min 1, desired 32, max 32
    assert rollout.autoscale
    at = autoscaled_target
    assert at(rollout, None, 20).config == {"minSize": 1, "maxSize": 32, "desiredSize": 20}
    assert (at(rollout, None, 20).ready_at_least, at(rollout, None, 20).joined_at_most) == (1, 32)
    assert at(rollout, None, 0).config == {"minSize": 1, "maxSize": 32, "desiredSize": 1}
    assert at(rollout, 8, 20).config == {"minSize": 1, "maxSize": 8, "desiredSize": 8}
    # Empty: EKS takes no maxSize below 1; the wait is for every node to leave.
    empty = at(rollout, 0, 20)
    assert empty.config == {"minSize": 0, "maxSize": 1, "desiredSize": 0} and empty.joined_at_most == 0
    with pytest.raises(ScaleError, match="NODES=33: must be between 0 and the pool's max_size 32"):
        at(rollout, 33, 20)
    # The train pool keeps its exact size.
    train = load_environment("p5en-48").pools.train
    assert fixed_target(train, None).config == {"minSize": 16, "maxSize": 16, "desiredSize": 16}


def test_a_lowered_ceiling_waits_for_the_nodes_above_it_to_leave(kubernetes):
    aws = Recorded(kubernetes)
    config = {"minSize": 0, "maxSize": 2, "desiredSize": 2}
    aws.started(config)
    aws.poll("Successful", nodegroup("ACTIVE"), [])
    aws.poll("Successful", nodegroup("ACTIVE"), [])
    polls = iter([[node(f"ip-10-0-1-{i}", True) for i in range(4)], [node("ip-10-0-1-0", True), node("ip-10-0-1-1", True)]])
    original = aws.scaler.nodes.count
    aws.scaler.nodes.count = lambda group: (kubernetes.update(nodes=next(polls)), original(group))[1]
    aws.run(desired=0, config=config, joined_at_most=2)
    assert aws.clock.now == 20  # 4 joined above the ceiling of 2: one more poll


def test_make_scale_on_the_rollout_pool_sets_bounds_not_a_size(kubernetes, tmp_path, capsys, monkeypatch):
    """`python -m infra.scale rollout --env default` while the autoscaler holds 3 nodes: the
    update carries the file's bounds (0..4) and the autoscaler's 3, not the file's desired 2."""
    import infra.scale as scale_module

    aws = Recorded(kubernetes)
    aws.eks_stub.add_response("describe_nodegroup", nodegroup("ACTIVE", scaling={"minSize": 0, "maxSize": 4, "desiredSize": 3}),
                              {"clusterName": CLUSTER, "nodegroupName": NODEGROUP})
    aws.started({"minSize": 0, "maxSize": 4, "desiredSize": 3})
    aws.poll("Successful", nodegroup("ACTIVE"), [])
    kubernetes["nodes"] = [node(f"ip-10-0-2-{i}", True) for i in range(3)]
    monkeypatch.setattr(scale_module, "_aws_scaler", lambda region, cluster, group: (aws.scaler, None))
    outputs = tmp_path / "cdk-outputs.json"
    outputs.write_text(json.dumps({"MoeRl-default": {"ClusterName": CLUSTER, "TrainNodegroupName": "t",
                                                     "RolloutNodegroupName": NODEGROUP}}))
    with aws.eks_stub, aws.asg_stub:
        assert scale(["rollout", "--env", "default", "--outputs", str(outputs)]) == 0
        aws.eks_stub.assert_no_pending_responses()
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0] == "MoeRl-default: rollout autoscaled between 0 and 4 nodes (now 3); waiting up to 30 minutes for the bounds to hold"
    assert err[-1].startswith(f"rollout: node group {NODEGROUP} within 0..4 nodes; the Cluster Autoscaler sizes it from here")


def test_a_capacity_blocks_end_is_planned_from_its_end_date_and_the_modelled_checkpoint():
    """EC2's EndDate (DescribeCapacityReservations, Stubber) -> the pool scaled to zero 35
    minutes ahead (EKS: more than 30), the trainer told to stop ahead of that by the modelled
    time to finish its step and write its checkpoint (estimate/costs.py) plus its grace."""
    from estimate.checks import job_costs
    from estimate.costs import Timeouts
    from infra.capacity import schedule_scale_to_zero, stop_margin_s
    from infra.scale import block_end_of

    ec2 = client("ec2")
    end = datetime(2026, 12, 17, 11, 30, tzinfo=timezone.utc)
    with Stubber(ec2) as stub:
        stub.add_response("describe_capacity_reservations", {"CapacityReservations": [
            {"CapacityReservationId": "cr-0a1b2c3d4e5f60718", "State": "active", "EndDate": end,
             "StartDate": datetime(2026, 12, 10, 11, 30, tzinfo=timezone.utc)}]},
            {"CapacityReservationIds": ["cr-0a1b2c3d4e5f60718"]})
        found = datetime.fromisoformat(check_capacity_block(ec2, "train", "cr-0a1b2c3d4e5f60718"))
    environment = load_environment("p5en-48")
    plan = block_end_of(environment, found)
    costs = job_costs(environment)
    write = costs.checkpoint.stage_s + costs.checkpoint.write_s
    assert plan.end == end and plan.scale_to_zero_at == end - timedelta(minutes=35)
    # Room for the checkpoint being written, the final one and the pods' grace, in whole minutes.
    assert plan.margin_s == stop_margin_s(costs, Timeouts.from_costs(costs).grace_s)
    assert plan.margin_s >= 2 * write + Timeouts.from_costs(costs).grace_s and plan.margin_s % 60 == 0
    assert plan.stop_at == plan.scale_to_zero_at - timedelta(seconds=plan.margin_s) < plan.scale_to_zero_at < end
    # Every group of the node group gets the same action (replaced on the next block's `make scale`).
    autoscaling = client("autoscaling")
    with Stubber(autoscaling) as stub:
        for group in ("eks-train-a", "eks-train-b"):
            stub.add_response("put_scheduled_update_group_action", {}, {
                "AutoScalingGroupName": group, "ScheduledActionName": "rl-capacity-block-end",
                "StartTime": plan.scale_to_zero_at, "MinSize": 0, "DesiredCapacity": 0})
        schedule_scale_to_zero(autoscaling, ["eks-train-a", "eks-train-b"], plan)
        stub.assert_no_pending_responses()
