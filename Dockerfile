# The one payload image: trainer, rollout servers (SGLang, or the embedded engine), rollout
# workers, verifiers. Built on SGLang's own CUDA image so the server, its kernels and torch are
# the combination SGLang ships and tests; the tag must equal payload/job.py's images.sglang
# (a test checks it).
#
#   docker build -t <ecr-repository>:<tag> .        (needs a local Docker engine)
FROM lmsysorg/sglang:v0.5.6-cu129

WORKDIR /opt/rl

# DeepEP for the trainer's expert-parallel all-to-all (payload.ep's deepep backend) and
# SGLang's --moe-a2a-backend deepep.
RUN pip install --no-cache-dir sgl-deep-ep==0.1.2.post1

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
