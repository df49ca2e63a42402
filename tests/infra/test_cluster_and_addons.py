"""Control plane, add-ons (versions from infra/versions.py), storage, outputs (identity and
encryption keys: test_least_privilege.py)."""

import json

from infra import versions
from estimate.checks import load_environment


def cluster_config(synth) -> dict:
    (cluster,) = synth.resources("AWS::EKS::Cluster").values()
    return cluster["Properties"]


def test_kms_secrets_encryption_and_all_control_plane_logs(default):
    props = cluster_config(default)
    key_id, key = default.one("AWS::KMS::Key", "/Eks/SecretsKey/")
    assert props["EncryptionConfig"] == [{"Provider": {"KeyArn": {"Fn::GetAtt": [key_id, "Arn"]}}, "Resources": ["secrets"]}]
    assert key["Properties"]["EnableKeyRotation"] is True
    logged = {entry["Type"] for entry in props["Logging"]["ClusterLogging"]["EnabledTypes"]}
    assert logged == {"api", "audit", "authenticator", "controllerManager", "scheduler"}
    assert props["AccessConfig"]["AuthenticationMode"] == "API"
    assert props["Version"] == "1.33"


def test_eks_addons_pinned(default):
    addons = {a["Properties"]["AddonName"]: a["Properties"] for a in default.resources("AWS::EKS::Addon").values()}
    assert {name: a["AddonVersion"] for name, a in addons.items()} == versions.eks_addons("1.33")
    assert json.loads(addons["vpc-cni"]["ConfigurationValues"]) == {"enableNetworkPolicy": "true"}
    assert addons["aws-ebs-csi-driver"]["PodIdentityAssociations"][0]["ServiceAccount"] == "ebs-csi-controller-sa"


def test_helm_charts_pinned_and_gpu_plugins_only_on_gpu_nodes(default):
    charts = {c["Properties"]["Chart"].rsplit("/", 1)[-1]: c["Properties"]
              for c in default.resources("Custom::AWSCDK-EKS-HelmChart").values()}
    expected = [versions.NVIDIA_DEVICE_PLUGIN, versions.EFA_DEVICE_PLUGIN, versions.DCGM_EXPORTER, versions.FSX_CSI_DRIVER,
                versions.JOBSET, versions.LEADER_WORKER_SET, versions.KUBE_PROMETHEUS_STACK]
    assert {name: charts[name]["Version"] for _, name, _ in expected} == {name: v for _, name, v in expected}
    for plugin in ("nvidia-device-plugin", "aws-efa-k8s-device-plugin", "dcgm-exporter"):
        values = json.loads(charts[plugin]["Values"])
        assert values["tolerations"][0]["key"] == "nvidia.com/gpu"
        # The NVIDIA chart's own affinity (nvidia.com/gpu.present=true) is kept, not replaced.
        assert "affinity" not in values
    efa_selector = json.loads(charts["aws-efa-k8s-device-plugin"]["Values"])["nodeSelector"]
    assert json.loads(charts["dcgm-exporter"]["Values"])["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
    # Every node those selectors pick carries the label: the GPU node groups, and only they.
    groups = {ng["Properties"]["Labels"]["rl.aws/pool"]: ng["Properties"]["Labels"]
              for ng in default.resources("AWS::EKS::Nodegroup").values()}
    for pool, labels in groups.items():
        gpu = pool in ("train", "rollout")
        assert (labels.get("nvidia.com/gpu.present") == "true") == gpu, pool
        assert (efa_selector.items() <= labels.items()) == gpu, pool


def test_fsx_lustre_persistent_2_in_the_node_zone(default):
    (fs,) = default.resources("AWS::FSx::FileSystem").values()
    props = fs["Properties"]
    assert props["LustreConfiguration"]["DeploymentType"] == "PERSISTENT_2"
    # AWS's recommended Lustre version (PERSISTENT_2 would default to 2.12).
    assert props["FileSystemTypeVersion"] == "2.15"
    # Linked to S3, so no backups (FSx refuses them on such a file system).
    assert props["LustreConfiguration"]["AutomaticBackupRetentionDays"] == 0
    assert "DailyAutomaticBackupStartTime" not in props["LustreConfiguration"]
    # Sized for the job's Qwen3-30B-A3B checkpoints (environments/default.yaml, estimate/costs.py).
    assert props["StorageCapacity"] == 2400
    assert props["LustreConfiguration"]["PerUnitStorageThroughput"] == 500
    subnet = default.template["Resources"][props["SubnetIds"][0]["Ref"]]
    assert subnet["Properties"]["AvailabilityZone"] == "us-east-2a"


def test_fsx_models_and_datasets_linked_to_the_bucket_with_auto_import(default):
    (fs_id,) = default.resources("AWS::FSx::FileSystem")
    bucket_id, _ = default.one("AWS::S3::Bucket", "/Storage/Artifacts/")
    associations = {a["Properties"]["FileSystemPath"]: a["Properties"]
                    for a in default.resources("AWS::FSx::DataRepositoryAssociation").values()}
    assert set(associations) == {"/models", "/datasets", "/checkpoints"}
    for path, props in associations.items():
        if path == "/checkpoints":
            continue
        assert props["FileSystemId"] == {"Ref": fs_id}
        assert props["DataRepositoryPath"] == {"Fn::Join": ["", ["s3://", {"Ref": bucket_id}, f"{path}/"]]}
        assert props["BatchImportMetaDataOnCreate"] is True
        assert sorted(props["S3"]["AutoImportPolicy"]["Events"]) == ["CHANGED", "DELETED", "NEW"]
        assert "AutoExportPolicy" not in props["S3"]


def test_checkpoints_protected_by_export_to_s3_not_backups(default):
    """The trainer's checkpoints and HF exports reach S3 (export only) and rotate out there with
    them; a deleted checkpoint stays a day as a noncurrent version."""
    from infra.storage import CHECKPOINT_REPOSITORY
    from k8s.pods import FSX_MOUNT
    from spec.job import CheckpointSection

    bucket_id, bucket = default.one("AWS::S3::Bucket", "/Storage/Artifacts/")
    (checkpoints,) = [a["Properties"] for a in default.resources("AWS::FSx::DataRepositoryAssociation").values()
                      if a["Properties"]["FileSystemPath"] == "/checkpoints"]
    assert checkpoints["DataRepositoryPath"] == {"Fn::Join": ["", ["s3://", {"Ref": bucket_id}, "/checkpoints/"]]}
    assert sorted(checkpoints["S3"]["AutoExportPolicy"]["Events"]) == ["CHANGED", "DELETED", "NEW"]
    assert "AutoImportPolicy" not in checkpoints["S3"] and checkpoints["BatchImportMetaDataOnCreate"] is False
    # The association covers where the trainer writes by default.
    assert CheckpointSection().directory == FSX_MOUNT + CHECKPOINT_REPOSITORY[0]
    rules = bucket["Properties"]["LifecycleConfiguration"]["Rules"]
    assert {"Prefix": "checkpoints/", "NoncurrentVersionExpiration": {"NoncurrentDays": 1}, "Status": "Enabled"}.items() <= \
        next(r for r in rules if r.get("Prefix") == "checkpoints/").items()


def test_dcgm_exporter_reads_the_monitoring_agents_host_engine(default):
    """One DCGM engine per GPU node: the exporter is a client (-r) of the node monitoring
    agent's nv-hostengine on the node's IP, and needs no SYS_ADMIN for an engine of its own."""
    from cluster.monitoring import DCGM_COUNTERS_FILE, HOSTENGINE_PORT

    values = chart_values(default, "dcgm-exporter")
    assert values["arguments"] == ["-f", DCGM_COUNTERS_FILE, "-r", f"$(NODE_IP):{HOSTENGINE_PORT}"] == \
        ["-f", "/etc/dcgm-exporter/default-counters.csv", "-r", "$(NODE_IP):5555"]
    assert values["extraEnv"] == [{"name": "NODE_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.hostIP"}}}]
    assert values["securityContext"]["capabilities"] == {"add": [], "drop": ["ALL"]}
    addons = {a["Properties"]["AddonName"]: a["Properties"] for a in default.resources("AWS::EKS::Addon").values()}
    # The engine's owner runs it on the tainted GPU nodes: its dcgm-server tolerates every GPU pool's taints.
    tolerations = json.loads(addons["eks-node-monitoring-agent"]["ConfigurationValues"])["dcgmAgent"]["tolerations"]
    for pool in ("train", "rollout"):
        for taint in getattr(load_environment("default").pools, pool).taints:
            assert any(t["key"] == taint.key and t["operator"] == "Exists" and t["effect"] == taint.effect
                       for t in tolerations), (pool, taint)
    # The exporter's DCGM is the agent's: both 4.5.2 (chart 4.8.1's image 4.5.2-4.8.1).
    assert versions.DCGM_EXPORTER[2] == "4.8.1" and versions.eks_addons("1.33")["eks-node-monitoring-agent"] == "v1.6.4-eksbuild.1"


def test_node_exporter_keeps_the_charts_filesystem_excludes(default):
    from infra.addons import EFA_TEXTFILE_DIR, NODE_EXPORTER_DEFAULT_ARGS

    args = chart_values(default, "kube-prometheus-stack")["prometheus-node-exporter"]["extraArgs"]
    assert args == [*NODE_EXPORTER_DEFAULT_ARGS, f"--collector.textfile.directory={EFA_TEXTFILE_DIR}"]
    mounts, types = NODE_EXPORTER_DEFAULT_ARGS
    assert mounts.startswith("--collector.filesystem.mount-points-exclude=") and "var/lib/kubelet/.+" in mounts
    assert "run/containerd/.+" in mounts
    assert types.startswith("--collector.filesystem.fs-types-exclude=") and "|overlay|" in types


def test_fsx_csi_driver_is_the_published_chart_with_its_controller_on_system_nodes(default):
    values = chart_values(default, "aws-fsx-csi-driver")
    assert values == {"controller": {"nodeSelector": {"rl.aws/pool": "system"}}}
    # No pod identity for its service accounts: static volumes need no FSx API calls.
    associations = [r["Properties"]["ServiceAccount"] for r in default.resources("AWS::EKS::PodIdentityAssociation").values()]
    assert not [sa for sa in associations if "fsx" in sa]
    addons = {a["Properties"]["AddonName"] for a in default.resources("AWS::EKS::Addon").values()}
    assert "aws-fsx-csi-driver" not in addons


def test_bucket_encrypted_versioned_tls_only(default):
    bucket_id, bucket = default.one("AWS::S3::Bucket", "/Storage/Artifacts/")
    props = bucket["Properties"]
    assert props["VersioningConfiguration"] == {"Status": "Enabled"}
    assert props["BucketEncryption"]["ServerSideEncryptionConfiguration"][0]["ServerSideEncryptionByDefault"]
    policies = [p["Properties"] for p in default.resources("AWS::S3::BucketPolicy").values()
                if p["Properties"]["Bucket"] == {"Ref": bucket_id}]
    statements = policies[0]["PolicyDocument"]["Statement"]
    assert any(s["Effect"] == "Deny" and s["Condition"] == {"Bool": {"aws:SecureTransport": "false"}} for s in statements)


def test_ecr_immutable_tags(default):
    (repo,) = default.resources("AWS::ECR::Repository").values()
    assert repo["Properties"]["ImageTagMutability"] == "IMMUTABLE"


def test_outputs_are_what_the_k8s_app_reads(synthesized):
    from cluster.outputs import required_keys
    from estimate.checks import load_environment

    for name, synth in synthesized.items():
        assert set(required_keys(load_environment(name))) <= set(synth.template["Outputs"])


def chart_values(synth, chart: str) -> dict:
    for resource in synth.resources("Custom::AWSCDK-EKS-HelmChart").values():
        if resource["Properties"]["Chart"].rsplit("/", 1)[-1] == chart:
            return json.loads(resource["Properties"]["Values"])
    raise AssertionError(f"no chart {chart}")


def test_node_monitoring_agent_feeds_auto_repair(default):
    addons = {a["Properties"]["AddonName"] for a in default.resources("AWS::EKS::Addon").values()}
    assert "eks-node-monitoring-agent" in addons
    for nodegroup in default.resources("AWS::EKS::Nodegroup").values():
        assert nodegroup["Properties"]["NodeRepairConfig"] == {"Enabled": True}


def test_prometheus_keeps_its_data_on_an_encrypted_gp3_volume(default):
    from infra.addons import PROMETHEUS_STORAGE_CLASS

    spec = chart_values(default, "kube-prometheus-stack")["prometheus"]["prometheusSpec"]
    claim = spec["storageSpec"]["volumeClaimTemplate"]["spec"]
    assert claim["storageClassName"] == PROMETHEUS_STORAGE_CLASS and claim["resources"]["requests"]["storage"] == "100Gi"
    assert spec["retention"] == "15d" and spec["retentionSize"] == "85GB"
    (manifest,) = [json.loads(m["Properties"]["Manifest"]) for m in default.resources("Custom::AWSCDK-EKS-KubernetesResource").values()
                   if PROMETHEUS_STORAGE_CLASS in m["Properties"]["Manifest"]]
    (storage_class,) = manifest
    assert storage_class["provisioner"] == "ebs.csi.aws.com"
    assert storage_class["parameters"] == {"type": "gp3", "encrypted": "true"}


def test_grafana_loads_dashboards_from_labelled_config_maps(default):
    from k8s.charts.monitoring import DASHBOARD_LABELS

    dashboards = chart_values(default, "kube-prometheus-stack")["grafana"]["sidecar"]["dashboards"]
    assert dashboards["enabled"] and dashboards["searchNamespace"] == "ALL"
    assert {dashboards["label"]: dashboards["labelValue"]} == DASHBOARD_LABELS


def test_node_exporter_sidecar_writes_efa_counters_prometheus_can_parse(default, tmp_path):
    """The sidecar's script, run once over a sysfs tree shaped like a p5en's, writes a textfile
    that Prometheus's own text parser reads back with the device and port of each counter."""
    import subprocess

    from prometheus_client.parser import text_string_to_metric_families

    from infra.addons import EFA_TEXTFILE_DIR
    from cluster.monitoring import efa_metric

    exporter = chart_values(default, "kube-prometheus-stack")["prometheus-node-exporter"]
    assert f"--collector.textfile.directory={EFA_TEXTFILE_DIR}" in exporter["extraArgs"]
    (sidecar,) = exporter["sidecars"]
    script = sidecar["command"][-1]
    for device, tx in (("rdmap79s0", 1_000_000), ("rdmap80s0", 2_500)):
        counters = tmp_path / "sys/class/infiniband" / device / "ports/1/hw_counters"
        counters.mkdir(parents=True)
        (counters / "tx_bytes").write_text(f"{tx}\n")
        (counters / "rx_bytes").write_text("7\n")
    out = tmp_path / "textfile"
    out.mkdir()
    once = script.replace("/host/sys", str(tmp_path / "sys")).replace(EFA_TEXTFILE_DIR, str(out)).replace("sleep 15", "exit 0")
    subprocess.run(["sh", "-c", once], check=True, timeout=10)
    samples = {(s.name, s.labels["device"]): s.value
               for family in text_string_to_metric_families((out / "efa.prom").read_text()) for s in family.samples}
    assert samples == {
        (efa_metric("tx_bytes"), "rdmap79s0"): 1_000_000, (efa_metric("tx_bytes"), "rdmap80s0"): 2_500,
        (efa_metric("rx_bytes"), "rdmap79s0"): 7, (efa_metric("rx_bytes"), "rdmap80s0"): 7,
    }


def test_the_nvidia_device_plugin_hands_gdrcopy_to_gpu_containers(default):
    # Chart 0.18's gdrcopyEnabled: NVIDIA_GDRCOPY=enabled in every GPU container's allocation
    # (internal/plugin/server.go), for which the NVIDIA container runtime mounts /dev/gdrdrv.
    assert chart_values(default, "nvidia-device-plugin")["gdrcopyEnabled"] is True

