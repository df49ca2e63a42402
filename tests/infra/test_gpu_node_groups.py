"""The p5en launch templates: instance type, 16 EFA interfaces, placement, capacity, IMDSv2, NodeConfig."""

import base64

import pytest

from tests.infra.environments import STAND_IN_RESERVATION
from estimate.checks import load_environment


def launch_template(synth, pool):
    return synth.one("AWS::EC2::LaunchTemplate", f"/{pool.title()}Nodes/")[1]["Properties"]["LaunchTemplateData"]


def user_data(data) -> str:
    """The launch template's user data as the node reads it: the artifacts bucket's Ref, the one
    token in it (the GPU nodes' GDRCopy source), rendered as BUCKET."""
    body = data["UserData"]["Fn::Base64"]
    if isinstance(body, str):
        return body
    separator, parts = body["Fn::Join"]
    assert all(isinstance(part, str) or set(part) == {"Ref"} for part in parts), parts
    return separator.join(part if isinstance(part, str) else BUCKET for part in parts)


BUCKET = "moe-rl-artifacts-bucket"


def shell_scripts(text: str) -> list[str]:
    # Parsed with the standard library's MIME parser (what cloud-init splits user data with).
    import email

    message = email.message_from_string(text)
    return [part.get_payload() for part in message.walk() if part.get_content_type() == "text/x-shellscript"]


def nodegroup(synth, pool):
    return synth.one("AWS::EKS::Nodegroup", f"/{pool.title()}Nodes/")[1]["Properties"]


@pytest.mark.parametrize("pool", ["train", "rollout"])
def test_sixteen_efa_interfaces_card_zero_carries_ena(seed, pool):
    nics = launch_template(seed, pool)["NetworkInterfaces"]
    layout = sorted((n["NetworkCardIndex"], n["DeviceIndex"], n["InterfaceType"]) for n in nics)
    assert layout == [(0, 0, "interface"), (0, 1, "efa-only")] + [(card, 0, "efa-only") for card in range(1, 16)]
    efa_sg = seed.one("AWS::EC2::SecurityGroup", "/Efa/")[0]
    for nic in nics:
        assert {"Fn::GetAtt": [efa_sg, "GroupId"]} in nic["Groups"]
        assert len(nic["Groups"]) == 2  # EFA group + the cluster security group


@pytest.mark.parametrize("pool", ["train", "rollout"])
def test_instance_type_lives_in_launch_template_not_nodegroup(seed, pool):
    assert launch_template(seed, pool)["InstanceType"] == "p5en.48xlarge"
    props = nodegroup(seed, pool)
    assert "InstanceTypes" not in props
    assert props["AmiType"] == "AL2023_x86_64_NVIDIA"


def test_imdsv2_required_and_encrypted_root(default):
    data = launch_template(default, "train")
    assert data["MetadataOptions"]["HttpTokens"] == "required"
    # Hop limit 1: a pod outside the host network (the trainer, SGLang) cannot reach IMDS.
    assert data["MetadataOptions"]["HttpPutResponseHopLimit"] == 1
    ebs = data["BlockDeviceMappings"][0]["Ebs"]
    assert ebs["Encrypted"] is True and ebs["VolumeSize"] == load_environment("default").pools.train.root_volume_gib


@pytest.mark.parametrize("pool", ["train", "rollout"])
def test_gpu_root_volumes_hold_the_os_not_the_images(synthesized, pool):
    """containerd, kubelet and pod logs are on the NVMe RAID0 the NodeConfig asks for; the root
    volume is sized for the AMI and logs only, in both shipped environments."""
    from spec.environment import ROOT_VOLUME_BESIDE_NVME_GIB

    for synth in synthesized.values():
        data = launch_template(synth, pool)
        assert data["BlockDeviceMappings"][0]["Ebs"]["VolumeSize"] == ROOT_VOLUME_BESIDE_NVME_GIB == 100
        assert "strategy: RAID0" in user_data(data)


def test_no_placement_group_on_the_capacity_block_pool(seed):
    """p5en-48's train pool is a Capacity Block: no placement group; its on-demand rollout pool keeps one."""
    assert "Placement" not in launch_template(seed, "train")
    assert "InstanceMarketOptions" in launch_template(seed, "train")
    (pg_id,) = seed.resources("AWS::EC2::PlacementGroup")
    assert launch_template(seed, "rollout")["Placement"] == {"GroupName": {"Ref": pg_id}}


def test_cluster_placement_group_only_where_configured(default):
    groups = default.resources("AWS::EC2::PlacementGroup")
    assert [g["Properties"]["Strategy"] for g in groups.values()] == ["cluster"]
    (pg_id,) = groups
    assert launch_template(default, "train")["Placement"] == {"GroupName": {"Ref": pg_id}}
    assert "Placement" not in launch_template(default, "rollout")  # default.yaml: rollout without one


def test_capacity_block_settings(seed):
    data = launch_template(seed, "train")
    assert data["InstanceMarketOptions"] == {"MarketType": "capacity-block"}
    assert data["CapacityReservationSpecification"] == {
        "CapacityReservationTarget": {"CapacityReservationId": STAND_IN_RESERVATION}
    }
    assert nodegroup(seed, "train")["CapacityType"] == "CAPACITY_BLOCK"
    assert "InstanceMarketOptions" not in launch_template(seed, "rollout")
    assert nodegroup(seed, "rollout")["CapacityType"] == "ON_DEMAND"


def test_nvme_raid0_and_hugepages_in_user_data(default):
    text = user_data(launch_template(default, "train"))
    assert "application/node.eks.aws" in text and "strategy: RAID0" in text
    assert "vm.nr_hugepages" in text


def test_gpu_taint_and_pool_label(default):
    props = nodegroup(default, "train")
    assert {"Effect": "NO_SCHEDULE", "Key": "nvidia.com/gpu", "Value": "true"} in props["Taints"]
    assert props["Labels"]["rl.aws/pool"] == "train"
    # Created empty; `make scale` sizes it (test_capacity.py).
    # Created empty; `make scale` sizes it (test_capacity.py).
    assert props["ScalingConfig"] == {"MinSize": 0, "DesiredSize": 0, "MaxSize": 2}


def test_efa_gpu_pools_load_gdrdrv_at_boot(default, tmp_path):
    import subprocess

    from infra.gpu_node_group import GDRCOPY_SOURCE_SHA256, GDRCOPY_VERSION, gdrcopy_source_key

    [gdrdrv] = [s for s in shell_scripts(user_data(launch_template(default, "train"))) if "gdrdrv" in s]
    # GDRCopy's source from the environment's own bucket, pinned; nothing from the internet.
    assert f"source=s3://{BUCKET}/{gdrcopy_source_key(GDRCOPY_VERSION)}\n" in gdrdrv
    assert f"sha256={GDRCOPY_SOURCE_SHA256}\n" in gdrdrv
    assert "https://" not in gdrdrv and "curl" not in gdrdrv
    # Built against the loaded driver's own nv-p2p.h; GDRCopy's insmod.sh loads it at every boot.
    assert 'driver=$(cat "$root/sys/module/nvidia/version")' in gdrdrv
    assert f"ExecStart=/opt/gdrcopy-{GDRCOPY_VERSION}/insmod.sh" in gdrdrv
    script = tmp_path / "gdrdrv.sh"
    script.write_text(gdrdrv)
    syntax = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert syntax.returncode == 0, syntax.stderr
