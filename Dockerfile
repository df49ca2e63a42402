# The one payload image: trainer, rollout servers (SGLang, or the embedded engine), rollout
# workers, verifiers. One image, not two targets: the trainer's NCCL communicators and the
# rollout servers' meet in the weight-update group, and DeepEP's buffers are built against one
# torch; both sides must load the same torch, NCCL and DeepEP, so they come from one place.
#
# Base: SGLang's own CUDA 13 image of the pinned release (spec/job.py images.sglang; a test
# holds them equal). It carries what sglang 0.5.23's wheel pins and SGLang tests together:
# torch 2.14.1 (CUDA 13; its wheel METADATA pins nvidia-nccl-cu13==2.30.7), sgl-deep-ep
# 0.1.2.post1 (DeepEP v2 2.1.0; its _C.so was built against NCCL < 2.31, where DeepEP requires
# the runtime NCCL to be that exact version), flashinfer 0.7.2, transformers 5.19.0.
#
# The stack DeepEP v2 over EFA needs (it asks NCCL for GIN contexts whenever it has more than
# one rank; tests/image/test_pins.py holds these pins coherent):
#   aws-ofi-nccl 1.21.1 (EFA installer 1.50.0; RELEASENOTES.md and doc/gin-getting-started.md
#     at tag v1.21.1): GIN needs NCCL >= 2.31.2 and GDRCopy >= 2.5; it dlopens "libgdrapi.so",
#     but only when compiled with GDRCopy's header (HAVE_GDRCOPY, m4/check_pkg_gdrcopy.m4), which
#     its Debian packaging does not ask for (contrib/debian-template: no gdrcopy build dependency,
#     no --with-gdrcopy). So the plugin is built here from that tag with gdrapi.h present, and
#     image/check-ofi-nccl-gdrcopy.sh proves the installed library is the GDRCopy build.
#   NCCL 2.31.2 (nvidia-nccl-cu13 on PyPI): the plugin's GIN minimum and the version its
#     1.21.x releases were tested with. It replaces torch's 2.30.7 in place (same libnccl.so.2
#     ABI; torch and SGLang load it through torch; `pip check` reports torch's == pin).
#   GDRCopy 2.5.2 user space (github.com/NVIDIA/gdrcopy tag v2.5.2, c91ad9f), the same version
#     as the gdrdrv module the GPU nodes build (infra/gpu_node_group.py).
#   NVSHMEM 3.4.5 (nvidia-nvshmem-cu13, torch 2.14.1's METADATA pin): DeepEP at DEEPEP_COMMIT
#     still links it (setup.py: libnvshmem_host, libnvshmem_device.a for its legacy v1 Buffer;
#     docs/nvshmem.md: 3.3.9 or later); v2's ElasticBuffer never initialises it.
#   DeepEP built here from deepseek-ai/DeepEP at DEEPEP_COMMIT (__version__ 2.1.0) against
#     exactly that NCCL; since NCCL 2.31 it sizes the device communicator from the runtime
#     (csrc/kernels/backend/nccl.cu). Its import-time check_nccl_so asserts that the only mapped
#     libnccl* is the file in find_nccl_root() (the pip NCCL above). Against sgl-deep-ep
#     0.1.2.post1 (built from sgl-project/DeepEP; the wheel SGLang 0.5.23 pins), the files both
#     ship under deep_ep/ are identical except (tests/image/test_deepep_sources.py):
#       deep_ep/__init__.py: the wheel prepends its CUDA-major prerequisites check, nothing else;
#       deep_ep/buffers/legacy.py: the wheel's v1 Buffer takes use_fabric (MNNVL fabric memory),
#         use_nvfp4 / x_global_scale (NVFP4 dispatch) and overlap / src_signals (combine overlap);
#       deep_ep/include/deep_ep/common/comm.cuh (JIT-compiled at run time): the wheel adds a
#         system-scope fence (ptx::fence_acq_rel_sys) in gin_barrier_wo_local_sync for the World
#         team, i.e. only when the scale-up domain is not NVLink (allow_hybrid_mode=False);
#     and the wheel alone has deep_ep/include/deep_ep/common/syscall.cuh (SYS_pidfd_open /
#     SYS_pidfd_getfd fallbacks for old glibc headers) plus its packaging files (_build_info.py,
#     prerequisites.py, envs.py); its _C.so is compiled from the fork's csrc, not comparable here.
#     Safe on H200 (p5en): SGLang passes use_fabric only where the GPU advertises MNNVL fabric
#     (GB200/GB300) and NVFP4 only for NVFP4 checkpoints (Blackwell), and this repo runs v2's
#     ElasticBuffer (elastic.py identical) only in hybrid mode (its default; SGLang's
#     --deepep-v2-mode hybrid), whose scale-up barrier is the NVLink one, not the World-team GIN
#     barrier that lacks the fence; this image's glibc headers define both pidfd syscalls.
#
# AWS's SGLang Deep Learning Containers lag SGLang releases; instead of basing on one, this
# reproduces their EFA layer on SGLang's image: the EFA installer in container mode (no kernel
# module: the host's driver serves the pod) with its bundled aws-ofi-nccl.
#
#   make image   (docker buildx, pushes to the ECR repository in cdk-outputs.json)
FROM lmsysorg/sglang:v0.5.23-cu130 AS base

# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends curl ca-certificates \
    && rm -rf /var/lib/apt/lists/*

ARG NCCL_VERSION=2.31.2
ARG NVSHMEM_VERSION=3.4.5
# torch's libnccl.so.2 is the pip package's, so upgrading the package upgrades every user.
# NVSHMEM at torch's own pin, named so that the DeepEP build below links a known version.
RUN pip install --no-cache-dir --no-deps "nvidia-nccl-cu13==${NCCL_VERSION}" "nvidia-nvshmem-cu13==${NVSHMEM_VERSION}"

# DeepEP against that NCCL. deep_ep/__init__.py at this commit has sha256
# 1fe6f5c78f868c079ff8628b31ed6120626e74e759fcd4b22ced3be41b1bf4ad; tests/payload/ep runs its
# check_nccl_so from sgl-deep-ep 0.1.2.post1, whose copy is byte-identical after the wheel's header.
# Its tests/ go into the image too (/opt/deepep/tests): the acceptance jobs run DeepEP's own
# tests/elastic/test_ep.py (sha256 below) of this commit, with no download at run time.
FROM base AS deepep-build
ARG DEEPEP_COMMIT=dd758caf451848bd150e1046af3d0a73e5fff38d
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
# hadolint ignore=DL3003
RUN curl -fsSL "https://github.com/deepseek-ai/DeepEP/archive/${DEEPEP_COMMIT}.tar.gz" | tar -xz -C /tmp \
    && cd "/tmp/DeepEP-${DEEPEP_COMMIT}" \
    && echo "1fe6f5c78f868c079ff8628b31ed6120626e74e759fcd4b22ced3be41b1bf4ad  deep_ep/__init__.py" | sha256sum -c \
    && echo "9d832494cbdd88a549c9411d24f99874ec329c7183ca3776c6d654554f41c706  tests/elastic/test_ep.py" | sha256sum -c \
    && TORCH_CUDA_ARCH_LIST=9.0 pip wheel --no-cache-dir --no-deps --no-build-isolation -w /wheels . \
    && mkdir -p /deepep \
    && cp -r tests /deepep/tests \
    && echo "${DEEPEP_COMMIT}" > /deepep/COMMIT

# The EFA layer, shared by the plugin build below and the final image.
FROM base AS efa

# EFA installer 1.50.0: libfabric 2.6.0amzn1.0 and aws-ofi-nccl 1.21.1 (installed in
# /opt/amazon/ofi-nccl), the pair NCCL's GPU-initiated networking (GIN, which DeepEP v2 uses) needs.
# --skip-kmod: the kernel module is the host's (the EKS GPU AMI); --skip-limit-conf: limits
# come from the container runtime; --no-verify: the tarball comes over TLS from AWS.
ARG EFA_INSTALLER_VERSION=1.50.0
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
# hadolint ignore=DL3003
RUN apt-get update \
    && curl -fsSL "https://efa-installer.amazonaws.com/aws-efa-installer-${EFA_INSTALLER_VERSION}.tar.gz" \
        | tar -xz -C /tmp \
    && cd /tmp/aws-efa-installer \
    && ./efa_installer.sh -y --skip-kmod --skip-limit-conf --no-verify \
    && rm -rf /tmp/aws-efa-installer /var/lib/apt/lists/* \
    && test -e /opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so

# GDRCopy's user library (libgdrapi.so, the name aws-ofi-nccl dlopens) and its headers
# (lib_install puts gdrapi.h in /usr/local/include, where the plugin build finds it); the gdrdrv
# kernel module is the host's, /dev/gdrdrv reaches the pod through the NVIDIA device plugin.
ARG GDRCOPY_VERSION=2.5.2
# hadolint ignore=DL3003
RUN curl -fsSL "https://github.com/NVIDIA/gdrcopy/archive/refs/tags/v${GDRCOPY_VERSION}.tar.gz" | tar -xz -C /tmp \
    && cd "/tmp/gdrcopy-${GDRCOPY_VERSION}" \
    && make prefix=/usr/local lib_install \
    && ldconfig \
    && rm -rf "/tmp/gdrcopy-${GDRCOPY_VERSION}" \
    && test -e /usr/local/lib/libgdrapi.so \
    && test -e /usr/local/include/gdrapi.h

# aws-ofi-nccl 1.21.1 (the installer's version, tag v1.21.1 = AWS_OFI_NCCL_COMMIT) built with
# GDRCopy, configured as its Debian packaging configures the installer's copy
# (contrib/debian-template/rules) plus --with-gdrcopy. --with-gdrcopy alone does not fail when
# gdrapi.h is missing (m4/check_pkg_gdrcopy.m4 then defines HAVE_GDRCOPY 0), so the generated
# config.h is checked for HAVE_GDRCOPY 1 and HAVE_DECL_GDR_PIN_BUFFER_V2 1 (GDRCopy >= 2.5).
# The sha256s are those two files at the tag, the source the check relies on.
FROM efa AS ofi-nccl-build
ARG AWS_OFI_NCCL_VERSION=1.21.1
ARG AWS_OFI_NCCL_COMMIT=2475c4c736907e68ebeadb3848f31231ee4a44d0
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
# hadolint ignore=DL3003,DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends autoconf automake libtool libhwloc-dev make g++ \
    && rm -rf /var/lib/apt/lists/* \
    && curl -fsSL "https://github.com/aws/aws-ofi-nccl/archive/${AWS_OFI_NCCL_COMMIT}.tar.gz" | tar -xz -C /tmp \
    && cd "/tmp/aws-ofi-nccl-${AWS_OFI_NCCL_COMMIT}" \
    && echo "44f114fb1cd521b4d280c7d64d3a2b83b9818c96819d78cc2403c0dd0c058483  m4/check_pkg_gdrcopy.m4" | sha256sum -c \
    && echo "fac75a6601bc8e2e7cdc423408851231835b5b12447ab8b13c063aaeaf979fd4  src/nccl_ofi_gdrcopy.cpp" | sha256sum -c \
    && echo "${AWS_OFI_NCCL_VERSION}" > .release_version \
    && ./autogen.sh \
    && ./configure --prefix=/opt/amazon/ofi-nccl --libdir=/opt/amazon/ofi-nccl/lib \
        --with-libfabric=/opt/amazon/efa --with-cuda=/usr/local/cuda --with-gdrcopy=/usr/local \
        --enable-platform-aws --enable-cudart-dynamic --disable-tests --without-lttng --without-valgrind \
        --disable-werror \
    && grep -qx '#define HAVE_GDRCOPY 1' include/config.h \
    && grep -qx '#define HAVE_DECL_GDR_PIN_BUFFER_V2 1' include/config.h \
    && make -j"$(nproc)" \
    && make install DESTDIR=/ofi-nccl

FROM efa

# DeepEP built against this image's NCCL replaces the wheel SGLang pins (same deep_ep package);
# its tests/ of the same commit for the acceptance jobs (payload/accept/cli.py DEEPEP_TESTS).
COPY --from=deepep-build /wheels /tmp/wheels
COPY --from=deepep-build /deepep /opt/deepep
RUN pip uninstall -y sgl-deep-ep \
    && pip install --no-cache-dir --no-deps /tmp/wheels/*.whl \
    && rm -rf /tmp/wheels

# NCCL finds the plugin on the library path; libfabric uses EFA. The payload's start-up check
# (payload/common/efa.py) pins NCCL_NET to the plugin's network in every EFA pod, so no
# communicator can fall back to TCP sockets; NCCL logs warnings only.
ENV LD_LIBRARY_PATH=/opt/amazon/ofi-nccl/lib:/opt/amazon/efa/lib:${LD_LIBRARY_PATH} \
    PATH=/opt/amazon/efa/bin:${PATH} \
    FI_PROVIDER=efa \
    NCCL_DEBUG=WARN

# The GDRCopy build of the plugin over the installer's copy (same paths and library names), then
# proof from the installed library itself, with the library path above (its libfabric.so.1):
# image/check-ofi-nccl-gdrcopy.sh says what it reads and why.
COPY --from=ofi-nccl-build /ofi-nccl/opt/amazon/ofi-nccl/ /opt/amazon/ofi-nccl/
COPY image/check-ofi-nccl-gdrcopy.sh /usr/local/bin/check-ofi-nccl-gdrcopy
RUN bash /usr/local/bin/check-ofi-nccl-gdrcopy /opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so

WORKDIR /opt/rl

# The payload's runtime dependencies that the SGLang image lacks, at the versions
# requirements.txt pins (tensorboardX for job.tracking.tensorboard, on the image's own protobuf
# when it has one that satisfies it); the rest (torch, transformers, fastapi, uvicorn, httpx, pydantic,
# prometheus_client, safetensors, PyYAML) are SGLang's own and stay as SGLang pins them.
# requirements.txt as a whole is the CPU development environment: its torch would replace
# the one SGLang's kernels are compiled against, and it carries the CDK/cdk8s tooling.
COPY requirements.txt /tmp/requirements.txt
RUN grep -iE '^(msgpack|math-verify|latex2sympy2_extended|antlr4-python3-runtime|redis|tensorboardX)==' /tmp/requirements.txt \
        > /tmp/runtime.txt \
    && pip install --no-cache-dir -r /tmp/runtime.txt \
    && rm /tmp/requirements.txt /tmp/runtime.txt

# The run's description, its estimators (`plan`, the trainer's own checks) and the processes;
# environments/ for `plan --env` and `data check --env` inside the image.
COPY spec /opt/rl/spec
COPY estimate /opt/rl/estimate
COPY payload /opt/rl/payload
COPY environments /opt/rl/environments
ENV PYTHONPATH=/opt/rl \
    PYTHONUNBUFFERED=1

# Non-root, as the pod security context requires (k8s/pods.py runs every container as a high UID).
USER 10001
ENTRYPOINT ["python", "-m", "payload"]
