# The one payload image: trainer, rollout servers (SGLang, or the embedded engine), rollout
# workers, verifiers. One image, not two targets: the trainer's NCCL communicators and the
# rollout servers' meet in the weight-update group, and DeepEP's buffers are built against one
# torch; both sides must load the same torch, NCCL and DeepEP, so they come from one place.
#
# Base: SGLang's own CUDA 13 image of the pinned release (payload/job.py images.sglang; a test
# holds them equal). It carries what sglang 0.5.23's wheel pins and SGLang tests together:
# torch 2.14.1 (CUDA 13, NCCL 2.30.7 from nvidia-nccl-cu13), sgl-deep-ep 0.1.2.post1 (DeepEP
# v2's ElasticBuffer, which payload/ep/deepep.py uses too), flashinfer 0.7.2, transformers
# 5.19.0. AWS's SGLang Deep Learning Containers lag SGLang releases; instead of basing on
# one, this reproduces their EFA layer on SGLang's image: the EFA installer in container mode
# (no kernel module: the host's driver serves the pod) with its bundled aws-ofi-nccl.
#
#   make image   (docker buildx, pushes to the ECR repository in cdk-outputs.json)
FROM lmsysorg/sglang:v0.5.23-cu130

# EFA installer 1.50.0: libfabric 2.6.0amzn1.0 and aws-ofi-nccl 1.21.1 (installed in
# /opt/amazon/ofi-nccl), the pair NCCL's GPU-initiated networking (DeepEP v2 internode) needs.
# --skip-kmod: the kernel module is the host's (the EKS GPU AMI); --skip-limit-conf: limits
# come from the container runtime; --no-verify: the tarball comes over TLS from AWS.
ARG EFA_INSTALLER_VERSION=1.50.0
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
# hadolint ignore=DL3003,DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends curl ca-certificates \
    && curl -fsSL "https://efa-installer.amazonaws.com/aws-efa-installer-${EFA_INSTALLER_VERSION}.tar.gz" \
        | tar -xz -C /tmp \
    && cd /tmp/aws-efa-installer \
    && ./efa_installer.sh -y --skip-kmod --skip-limit-conf --no-verify \
    && rm -rf /tmp/aws-efa-installer /var/lib/apt/lists/* \
    && test -e /opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so

# NCCL finds the plugin on the library path; libfabric uses EFA. The payload's start-up check
# (payload/common/efa.py) pins NCCL_NET to the plugin's network in every EFA pod, so no
# communicator can fall back to TCP sockets; NCCL logs warnings only.
ENV LD_LIBRARY_PATH=/opt/amazon/ofi-nccl/lib:/opt/amazon/efa/lib:${LD_LIBRARY_PATH} \
    PATH=/opt/amazon/efa/bin:${PATH} \
    FI_PROVIDER=efa \
    NCCL_DEBUG=WARN

WORKDIR /opt/rl

# The payload's runtime dependencies that the SGLang image lacks, at the versions
# requirements.txt pins; the rest (torch, transformers, fastapi, uvicorn, httpx, pydantic,
# prometheus_client, safetensors, PyYAML) are SGLang's own and stay as SGLang pins them.
# requirements.txt as a whole is the CPU development environment: its torch would replace
# the one SGLang's kernels are compiled against, and it carries the CDK/cdk8s tooling.
COPY requirements.txt /tmp/requirements.txt
RUN grep -iE '^(msgpack|math-verify|latex2sympy2_extended|antlr4-python3-runtime|redis)==' /tmp/requirements.txt \
        > /tmp/runtime.txt \
    && pip install --no-cache-dir -r /tmp/runtime.txt \
    && rm /tmp/requirements.txt /tmp/runtime.txt

COPY payload /opt/rl/payload
ENV PYTHONPATH=/opt/rl \
    PYTHONUNBUFFERED=1

# Non-root, as the pod security context requires (k8s/pods.py runs every container as a high UID).
USER 10001
ENTRYPOINT ["python", "-m", "payload"]
