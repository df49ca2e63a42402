"""The README's deploy steps name things that exist: the stack's parameter and outputs, the
make targets, the file and Secret the manifests expect."""

import re

from infra.cluster import ADMIN_PARAMETER
from infra.addons import GRAFANA_ADMIN_KEYS, GRAFANA_ADMIN_SECRET, MONITORING_NAMESPACE
from k8s.charts.router import ROUTER_ADMIN_SECRET
from k8s.charts.tracking import DB_SECRET
from k8s.pods import NAMESPACE, REDIS_SECRET
from tests.infra.environments import REPO


def deploy_block() -> str:
    readme = (REPO / "README.md").read_text()
    section = readme.split("## Deploying for real", 1)[1]
    return re.search(r"```bash\n(.*?)```", section, re.S).group(1)


def test_deploy_steps_match_the_stack_and_the_manifests(default):
    block = deploy_block()
    assert f"--parameters {ADMIN_PARAMETER}=" in block
    for key in re.findall(r'"MoeRl-p5en-48"\.(\w+)', block):
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
