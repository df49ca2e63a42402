# Two commands for a newcomer: `make synth` and `make test`. Everything else is set-up they
# never have to think about: a .venv from requirements.txt and node_modules from
# package-lock.json, each rebuilt only when its pin file changes, and redis-server. Each target
# sets up only what it uses: redis-server (system-wide) for `make test` alone, Node for the CDK
# and cdk8s targets, so `make manifests` or `make scale` run on a machine without apt-get or root.
SHELL := /bin/bash
ENV ?= default
VENV := .venv
PYTHON := $(VENV)/bin/python
STAMPS := .stamps
# `make test` spreads test files over up to 3 processes (pytest-xdist, one per core); most tests
# wait on servers, subprocesses and gloo worlds. tests/conftest.py keeps each file, and each
# directory built on one shared synth or tool venv, on one worker. PYTEST_PARALLEL= runs serially.
PYTEST_PARALLEL ?= -n auto --maxprocesses 3

# The variables below reach shell recipes unquoted: `make manifests 'ENV=default;touch /tmp/x'`
# must stop here, before any recipe runs. Checked on their raw text ($(value)), with blanks made
# visible first, since $(if) counts a value of spaces as empty.
PLAIN_CHARS := a b c d e f g h i j k l m n o p q r s t u v w x y z A B C D E F G H I J K L M N O P Q R S T U V W X Y Z \
	0 1 2 3 4 5 6 7 8 9 . _ -
empty :=
blank := $(empty) $(empty)
tab := $(empty)	$(empty)
define newline


endef
strip_chars = $(if $(2),$(call strip_chars,$(subst $(firstword $(2)),,$(1)),$(wordlist 2,$(words $(2)),$(2))),$(1))
not_plain = $(call strip_chars,$(subst $(newline),!,$(subst $(tab),!,$(subst $(blank),!,$(value $(1))))),$(PLAIN_CHARS))
$(foreach v,ENV POOL NODES TIMEOUT_MINUTES REWARD,$(if $(call not_plain,$(v)),$(error $(v)='$(value $(v))' is not a plain name: use letters, digits, '.', '_' and '-')))
$(if $(value ENV),,$(error ENV is empty: name an environment, e.g. ENV=default (environments/default.yaml)))

export PATH := $(CURDIR)/$(VENV)/bin:$(CURDIR)/node_modules/.bin:$(PATH)
# jsii prints an end-of-life banner on Node 20 on every call unless its major version is listed here.
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20
# Offline synth: never wait on the EC2 metadata service for credentials, never phone home.
export AWS_EC2_METADATA_DISABLED := true
export CDK_DISABLE_VERSION_CHECK := true
export CDK_DISABLE_CLI_TELEMETRY := true

.PHONY: check-pins setup python node redis-server synth infra deploy manifests image node-sources scale teardown test demo demo-plot docs clean

# What `make setup` (README) prepares; redis-server comes with `make test`, the one target using it.
setup: python node
python: $(STAMPS)/python
node: $(STAMPS)/node

# The versions README.md names, checked before anything is installed with an older one
# (Node 20 still runs the CLIs, with an end-of-life banner: the floor here, 22 the advice).
$(STAMPS)/python: requirements.txt
	@echo "setting up $(VENV) from requirements.txt"
	@test -x $(PYTHON) || python3 -c 'import sys; v = sys.version_info; sys.exit(None if v >= (3, 11) else f"error: python3 is {v.major}.{v.minor}.{v.micro}; this repository needs Python 3.11 or newer")'
	@test -x $(PYTHON) || python3 -m venv $(VENV)
	@$(PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@mkdir -p $(STAMPS) && touch $@

$(STAMPS)/node: package-lock.json
	@echo "installing the pinned aws-cdk and cdk8s CLIs (npm ci)"
	@command -v node >/dev/null || { echo "error: node is missing; this repository needs Node.js 22 or newer (with npm)" >&2; exit 2; }; node -e 'const v = process.versions.node; if (+v.split(".")[0] < 20) { console.error(`error: node is $${v}; this repository needs Node.js 22 or newer (20 still runs)`); process.exit(2) }'
	@npm ci --no-audit --no-fund --loglevel=error
	@mkdir -p $(STAMPS) && touch $@

# The queue and buffer tests run against a real Redis 7+ (its scripts use `#!lua flags`, 7.0) and
# are never skipped: install it where it is missing (apt-get, as root or through sudo; Homebrew on
# macOS). dnf's Amazon Linux 2023 has only redis6 (Redis 6.2, binary redis6-server): too old, so
# there the error names the commands that build one.
redis-server:
	@if ! command -v redis-server >/dev/null; then \
	  echo "installing redis-server (a real Redis for the queue and buffer tests)"; \
	  if command -v apt-get >/dev/null; then \
	    SUDO=$$([ "$$(id -u)" -eq 0 ] || echo sudo); \
	    { $$SUDO apt-get update -qq && \
	      $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; } || \
	    { echo "error: could not install redis-server: run sudo apt-get install -y redis-server" >&2; exit 2; }; \
	  elif command -v brew >/dev/null; then \
	    brew install redis; \
	  elif command -v dnf >/dev/null; then \
	    echo "error: redis-server is missing and dnf's redis6 is Redis 6.2, older than the 7.0 the tests need; build Redis 7+:" \
	      "sudo dnf install -y gcc make && curl -fsSL https://download.redis.io/redis-stable.tar.gz | tar xz &&" \
	      "make -C redis-stable && sudo make -C redis-stable install" >&2; \
	    exit 2; \
	  else \
	    echo "error: redis-server is missing and neither apt-get, brew nor dnf is here: install Redis 7 or newer" >&2; \
	    exit 2; \
	  fi; \
	fi

## make synth [ENV=name]: CloudFormation in cdk.out/ and Kubernetes manifests in dist/
synth: infra manifests

infra: python node
	@cdk synth --quiet -c env=$(ENV)
	@echo "CloudFormation for environment '$(ENV)' in cdk.out/"

## make deploy ENV=name [CDK_ARGS='--parameters AdminPrincipalArn=...']: synthesize, refuse (one line) a change
## to a GPU pool that has nodes (infra/deploy_guard.py), then deploy exactly that assembly. Needs AWS credentials.
deploy: infra
	@$(PYTHON) -m infra.deploy_guard --env $(ENV)
	@cdk deploy --app cdk.out --outputs-file cdk-outputs.json $(CDK_ARGS) MoeRl-$(ENV)

# The cdk8s app's entry point directly (what `npx cdk8s synth` runs, see cdk8s.yaml): the CLI
# would append a Node stack trace to the app's one-line errors.
manifests: python node
	@RL_ENV='$(ENV)' $(PYTHON) -m k8s.main
	@echo "Kubernetes manifests for environment '$(ENV)' in dist/"

## make image [ENV=name]: build the payload image (linux/amd64) from a clean checkout and push it to the ECR repository
## named in cdk-outputs.json, at the tag job.images.payload pins (`{commit}` in it: this commit). ECR's tags are
## immutable: a tag the repository already holds is refused before building. Needs docker buildx and AWS credentials.
image: python
	@set -euo pipefail; \
	ref=$$($(PYTHON) -m k8s.image $(ENV)); \
	registry=$${ref%%/*}; region=$$(echo "$$registry" | cut -d. -f4); \
	repository=$${ref#*/}; repository=$${repository%:*}; tag=$${ref##*:}; \
	if found=$$(aws ecr describe-images --region "$$region" --repository-name "$$repository" \
	    --image-ids imageTag="$$tag" --query 'imageDetails[0].imagePushedAt' --output text 2>&1); then \
	  echo "error: $$ref is already in ECR (pushed $$found) and its tags are immutable: set job.images.payload to" \
	    "\"{ecr}:{commit}\" (this commit, $$(git rev-parse --short=12 HEAD)) or a new tag in environments/$(ENV).yaml" >&2; exit 2; \
	elif ! grep -q ImageNotFoundException <<< "$$found"; then \
	  echo "error: aws ecr describe-images: $$found" >&2; exit 2; \
	fi; \
	aws ecr get-login-password --region "$$region" | docker login --username AWS --password-stdin "$$registry"; \
	docker buildx build --platform linux/amd64 --label org.opencontainers.image.revision=$$(git rev-parse HEAD) \
	  --tag "$$ref" --push .; \
	echo "pushed $$ref"

## make node-sources ENV=name: stage GDRCopy's release source in the environment's bucket, checked against the
## sha256 pinned in infra/gpu_node_group.py; the EFA GPU nodes build gdrdrv from it at boot (no internet at boot).
## Once per deployed environment and GDRCopy version, before `make scale`. Needs AWS credentials and curl.
node-sources: python node
	@set -euo pipefail; \
	read -r bucket region key sha version < <($(PYTHON) -c 'import json; \
	from infra.gpu_node_group import GDRCOPY_SOURCE_SHA256, GDRCOPY_VERSION, gdrcopy_source_key; \
	o = json.load(open("cdk-outputs.json"))["MoeRl-$(ENV)"]; \
	print(o["BucketName"], o["Region"], gdrcopy_source_key(), GDRCOPY_SOURCE_SHA256, GDRCOPY_VERSION)'); \
	tar=$$(mktemp); trap 'rm -f "$$tar"' EXIT; \
	curl -fsSL "https://github.com/NVIDIA/gdrcopy/archive/refs/tags/v$$version.tar.gz" | gzip -d > "$$tar"; \
	echo "$$sha  $$tar" | sha256sum --check --quiet -; \
	aws s3 cp --only-show-errors --region "$$region" "$$tar" "s3://$$bucket/$$key"; \
	echo "staged GDRCopy $$version at s3://$$bucket/$$key"

## make scale ENV=name POOL=train|rollout [NODES=n] [TIMEOUT_MINUTES=m]: size a GPU pool (created empty by cdk deploy)
## and wait until its nodes are Ready (30 minutes at most by default), or fail with the reason AWS recorded
scale: python
	@$(PYTHON) -m infra.scale $(POOL) --env $(ENV) $(if $(NODES),--nodes $(NODES)) $(if $(TIMEOUT_MINUTES),--timeout-minutes $(TIMEOUT_MINUTES))

## make teardown ENV=name: delete the environment (infra/teardown.py says why each step): refuse while a GPU pool has
## nodes; list what outlives the stack (FSx, buckets, ECR, KMS keys, the claims' EBS volumes) with its monthly cost
## and delete command into teardown-ENV.txt; delete the job's namespace; cdk destroy (asks first). Run it where
## kubectl reaches the cluster (README "Reaching the API"); needs AWS credentials.
teardown: infra
	@$(PYTHON) -m infra.teardown check --env $(ENV)
	@set -euo pipefail; volumes=$$(mktemp); trap 'rm -f "$$volumes"' EXIT; \
	kubectl get pv -o json > "$$volumes"; \
	$(PYTHON) -m infra.teardown retained --env $(ENV) --volumes "$$volumes"
	@kubectl delete namespace "$$($(PYTHON) -c 'from cluster.identities import WORKLOAD_NAMESPACE; print(WORKLOAD_NAMESPACE)')" \
	  --ignore-not-found --wait --timeout=15m
	@cdk destroy --app cdk.out MoeRl-$(ENV)
	@echo "MoeRl-$(ENV) deleted; still billed until you delete them: teardown-$(ENV).txt"

test: python node redis-server
	@$(PYTHON) -m pytest $(PYTEST_PARALLEL) --durations=20

## make check-pins: requirements.txt resolves on the public index for a user's machine (Linux x86_64, CPython
## 3.11: torch's CUDA build and the nvidia-* wheels it requires), whatever wheels this machine carries. A pip
## dry-run, --isolated (no local index, wheel store or constraints), reading PEP 658 metadata only: ~30 s,
## no wheel downloaded. CI runs it before `make test` (.ci/run).
MANYLINUX := $(foreach v,17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39,--platform manylinux_2_$(v)_x86_64)
check-pins: python
	@$(PYTHON) -m pip install --isolated --dry-run --ignore-installed --quiet --disable-pip-version-check \
	  --python-version 3.11 $(MANYLINUX) --platform manylinux2014_x86_64 --platform linux_x86_64 --platform any \
	  --only-binary=:all: --target $(STAMPS)/check-pins -r requirements.txt
	@echo "requirements.txt resolves on the public index for Linux x86_64, CPython 3.11"

## make demo [REWARD=model]: the whole RL loop (engine, queue, workers, EP=2 trainer) on this machine, a few
## minutes on 2 CPU cores; REWARD=model scores with a tiny reward model served on loopback (the reward tier's API)
REWARD ?= verifier
demo: python
	@$(PYTHON) -m payload local --reward $(REWARD)

## make demo-plot: regenerate docs/demo.png from a fresh default demo run (seed 0), so the README shows what the code produces
demo-plot: python
	@rm -rf out/demo-plot
	@$(PYTHON) -m payload local --seed 0 --no-progress --output out/demo-plot
	@cp out/demo-plot/reward.png docs/demo.png

## make docs: regenerate docs/configuration.md from the environment and job schemas (spec/environment.py,
## spec/job.py: each field's comment is its sentence); tests/spec/test_reference.py fails while it is stale
docs: python
	@$(PYTHON) -m spec.reference

clean:
	rm -rf cdk.out dist $(STAMPS)
