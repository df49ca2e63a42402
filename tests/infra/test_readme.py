"""The README's deploy steps name things that exist: the stack's parameter and outputs, the
make targets, the file and Secret the manifests expect."""

import re

from infra.cluster import ADMIN_PARAMETER
from infra.addons import GRAFANA_ADMIN_KEYS, GRAFANA_ADMIN_SECRET, MONITORING_NAMESPACE
from k8s.charts.router import ROUTER_ADMIN_SECRET
from k8s.charts.tracking import DB_SECRET
from k8s.pods import NAMESPACE, REDIS_SECRET
from tests.infra.environments import REPO


def runbook() -> str:
    """The deploy checklist: README's "Deploying for real" up to its reference paragraphs."""
    readme = (REPO / "README.md").read_text()
    return readme.split("## Deploying for real", 1)[1].split("**Cluster access.**", 1)[0]


def deploy_block() -> str:
    """Every command of the checklist, in order."""
    return "".join(re.findall(r"```bash\n(.*?)```", runbook(), re.S))


def test_deploy_steps_match_the_stack_and_the_manifests(default):
    block = deploy_block()
    assert f"--parameters {ADMIN_PARAMETER}=" in block
    keys = re.findall(r'"MoeRl-[\w-]+"\.(\w+)', block)
    assert keys
    for key in keys:
        assert key in default.template["Outputs"], key
    makefile = (REPO / "Makefile").read_text()
    for target in re.findall(r"^make (\w+)", block, re.M):
        assert re.search(rf"^{target}:", makefile, re.M), target
    assert "python -m payload redis-access --out redis-access/" in block
    assert f"kubectl -n {NAMESPACE} create secret generic {REDIS_SECRET} --from-file=redis-access/" in block
    # The tracking server's database password (k8s/charts/tracking.py reads key `password`).
    assert f"kubectl -n {NAMESPACE} create secret generic {DB_SECRET} --from-literal=password=" in block
    # The router's control-plane key (k8s/charts/router.py reads key `key`).
    assert f"kubectl -n {NAMESPACE} create secret generic {ROUTER_ADMIN_SECRET} --from-literal=key=" in block
    grafana = f"kubectl -n {MONITORING_NAMESPACE} create secret generic {GRAFANA_ADMIN_SECRET}"
    assert grafana in block
    assert all(f"--from-literal={GRAFANA_ADMIN_KEYS[k]}=" in block for k in ("userKey", "passwordKey"))
    # The namespace comes first: the Secret lives in it.
    assert block.index("dist/0000-base.k8s.yaml") < block.index("create secret") < block.rindex("-f dist/")


def test_the_first_manifest_file_holds_the_namespace(tmp_path):
    import yaml

    from k8s.main import synth

    synth("default", tmp_path / "absent.json", tmp_path / "dist")
    kinds = [doc["kind"] for doc in yaml.safe_load_all((tmp_path / "dist" / "0000-base.k8s.yaml").read_text()) if doc]
    assert kinds[0] == "Namespace"


def test_the_checklist_runs_in_order_and_ends_in_a_teardown():
    text = runbook()
    steps = [int(n) for n in re.findall(r"^\*\*(\d+)\. ", text, re.M)]
    assert steps == list(range(1, 12))
    block = deploy_block()
    order = ["make setup", "make deploy ENV=smoke", "aws eks update-kubeconfig", "make node-sources ENV=smoke",
             "make scale ENV=smoke POOL=train", "make image ENV=smoke", "make manifests ENV=smoke",
             "kubectl apply --server-side -f dist/0000-base.k8s.yaml", "kubectl apply --server-side -f dist/acceptance/",
             "kubectl delete -f dist/", "make scale ENV=smoke POOL=train NODES=0", "make teardown ENV=smoke"]
    positions = [block.index(command) for command in order]
    assert positions == sorted(positions), order
    # Never `npx cdk deploy` or `cdk destroy` directly: they skip the guards (make deploy, make teardown).
    assert "cdk deploy" not in block and "cdk destroy" not in block


def test_the_checklists_figures_are_the_codes(default):
    from estimate.checks import load_environment
    from infra.teardown import FSX_USD_PER_GB_MONTH, KMS_USD_PER_KEY_MONTH, ECR_USD_PER_GB_MONTH, retained_in_template
    from spec.hardware import INSTANCE_TYPES

    text = " ".join(runbook().split())
    vcpus = INSTANCE_TYPES["p5en.48xlarge"].vcpus
    smoke, seed = load_environment("smoke"), load_environment("p5en-48")
    assert (smoke.pools.train.max_size, smoke.pools.rollout.max_size) == (1, 1)  # the smallest EFA pair
    assert smoke.pools.train.efa and smoke.pools.rollout.efa
    assert f"one p5en.48xlarge is {vcpus} vCPUs" in text
    assert f"{2 * vcpus} for `smoke`" in text
    assert f"{seed.pools.rollout.max_size * vcpus:,} for `p5en-48`'s {seed.pools.rollout.max_size} on-demand rollout" in text
    storage = smoke.storage
    monthly = storage.fsx_storage_gib * 2 ** 30 / 1e9 * FSX_USD_PER_GB_MONTH[storage.fsx_throughput_mb_s_per_tib]
    assert (f"`smoke`'s {storage.fsx_storage_gib} GiB at {storage.fsx_throughput_mb_s_per_tib} MB/s/TiB: "
            f"~${round(monthly, -1):.0f} a month") in text
    keys = sum(kind == "AWS::KMS::Key" for kind in retained_in_template(default.template).values())
    assert f"{['no', 'one', 'two', 'three', 'four', 'five'][keys]} KMS keys (${KMS_USD_PER_KEY_MONTH:.0f} a key-month)" in text
    assert f"(${ECR_USD_PER_GB_MONTH:.2f} per GB-month of images)" in text
