# The two commands that do everything: `make run` and `make test`.
PY      ?= python3
VENV    ?= .venv
BIN     := $(VENV)/bin
HOST    ?= 127.0.0.1
PORT    ?= 8000
STAMP   := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: run test lint typecheck hadolint unit bench install clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

## Serve on $(HOST):$(PORT) with gunicorn (embedded Redis unless REDIS_URL is set).
run: $(STAMP)
	HOST=$(HOST) PORT=$(PORT) $(BIN)/python -m service.serve

## Everything CI checks: lint, types, Dockerfile, tests.
test: $(STAMP) lint typecheck hadolint unit

lint: $(STAMP)
	$(BIN)/ruff check engine service tests bench
	$(BIN)/ruff format --check engine service tests bench

typecheck: $(STAMP)
	$(BIN)/mypy

hadolint: $(STAMP)
	$(BIN)/hadolint Dockerfile

unit: $(STAMP)
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis data
