"""A GPU node group: a managed node group on an EC2 launch template built for EFA.

Why a raw `CfnLaunchTemplate`:
- the instance type goes into the launch template, not the node group, because aws_eks_v2
  rejects p5en.48xlarge with the AL2023 NVIDIA AMI type when it is given to the node group;
- EFA needs one network interface per network card, which the L2 LaunchTemplate cannot express:
  card 0 carries the ENA interface (device 0) plus an efa-only interface (device 1), and every
  other card one efa-only interface (device 0). efa-only interfaces take no IP address, so a
  p5en node does not burn 16 VPC addresses on RDMA.
"""

from __future__ import annotations

import textwrap

from aws_cdk import Fn, Stack, aws_ec2 as ec2, aws_eks_v2 as eks, aws_iam as iam, aws_s3 as s3
from constructs import Construct

from spec.environment import POOL_LABEL, CapacityType, NodePool
from infra.node_autoscaler import GPU_LABEL, NODE_TEMPLATE_LABEL_TAG, NODE_TEMPLATE_RESOURCE_TAG
from infra.node_group import pool_props
from infra.storage import NODE_SOURCES_PREFIX
from cluster.placement import EFA_HUGEPAGES_GIB, GDRDRV_READY_LABEL

# Labels the device plugins select on: the NVIDIA device plugin chart's own affinity accepts
# nodes labelled nvidia.com/gpu.present=true (there is no node-feature-discovery here), and the
# EFA device plugin and the DCGM exporter are given these labels as their node selectors.
GPU_NODE_LABELS = {"nvidia.com/gpu.present": "true"}
EFA_NODE_LABELS = {"vpc.amazonaws.com/efa.present": "true"}
# Instance metadata hop limit 1, as on the cpu and memory pools (infra/node_group.py): a pod in
# its own network namespace is a second hop and gets no answer, so the trainer and the SGLang
# servers (model code, model output) cannot take the node role's credentials. Nothing on these
# nodes needs IMDS from a pod namespace: the daemons that read it (VPC CNI, kube-proxy, the Pod
# Identity agent, the FSx CSI node) use the host network; the EBS CSI node plugin falls back to
# the Kubernetes API; the NVIDIA and EFA device plugins and the DCGM exporter read devices and
# sysfs; add-ons with AWS permissions get them through Pod Identity, not the node role; the
# payload's pods need no AWS credentials at all (no payload role exists).
IMDS_HOP_LIMIT = 1
# 2 MiB pages outside any pod's request: the node's own libfabric users (EFA device plugin
# health checks, nccl-tests run by an operator on the host).
HUGEPAGES_HEADROOM_GIB = 1

# AL2023 nodeadm configuration merged with what EKS generates for the node group: RAID0 over
# all local NVMe instance-store volumes, mounted for containerd and kubelet (model weights,
# image layers, SGLang caches all land on NVMe instead of EBS).
NODE_CONFIG = textwrap.dedent(
    """\
    apiVersion: node.eks.aws/v1alpha1
    kind: NodeConfig
    spec:
      instance:
        localStorage:
          strategy: RAID0
    """
)
BOUNDARY = "==RLBOUNDARY=="


def hugepages_2mi(pods_per_node: int) -> int:
    """2 MiB huge pages a node pre-allocates: every EFA pod the charts place on it requests
    EFA_HUGEPAGES_GIB (libfabric bounce buffers, k8s/placement.py), plus headroom. With
    rollout tensor parallelism below a node's GPUs, several SGLang pods share a node."""
    return (pods_per_node * EFA_HUGEPAGES_GIB + HUGEPAGES_HEADROOM_GIB) * 1024 // 2


def node_template_tags(pool: NodePool, pods_per_node: int) -> dict[str, str]:
    """Node group tags that tell the Cluster Autoscaler what a node it has never seen offers
    beyond its instance type (infra/node_autoscaler.py): the EFA devices and the huge pages
    that the device plugin and kubelet advertise once the node has booted."""
    return {
        f"{NODE_TEMPLATE_RESOURCE_TAG}vpc.amazonaws.com/efa": str(pool.spec.efa_interfaces),
        f"{NODE_TEMPLATE_RESOURCE_TAG}hugepages-2Mi": f"{hugepages_2mi(pods_per_node) * 2}Mi",
        # Pods that need gdrdrv (DeepEP across nodes) select this label: a pending one may scale
        # the pool up only if the autoscaler expects new nodes to carry it (its boot script sets it).
        **{f"{NODE_TEMPLATE_LABEL_TAG}{key}": value for key, value in GDRDRV_READY_LABEL.items()},
    }


def hugepages_script(pages: int) -> str:
    # Runs before kubelet starts (nodeadm-run follows cloud-init), so kubelet advertises the pages.
    return textwrap.dedent(
        f"""\
        #!/bin/bash
        set -euo pipefail
        echo "vm.nr_hugepages = {pages}" > /etc/sysctl.d/90-hugepages.conf
        sysctl --load /etc/sysctl.d/90-hugepages.conf
        """
    )


# GDRCopy's kernel module, at the version of the user library in the image (Dockerfile
# GDRCOPY_VERSION; tests/image/test_pins.py holds them equal). aws-ofi-nccl 1.21.1's GIN (DeepEP
# v2 over EFA) needs GDRCopy >= 2.5, and the EKS AL2023 NVIDIA AMI installs no gdrdrv.
GDRCOPY_VERSION = "2.5.2"
# Nodes fetch nothing from the internet at boot, and neither the AMI's Amazon Linux repository
# nor any other repository reachable without internet egress ships gdrdrv (NVIDIA's CUDA
# repository, which the AMI configures, is on the internet). So GDRCopy's release source is
# staged once in the environment's bucket (`make node-sources`, README "GDRCopy on the GPU
# nodes"), read at boot through the VPC's S3 gateway endpoint and checked against this digest:
# the sha256 of the release's tar (github.com/NVIDIA/gdrcopy/archive/refs/tags/v2.5.2.tar.gz,
# decompressed; it is `git archive --prefix=gdrcopy-2.5.2/ v2.5.2` of the tag, commit c91ad9f1).
# The tar, not the .tar.gz: GitHub's gzip bytes are not promised to stay the same.
GDRCOPY_SOURCE_SHA256 = "6f40145575c975559d9d5a2ebf5d90cc654b87bb43715e911bad22607dc51ed9"
# Environment variable naming a root directory the boot script works under instead of /
# (tests run the shipped script against a fake root; on a node it is unset).
GDRDRV_ROOT_VARIABLE = "GDRDRV_ROOT"


def gdrcopy_source_key(version: str = GDRCOPY_VERSION) -> str:
    return f"{NODE_SOURCES_PREFIX}gdrcopy-{version}.tar"


def gdrdrv_script(bucket: str, region: str, version: str = GDRCOPY_VERSION) -> str:
    """Build gdrdrv for the running kernel and load it with /dev/gdrdrv, as GDRCopy's README and
    insmod.sh do, now and at every boot (a systemd unit after the AMI's nvidia-kmod-load.service:
    gdrdrv creates no udev node, so insmod.sh's mknod must run again). Only then does the node get
    GDRDRV_READY_LABEL: the script writes it as a kubelet flag in a nodeadm drop-in, which
    nodeadm-run.service (after cloud-final, where user data scripts run) merges into the node's
    configuration (amazon-eks-ami nodeadm/README.md; drop-ins since AMI release v20251023). Any
    failure is printed with the failing command to cloud-final's output (the journal, the console
    and /var/log/cloud-init-output.log) and leaves the node unlabelled; nodeadm still starts
    kubelet, so the node runs the pods that do not need gdrdrv.

    What the AMI leaves on the node (amazon-eks-ami templates/al2023/provisioners):
    - install-worker.sh installs the headers of the kernel it runs, `kernel-devel` on 6.1 (the
      Kubernetes 1.32 AMIs) and `kernel6.12-devel` on 6.12 (1.33, 1.34; 6.18: `kernel6.18`), and
      versionlocks `kernel*`. Only where /lib/modules/$(uname -r)/build is missing are they
      installed, at exactly the running kernel's release, from the Amazon Linux repository (in S3,
      reached through the gateway endpoint; the CUDA repository is left out).
    - install-nvidia-driver.sh deletes /usr/src/nvidia* after archiving each kmod with
      `dkms mktarball` (source included), and nvidia-kmod-load.sh restores the one it loads with
      `dkms ldtarball`: /usr/src/nvidia-open-<driver>/ on p5en (the open module), whose nvidia/
      holds the nv-p2p.h gdrdrv compiles against, at the loaded driver's exact version.
    - gcc and make come with dkms, which builds the EFA and NVIDIA modules."""
    label = ",".join(f"{key}={value}" for key, value in GDRDRV_READY_LABEL.items())
    return textwrap.dedent(
        f"""\
        #!/bin/bash
        set -euo pipefail
        root=${{{GDRDRV_ROOT_VARIABLE}:-}}
        version={version}
        source=s3://{bucket}/{gdrcopy_source_key(version)}
        sha256={GDRCOPY_SOURCE_SHA256}
        dropin=$root/etc/eks/nodeadm.d/90-gdrdrv.yaml
        fail() {{
          echo "gdrdrv: FAILED: $1. This node is not labelled {label}: no pod that needs /dev/gdrdrv (DeepEP across nodes) is scheduled here." >&2
          exit 1
        }}
        trap 'fail "line $LINENO: $BASH_COMMAND"' ERR
        rm -f "$dropin"
        systemctl start nvidia-kmod-load.service
        driver=$(cat "$root/sys/module/nvidia/version")
        kernel=$(uname -r)
        # install-worker.sh's naming: 6.1 is AL2023's default `kernel`, newer ones `kernel<major.minor>`.
        IFS=. read -r major minor _ <<< "$kernel"
        case $major.$minor in
          6.1) headers=kernel-devel ;;
          *) headers=kernel$major.$minor-devel ;;
        esac
        if [ ! -d "$root/lib/modules/$kernel/build" ]; then
          echo "gdrdrv: no headers for kernel $kernel on the AMI: installing $headers-$kernel" >&2
          dnf install -y --disablerepo='*' --enablerepo=amazonlinux "$headers-$kernel"
        fi
        [ -d "$root/lib/modules/$kernel/build" ] || fail "no kernel headers at /lib/modules/$kernel/build"
        command -v make >/dev/null && command -v gcc >/dev/null || fail "make and gcc are not installed"
        nvidia=
        for dir in "$root/usr/src/nvidia-open-$driver/nvidia" "$root/usr/src/nvidia-$driver/nvidia"; do
          if [ -f "$dir/nv-p2p.h" ]; then nvidia=$dir; break; fi
        done
        [ -n "$nvidia" ] || fail "no nv-p2p.h of NVIDIA driver $driver under /usr/src"
        work=$(mktemp -d)
        aws s3 cp --only-show-errors --region {region} "$source" "$work/gdrcopy.tar"
        echo "$sha256  $work/gdrcopy.tar" | sha256sum --check --quiet - || fail "$source is not GDRCopy $version's release source"
        rm -rf "$root/opt/gdrcopy-$version"
        mkdir -p "$root/opt"
        tar -xf "$work/gdrcopy.tar" -C "$root/opt"
        rm -rf "$work"
        make -C "$root/opt/gdrcopy-$version" driver KVER="$kernel" NVIDIA_SRC_DIR="$nvidia"
        mkdir -p "$root/etc/systemd/system"
        cat > "$root/etc/systemd/system/gdrdrv.service" <<'UNIT'
        [Unit]
        Description=GDRCopy gdrdrv and /dev/gdrdrv (NCCL GIN over EFA for DeepEP v2)
        After=nvidia-kmod-load.service
        Requires=nvidia-kmod-load.service
        Before=kubelet.service

        [Service]
        Type=oneshot
        RemainAfterExit=yes
        WorkingDirectory=/opt/gdrcopy-{version}
        ExecStart=/opt/gdrcopy-{version}/insmod.sh

        [Install]
        WantedBy=multi-user.target
        UNIT
        systemctl daemon-reload
        systemctl enable --now gdrdrv.service
        [ -c "$root/dev/gdrdrv" ] || fail "/dev/gdrdrv was not created"
        mkdir -p "$(dirname "$dropin")"
        cat > "$dropin" <<'NODECONFIG'
        apiVersion: node.eks.aws/v1alpha1
        kind: NodeConfig
        spec:
          kubelet:
            flags:
              - --node-labels={label}
        NODECONFIG
        echo "gdrdrv: loaded for kernel $kernel and NVIDIA driver $driver; kubelet labels this node {label}"
        """
    )


def user_data(hugepages: int, gdrdrv: str = "") -> str:
    """MIME multi-part user data as AL2023 nodeadm expects it; `gdrdrv` is gdrdrv_script()'s text."""
    parts = [("application/node.eks.aws", NODE_CONFIG)]
    if hugepages:
        parts.append(('text/x-shellscript; charset="us-ascii"', hugepages_script(hugepages)))
    if gdrdrv:
        parts.append(('text/x-shellscript; charset="us-ascii"', gdrdrv))
    body = "".join(f"--{BOUNDARY}\nContent-Type: {kind}\n\n{content}\n" for kind, content in parts)
    return f'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="{BOUNDARY}"\n\n{body}--{BOUNDARY}--\n'


def efa_network_interfaces(efa_interfaces: int, security_group_ids: list[str]) -> list[dict]:
    interfaces = [
        {"NetworkCardIndex": 0, "DeviceIndex": 0, "InterfaceType": "interface"},
        {"NetworkCardIndex": 0, "DeviceIndex": 1, "InterfaceType": "efa-only"},
    ] + [{"NetworkCardIndex": card, "DeviceIndex": 0, "InterfaceType": "efa-only"} for card in range(1, efa_interfaces)]
    return [
        ec2.CfnLaunchTemplate.NetworkInterfaceProperty(
            network_card_index=nic["NetworkCardIndex"],
            device_index=nic["DeviceIndex"],
            interface_type=nic["InterfaceType"],
            groups=security_group_ids,
            delete_on_termination=True,
        )
        for nic in interfaces
    ]


class GpuNodeGroup(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        name: str,
        pool: NodePool,
        cluster: eks.Cluster,
        subnets: ec2.SubnetSelection,
        node_role: iam.IRole,
        efa_security_group: ec2.ISecurityGroup,
        pods_per_node: int,
        node_sources: s3.IBucket,
    ) -> None:
        super().__init__(scope, id)
        security_group_ids = [cluster.cluster_security_group_id]
        if pool.efa:
            security_group_ids.append(efa_security_group.security_group_id)

        placement = None
        if pool.placement_group:
            self.placement_group = ec2.CfnPlacementGroup(self, "PlacementGroup", strategy="cluster")
            placement = ec2.CfnLaunchTemplate.PlacementProperty(group_name=self.placement_group.ref)

        reservation = None
        if pool.capacity_reservation_id:
            reservation = ec2.CfnLaunchTemplate.CapacityReservationSpecificationProperty(
                capacity_reservation_target=ec2.CfnLaunchTemplate.CapacityReservationTargetProperty(
                    capacity_reservation_id=pool.capacity_reservation_id
                )
            )
        market = None
        if pool.capacity_type is CapacityType.CAPACITY_BLOCK:
            market = ec2.CfnLaunchTemplate.InstanceMarketOptionsProperty(market_type="capacity-block")

        if pool.efa:
            network = {"network_interfaces": efa_network_interfaces(pool.spec.efa_interfaces, security_group_ids)}
        else:
            network = {"security_group_ids": security_group_ids}

        # The node role reads GDRCopy's staged source (gdrdrv_script; Stack grants it).
        gdrdrv = gdrdrv_script(node_sources.bucket_name, Stack.of(self).region) if pool.efa else ""
        self.launch_template = ec2.CfnLaunchTemplate(
            self,
            "LaunchTemplate",
            launch_template_data=ec2.CfnLaunchTemplate.LaunchTemplateDataProperty(
                instance_type=pool.instance_type,
                metadata_options=ec2.CfnLaunchTemplate.MetadataOptionsProperty(
                    http_tokens="required",
                    http_put_response_hop_limit=IMDS_HOP_LIMIT,
                ),
                block_device_mappings=[
                    ec2.CfnLaunchTemplate.BlockDeviceMappingProperty(
                        device_name="/dev/xvda",
                        ebs=ec2.CfnLaunchTemplate.EbsProperty(
                            volume_size=pool.root_volume_gib, volume_type="gp3", encrypted=True, delete_on_termination=True
                        ),
                    )
                ],
                placement=placement,
                capacity_reservation_specification=reservation,
                instance_market_options=market,
                user_data=Fn.base64(user_data(hugepages_2mi(pods_per_node) if pool.efa else 0, gdrdrv=gdrdrv)),
                tag_specifications=[
                    ec2.CfnLaunchTemplate.TagSpecificationProperty(
                        resource_type="instance", tags=[{"key": POOL_LABEL, "value": name}]
                    )
                ],
                **network,
            ),
        )
        self.nodegroup = eks.Nodegroup(
            self,
            "Nodegroup",
            cluster=cluster,
            ami_type=eks.NodegroupAmiType.AL2023_X86_64_NVIDIA,
            launch_template_spec=eks.LaunchTemplateSpec(
                id=self.launch_template.ref, version=self.launch_template.attr_latest_version_number
            ),
            subnets=subnets,
            node_role=node_role,
            # Replace GPU nodes one at a time: a training job cannot lose several at once.
            max_unavailable=1,
            # What the Cluster Autoscaler cannot learn from the instance type (infra/node_autoscaler.py).
            tags=node_template_tags(pool, pods_per_node) if pool.autoscale else None,
            **pool_props(
                name,
                pool,
                device_labels={**GPU_NODE_LABELS, **(EFA_NODE_LABELS if pool.efa else {}), **(GPU_LABEL if pool.autoscale else {})},
                # Created empty: a capacity or quota miss then fails `make scale`, not the stack
                # (and a Capacity Block node group must be at 0 to be created before the block
                # starts, and to be upgraded). README: "Scaling the GPU pools". `make deploy`
                # (infra/deploy_guard.py) refuses to change the group while it has nodes.
                created_empty=True,
            ),
        )
