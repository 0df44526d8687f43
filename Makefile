# Two commands matter: `make plan` (the main job: offline plan of the default
# stack) and `make test` (lint, types, tests). Both create .venv when missing.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-dev
STACK ?= gcp-a4
OUT ?= render

.PHONY: install plan plan-json render test lint typecheck pytest schema bench clean urns

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

plan: $(STAMP)
	$(PY) -m components plan --stack $(STACK)

plan-json: $(STAMP)
	$(PY) -m components plan --stack $(STACK) --json

render: $(STAMP)
	$(PY) -m components render --stack $(STACK) --out $(OUT)

schema: $(STAMP)
	$(PY) -m components schema --out schema/cluster.schema.json

lint: $(STAMP)
	$(PY) -m ruff check .

typecheck: $(STAMP)
	$(PY) -m mypy

pytest: $(STAMP)
	$(PY) -m pytest

test: lint typecheck pytest

bench: $(STAMP)
	$(PY) -m bench.plan_bench

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache render

urns: $(STAMP)
	$(PY) -m components urns --write
