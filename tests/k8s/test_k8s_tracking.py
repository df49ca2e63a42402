"""The MLflow tracking server in dist/ (k8s/charts/tracking.py): the server on the cpu pool under
the service account its Pod Identity role is bound to, PostgreSQL on the memory pool with a gp3
volume and the operator's password Secret, the trainer pointed at it, and reachable only from
the trainer (the database only from the server)."""

import ipaddress

from cluster.identities import TRACKING_SERVICE_ACCOUNT
from cluster.network import artifacts_endpoint_subnet
from k8s.charts.base import GP3_STORAGE_CLASS
from k8s.charts.tracking import DB_SECRET, tracking_url


def test_server_on_cpu_with_its_identity_and_postgres_on_memory_with_a_volume(synthed):
    server = synthed.one("Deployment", "mlflow")["spec"]["template"]["spec"]
    assert server["serviceAccountName"] == TRACKING_SERVICE_ACCOUNT
    assert server["nodeSelector"]["rl.aws/pool"] == "cpu"
    [container] = server["containers"]
    command = container["command"]
    assert command[:2] == ["mlflow", "server"]
    backend = command[command.index("--backend-store-uri") + 1]
    assert backend == "postgresql://mlflow@mlflow-db:5432/mlflow"  # no password in dist/
    assert command[command.index("--artifacts-destination") + 1].startswith("s3://") and "--serve-artifacts" in command
    env = {e["name"]: e for e in container["env"]}
    assert env["PGPASSWORD"]["valueFrom"]["secretKeyRef"]["name"] == DB_SECRET

    database = synthed.one("StatefulSet", "mlflow-db")["spec"]
    assert database["template"]["spec"]["nodeSelector"]["rl.aws/pool"] == "memory"
    [claim] = database["volumeClaimTemplates"]
    assert claim["spec"]["storageClassName"] == GP3_STORAGE_CLASS
    [postgres] = database["template"]["spec"]["containers"]
    secrets = [v["secret"]["secretName"] for v in database["template"]["spec"]["volumes"] if "secret" in v]
    assert secrets == [DB_SECRET] and "POSTGRES_PASSWORD_FILE" in {e["name"] for e in postgres["env"]}


def test_only_the_trainer_reaches_the_server_and_only_the_server_the_database(synthed):
    policies = {p["metadata"]["name"]: p["spec"] for p in synthed.kind("NetworkPolicy")}
    server_from = [peer["podSelector"]["matchLabels"]["app.kubernetes.io/name"]
                   for rule in policies["allow-mlflow"]["ingress"] for peer in rule["from"]]
    assert server_from == ["trainer"]
    database_from = [peer["podSelector"]["matchLabels"]["app.kubernetes.io/name"]
                     for rule in policies["allow-mlflow-db"]["ingress"] for peer in rule["from"]]
    assert database_from == ["mlflow"]
    assert policies["allow-mlflow-db"]["policyTypes"] == ["Ingress"]  # no egress at all (default deny)
    trainer_to = [peer.get("podSelector", {}).get("matchLabels", {}).get("app.kubernetes.io/name")
                  for rule in policies["allow-trainer"]["egress"] for peer in rule["to"]]
    assert "mlflow" in trainer_to
    # Only the server leaves the cluster: to its S3 interface endpoint's /28 on 443 (the subnet
    # infra/tracking.py creates for it alone: tests/infra/test_tracking.py) and to the Pod
    # Identity agent; and its S3 client is pointed at that endpoint.
    outside = [(peer["ipBlock"]["cidr"], [p["port"] for p in rule["ports"]])
               for name, spec in policies.items() for rule in spec.get("egress", []) for peer in rule["to"]
               if "ipBlock" in peer]
    endpoint_subnet = artifacts_endpoint_subnet(synthed.environment.vpc_cidr)
    assert sorted(outside) == sorted([(endpoint_subnet, [443]), ("169.254.170.23/32", [80])])
    assert ipaddress.ip_network(endpoint_subnet).num_addresses == 16
    assert ipaddress.ip_network(endpoint_subnet).subnet_of(ipaddress.ip_network(synthed.environment.vpc_cidr))
    [server] = synthed.one("Deployment", "mlflow")["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e.get("value") for e in server["env"]}
    assert env["MLFLOW_S3_ENDPOINT_URL"] == f"https://bucket.vpce-placeholder-run-cdk-deploy.s3.{synthed.environment.region}.vpce.amazonaws.com"


def test_trainer_logs_to_the_cluster_server(synthed):
    [jobset] = synthed.kind("JobSet")
    pod = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    env = {e["name"]: e.get("value") for c in pod["containers"] for e in c.get("env", [])}
    assert env["MLFLOW_TRACKING_URI"] == tracking_url() == "http://mlflow.rl.svc:5000"


def test_the_servers_s3_requests_go_to_its_endpoints_host(synthed):
    """The client mlflow's S3ArtifactRepository builds from MLFLOW_S3_ENDPOINT_URL (s3v4, addressing
    "auto": mlflow/store/artifact/s3_artifact_repo.py of 3.17.2) sends every call to the endpoint's
    own host, which its regional wildcard name covers: botocore (requirements.txt's pin; the image
    ships its own) forms the URL offline, signed for the environment's region."""
    from urllib.parse import urlsplit

    import boto3
    from botocore.client import Config

    [server] = synthed.one("Deployment", "mlflow")["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e.get("value") for e in server["env"]}
    client = boto3.client("s3", config=Config(signature_version="s3v4", s3={"addressing_style": "auto"}),
                          endpoint_url=env["MLFLOW_S3_ENDPOINT_URL"], region_name=env["AWS_REGION"],
                          aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="example")
    endpoint_host = urlsplit(env["MLFLOW_S3_ENDPOINT_URL"]).hostname
    assert endpoint_host.startswith("bucket.vpce-") and endpoint_host.endswith(f".s3.{synthed.environment.region}.vpce.amazonaws.com")
    for operation, params in [("put_object", {"Key": "mlflow/1/run/artifacts/a.txt"}),
                              ("get_object", {"Key": "mlflow/1/run/artifacts/a.txt"}),
                              ("list_objects_v2", {"Prefix": "mlflow/1/"})]:
        url = urlsplit(client.generate_presigned_url(operation, Params={"Bucket": "moe-rl-artifacts", **params}))
        assert url.hostname == endpoint_host, (operation, url)
        assert f"{synthed.environment.region}%2Fs3%2Faws4_request" in url.query
