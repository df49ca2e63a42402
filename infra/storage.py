"""Where weights, checkpoints, datasets and the image live.

- FSx for Lustre PERSISTENT_2 in the node zone: the trainer's DCP checkpoints and the HF
  exports the rollout servers load (hundreds of GB read by dozens of nodes at once).
- S3: datasets and exported checkpoints that outlive the cluster (encrypted, TLS-only,
  versioned, access-logged).
- ECR: the payload image, immutable tags (the job config pins tags; they must not move).

Getting data onto the cluster: data repository associations link `/fsx/models` and
`/fsx/datasets` to `s3://<bucket>/models/` and `s3://<bucket>/datasets/`. Objects written to
S3 (`aws s3 cp`) appear in the file system within seconds (auto-import of new, changed and
deleted objects); their bytes are fetched from S3 on first read (lazy import) and served from
Lustre afterwards. Sizes: Qwen3-235B-A22B in bf16 is ~470 GB; the first read moves it at the
file system's throughput (1.2 TiB x 250 MB/s/TiB = 300 MB/s: ~26 min; 4.8 TiB: ~7 min), every
later read (32 rollout nodes, restarts) comes from Lustre. Preload a model before the job
starts with `lfs hsm_restore` (README.md).

Protecting checkpoints: FSx backs up only file systems not linked to a data repository (FSx API
Reference, CreateBackup), and the two associations above are the data path, so the file system
takes no backups. Instead `/fsx/checkpoints` is associated with `s3://<bucket>/checkpoints/`
export-only: every file the trainer closes there (DCP shards, `.metadata`, HF exports) is copied
to S3 by the file servers in the background, and a rotated-out checkpoint's deletion follows
(S3 then mirrors the last keep_last + 1; versioning keeps a deleted one for a day). The
trainer's write rate does not depend on S3: FSx exports "asynchronously once your application
finishes modifying the file" (FSx API Reference, AutoExportPolicy). At the seed's largest job
(Qwen3-235B-A22B on 16 nodes, estimate/costs.py): a 2,821 GB checkpoint plus a 470 GB HF
export every checkpoint interval, read back by the export at the file system's 14.06 GB/s
(14400 GiB x 1000 MB/s/TiB) in ~234 s of file-server time, well inside a 50-step interval; S3
holds (keep_last + 1) x 3.29 TB = 13.2 TB.

Encryption at rest with customer managed KMS keys (rotated yearly), one per store so each key
policy names only its own users: the file system's, the bucket's (which FSx's S3 service-linked
role may use through S3, for the data repository associations' imports and exports, as FSx's
guide requires for an SSE-KMS bucket) and the image repository's. Principals of the account use
them as their IAM policies allow (the key policy's default). The access-log bucket stays
SSE-S3: S3 server access logging cannot deliver to an SSE-KMS bucket.
"""

from __future__ import annotations

from aws_cdk import Aws, Duration, RemovalPolicy, aws_ec2 as ec2, aws_ecr as ecr, aws_fsx as fsx, aws_iam as iam, aws_kms as kms, aws_s3 as s3
from constructs import Construct

from spec.environment import Environment
from infra.network import Network

# Lustre: 988 for the LNet service, 1018-1023 for client connections.
LUSTRE_PORTS = (ec2.Port.tcp(988), ec2.Port.tcp_range(1018, 1023))
# File system path (mounted under /fsx in pods) -> prefix of the artifacts bucket: read from S3.
DATA_REPOSITORIES = {"/models": "models/", "/datasets": "datasets/"}
# Written on Lustre by the trainer (job.checkpoint.directory /fsx/checkpoints), exported to S3.
CHECKPOINT_REPOSITORY = ("/checkpoints", "checkpoints/")
# Sources the nodes build from at boot, staged by `make node-sources` (GDRCopy's, for gdrdrv:
# infra/gpu_node_group.py); the node role may read this prefix only.
NODE_SOURCES_PREFIX = "node-sources/"
# A checkpoint deleted on Lustre (rotation, or by mistake) stays in S3 this long as a noncurrent version.
DELETED_CHECKPOINT_DAYS = 1
# FSx API Reference, CreateFileSystem: 2.15 "is recommended for all new file systems"; a
# PERSISTENT_2 file system without a metadata configuration would default to 2.12. An existing
# 2.12 file system is upgraded in place (UpdateFileSystem takes a newer FileSystemTypeVersion).
LUSTRE_VERSION = "2.15"

# The role FSx creates to move data between a file system and its S3 data repositories.
FSX_S3_ROLE = "role/aws-service-role/s3.data-source.lustre.fsx.amazonaws.com/AWSServiceRoleForFSxS3Access_*"


def customer_key(scope: Construct, id: str, description: str) -> kms.Key:
    return kms.Key(scope, id, description=description, enable_key_rotation=True, removal_policy=RemovalPolicy.RETAIN)


class Storage(Construct):
    def __init__(self, scope: Construct, id: str, *, environment: Environment, network: Network) -> None:
        super().__init__(scope, id)
        vpc = network.vpc
        self.fsx_key = customer_key(self, "FsxKey", "FSx for Lustre: checkpoints, exports, imported models and data")
        self.bucket_key = customer_key(self, "BucketKey", "S3 artifacts bucket: models and datasets")
        self.image_key = customer_key(self, "ImageKey", "ECR: the payload image")
        # For the data repository associations: only through S3, only FSx's S3 role of this account.
        self.bucket_key.add_to_resource_policy(
            iam.PolicyStatement(
                sid="FsxDataRepositoriesThroughS3",
                principals=[iam.AnyPrincipal()],
                actions=["kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:DescribeKey"],
                resources=["*"],
                conditions={
                    "StringEquals": {"kms:CallerAccount": Aws.ACCOUNT_ID, "kms:ViaService": f"s3.{Aws.REGION}.amazonaws.com"},
                    "ArnLike": {"aws:PrincipalArn": f"arn:{Aws.PARTITION}:iam::{Aws.ACCOUNT_ID}:{FSX_S3_ROLE}"},
                },
            )
        )
        self.fsx_security_group = ec2.SecurityGroup(
            self, "FsxSecurityGroup", vpc=vpc, description="FSx for Lustre: Lustre ports from the VPC", allow_all_outbound=False
        )
        for port in LUSTRE_PORTS:
            self.fsx_security_group.add_ingress_rule(ec2.Peer.ipv4(environment.vpc_cidr), port, "Lustre clients")
            self.fsx_security_group.add_egress_rule(ec2.Peer.ipv4(environment.vpc_cidr), port, "Lustre peers")
        node_subnet = vpc.select_subnets(
            subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS, availability_zones=[environment.availability_zone]
        ).subnet_ids[0]
        self.file_system = fsx.CfnFileSystem(
            self,
            "Lustre",
            file_system_type="LUSTRE",
            file_system_type_version=LUSTRE_VERSION,
            storage_capacity=environment.storage.fsx_storage_gib,
            storage_type="SSD",
            kms_key_id=self.fsx_key.key_id,
            subnet_ids=[node_subnet],
            security_group_ids=[self.fsx_security_group.security_group_id],
            lustre_configuration=fsx.CfnFileSystem.LustreConfigurationProperty(
                deployment_type="PERSISTENT_2",
                per_unit_storage_throughput=environment.storage.fsx_throughput_mb_s_per_tib,
                data_compression_type="LZ4",
                # No backups: FSx refuses them on a file system linked to S3 (module docstring).
                automatic_backup_retention_days=0,
            ),
        )
        self.file_system.apply_removal_policy(RemovalPolicy.RETAIN)

        self.access_logs = s3.Bucket(
            self,
            "AccessLogs",
            encryption=s3.BucketEncryption.S3_MANAGED,
            enforce_ssl=True,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            lifecycle_rules=[s3.LifecycleRule(expiration=Duration.days(90))],
            removal_policy=RemovalPolicy.RETAIN,
        )
        self.bucket = s3.Bucket(
            self,
            "Artifacts",
            encryption=s3.BucketEncryption.KMS,
            encryption_key=self.bucket_key,
            # One data key per bucket, not per object: KMS calls (and cost) stay flat as FSx imports.
            bucket_key_enabled=True,
            enforce_ssl=True,
            versioned=True,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            server_access_logs_bucket=self.access_logs,
            server_access_logs_prefix="artifacts/",
            lifecycle_rules=[
                s3.LifecycleRule(noncurrent_version_expiration=Duration.days(30)),
                # Rotated-out checkpoints are terabytes each: keep them only briefly.
                s3.LifecycleRule(
                    prefix=CHECKPOINT_REPOSITORY[1], noncurrent_version_expiration=Duration.days(DELETED_CHECKPOINT_DAYS)
                ),
            ],
            removal_policy=RemovalPolicy.RETAIN,
        )
        # Metadata of what is already in S3 is imported at creation; bytes on first read.
        imports = fsx.CfnDataRepositoryAssociation.S3Property(
            auto_import_policy=fsx.CfnDataRepositoryAssociation.AutoImportPolicyProperty(events=["NEW", "CHANGED", "DELETED"])
        )
        self.associations: list[fsx.CfnDataRepositoryAssociation] = [
            self._associate(f"Repository{path.strip('/').title()}", path, prefix, imports, import_metadata=True)
            for path, prefix in DATA_REPOSITORIES.items()
        ]
        # Export only: the trainer is the one writer, nothing is read back from S3 here.
        exports = fsx.CfnDataRepositoryAssociation.S3Property(
            auto_export_policy=fsx.CfnDataRepositoryAssociation.AutoExportPolicyProperty(events=["NEW", "CHANGED", "DELETED"])
        )
        self.associations.append(
            self._associate("RepositoryCheckpoints", *CHECKPOINT_REPOSITORY, exports, import_metadata=False)
        )
        # One after another, never in parallel: CloudFormation starts a resource only once its
        # DependsOn are complete, so each waits for the previous one to be AVAILABLE (a first
        # deploy takes a few minutes longer). Two or more created at once on one file system have
        # been seen to fail with "Amazon FSx does not have the required permissions for the S3
        # bucket" (hashicorp/terraform-provider-aws#24678, labelled upstream: an FSx-side race, not
        # the provider's). A likely cause: FSx keeps its own event notifications on the bucket for
        # every association with an automatic policy, and the bucket has one notification
        # configuration that each association rewrites (FSx for Lustre guide, "Data repository
        # association lifecycle state": overlapping or modified notifications leave one
        # MISCONFIGURED). Nothing in the FSx documentation asks for parallel creation.
        for previous, association in zip(self.associations, self.associations[1:]):
            association.add_dependency(previous)
        self.repository = ecr.Repository(
            self,
            "PayloadImage",
            image_tag_mutability=ecr.TagMutability.IMMUTABLE,
            image_scan_on_push=True,
            encryption=ecr.RepositoryEncryption.KMS,
            encryption_key=self.image_key,
            lifecycle_rules=[ecr.LifecycleRule(max_image_count=50)],
            removal_policy=RemovalPolicy.RETAIN,
        )

    def _associate(self, id: str, path: str, prefix: str, policy: fsx.CfnDataRepositoryAssociation.S3Property,
                   *, import_metadata: bool) -> fsx.CfnDataRepositoryAssociation:
        """Links the file system path (mounted under /fsx) with a prefix of the artifacts bucket."""
        return fsx.CfnDataRepositoryAssociation(
            self,
            id,
            file_system_id=self.file_system.ref,
            file_system_path=path,
            data_repository_path=f"s3://{self.bucket.bucket_name}/{prefix}",
            batch_import_meta_data_on_create=import_metadata,
            s3=policy,
        )


def grant_node_sources(storage: Storage, node_role: iam.IRole) -> None:
    """The nodes read NODE_SOURCES_PREFIX at boot, and nothing else of the bucket: GetObject on
    that prefix, and the bucket key's Decrypt only when S3 asks for it (SSE-KMS objects)."""
    node_role.add_to_principal_policy(
        iam.PolicyStatement(actions=["s3:GetObject"], resources=[storage.bucket.arn_for_objects(f"{NODE_SOURCES_PREFIX}*")])
    )
    node_role.add_to_principal_policy(
        iam.PolicyStatement(
            actions=["kms:Decrypt"],
            resources=[storage.bucket_key.key_arn],
            conditions={"StringEquals": {"kms:ViaService": f"s3.{Aws.REGION}.amazonaws.com"}},
        )
    )
