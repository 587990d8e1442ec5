# The two commands that do everything: `make run` and `make test`.
# Each installs what is missing into $(VENV) first; all they need is Python
# 3.11 (or later), node and npm (the contract tests' TypeScript tools), and the package registries.

PY      ?= $(shell command -v python3.11 || command -v python3)
VENV    ?= .venv
BIN     := $(VENV)/bin
HOST    ?= 127.0.0.1
PORT    ?= 8000
WORKERS ?= 2
, := ,
# The environment is installed from lock files (exact versions, every file's hash; `make lock` writes them from
# pyproject.toml's ranges): requirements.lock, the runtime (`make run`, the image); requirements-dev.lock, the
# runtime and the development tools (`make test`), the same versions of what both hold.
LOCK     := requirements.lock
DEV_LOCK := requirements-dev.lock
# Stamps name the pyproject.toml and locks they installed, so a change to any of them reinstalls.
HASH    := $(shell cat pyproject.toml $(LOCK) $(DEV_LOCK) | cksum | cut -d' ' -f1)
RUNTIME := $(VENV)/.installed-run-$(HASH)
DEV     := $(VENV)/.installed-dev-$(HASH)
# The project itself, over what a lock installed: editable, with the lock's setuptools (no build isolation, which
# would fetch a setuptools of its own choosing).
PROJECT := $(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
# The TypeScript tools of tests/test_clients.py and Redocly's lint (clients/package-lock.json pins them); npm ci reinstalls on a change.
NODE    := clients/node_modules/.installed-$(shell cksum < clients/package-lock.json | cut -d' ' -f1)

.PHONY: run test install lock lint speclint typecheck hadolint docs browser unit container bench openapi golden clean

$(BIN)/python:
	@$(PY) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "Python 3.11 or later is needed (PY=$(PY))"; exit 1; }
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(RUNTIME): pyproject.toml $(LOCK) | $(BIN)/python
	$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK)
	$(PROJECT)
	touch $@

$(DEV): pyproject.toml $(DEV_LOCK) | $(BIN)/python
	$(BIN)/python -m pip install --quiet --require-hashes -r $(DEV_LOCK)
	$(PROJECT)
	touch $@ $(RUNTIME)

$(NODE): clients/package-lock.json
	cd clients && npm ci --no-audit --no-fund --loglevel=error
	touch $@

install: $(DEV) $(NODE)

## requirements.lock and requirements-dev.lock from pyproject.toml's ranges, by uv: the versions they pin already are
## kept unless UPGRADE says otherwise (UPGRADE=--upgrade: everything to the newest the ranges allow;
## UPGRADE='--upgrade-package flask': one).  Every file's hash of each version, for CPython 3.11 on x86_64 Linux:
## this machine and the image (Debian bookworm's Python 3.11).  docs/DEVELOPMENT.md ("Upgrading dependencies") says what follows.
LOCK_FOR := --python-version 3.11 --python-platform x86_64-unknown-linux-gnu --generate-hashes --custom-compile-command 'make lock'
lock: $(DEV)
	$(BIN)/uv pip compile --quiet pyproject.toml --extra dev $(LOCK_FOR) $(UPGRADE) -o $(DEV_LOCK)
	$(BIN)/uv pip compile --quiet pyproject.toml $(LOCK_FOR) -c $(DEV_LOCK) -o $(LOCK)

## Serve on $(HOST):$(PORT): gunicorn ('service:create_app()'), plus the embedded
## Redis (unless REDIS_URL is set) and the sweeper for managed matches (service/run/serve.py).
run: $(RUNTIME)
	HOST=$(HOST) PORT=$(PORT) WEB_CONCURRENCY=$(WORKERS) $(BIN)/python -m service.run.serve

## Everything CI checks: lint, the spec's lint, types, the Dockerfile, the manuals' site, the tests (the contract's, and
## the page's in headless Chromium), and the image and compose file run for real (make container).  Stops at the first failure.
test: lint speclint typecheck hadolint docs browser unit container

lint: $(DEV)
	$(BIN)/ruff check engine service views umpire tests bench examples
	$(BIN)/ruff format --check engine service views umpire tests bench examples

## openapi.yaml through Redocly CLI's lint (redocly.yaml: every recommended rule, as an error; pinned in clients/).
speclint: $(NODE)
	REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true clients/node_modules/.bin/redocly lint openapi.yaml --config redocly.yaml

typecheck: $(DEV)
	$(BIN)/mypy

hadolint: $(DEV)
	$(BIN)/hadolint Dockerfile container/nginx.Dockerfile

## The manuals of docs/ built as a site with MkDocs (mkdocs.yml) into build/site/; --strict: a link to a missing page
## or heading, or a page left out of the navigation, fails.
docs: $(DEV)
	$(BIN)/mkdocs build --strict --quiet

## The browser the page's tests drive (tests/browser): Debian's chromium and chromium-driver, and the nginx
## tests/test_proxy.py puts in front of the app (deploy/nginx.conf), installed when missing (as root, as CI
## runs).  Without them those tests fail; they never skip.
CHROMIUM ?= /usr/bin/chromium
browser:
	@[ -x $(CHROMIUM) ] && [ -x /usr/bin/chromedriver ] || apt-get install -y chromium chromium-driver || \
		{ apt-get update && apt-get install -y chromium chromium-driver; }
	@[ -x /usr/sbin/nginx ] || apt-get install -y nginx || { apt-get update && apt-get install -y nginx; }

# pytest's own exit status decides (1 failures, 2 interrupted, 5 no tests: all fail the build).
# It includes the contract tests: schemathesis against a real server, and clients generated from openapi.yaml.
# Then the managed-match suite once more, on a three-master Redis Cluster on loopback.
CLUSTER_SUITE := tests/matches/test_api.py tests/matches/test_clocks.py tests/matches/test_harness_api.py \
	tests/matches/test_retries.py tests/matches/test_whole_matches.py tests/matches/test_hot_path.py tests/matches/test_events.py \
	tests/matches/test_umpire_controls.py tests/matches/test_webhooks.py
unit: $(DEV) $(NODE)
	$(BIN)/python -m pytest -q
	MATCH_TESTS_CLUSTER=1 $(BIN)/python -m pytest -q $(CLUSTER_SUITE)

## The image built and run, and docker-compose.yml's cluster brought up, with podman (root, runc):
## container/test_container.py.  The base image is made once from the Debian archive (container/base.sh,
## a few minutes) and kept in podman's store; the image's layers are cached too, so a rerun takes about a minute.
BASE_IMAGE   ?= localhost/umpire-base:bookworm
UMPIRE_IMAGE ?= localhost/umpire:test
PROXY_IMAGE  ?= localhost/umpire-nginx:test
CA_BUNDLE    ?= /etc/ssl/certs/ca-certificates.crt
container: $(DEV)
	container/setup.sh
	BASE_IMAGE=$(BASE_IMAGE) container/base.sh
	podman build --quiet --format docker --build-arg BASE=$(BASE_IMAGE) $(if $(wildcard $(CA_BUNDLE)),--secret id=ca$(,)src=$(CA_BUNDLE)) -t $(UMPIRE_IMAGE) .
	podman build --quiet --format docker --build-arg BASE=$(BASE_IMAGE) -f container/nginx.Dockerfile -t $(PROXY_IMAGE) .
	BASE_IMAGE=$(BASE_IMAGE) UMPIRE_IMAGE=$(UMPIRE_IMAGE) PROXY_IMAGE=$(PROXY_IMAGE) PODMAN_COMPOSE=$(BIN)/podman-compose $(BIN)/python -m pytest -q -p no:cacheprovider container/test_container.py

## openapi.yaml from service/api/openapi.base.yaml and the games' declarations (a test fails when it drifts).
openapi: $(RUNTIME)
	$(BIN)/python -m service.api.openapi

bench: $(RUNTIME)
	$(BIN)/python -m bench

## Rewrite the golden pictures of tests/golden/ (tests/viewcases.py) after a change to views/; look at them before committing.
golden: $(DEV)
	$(BIN)/python tests/viewcases.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis data clients/node_modules
