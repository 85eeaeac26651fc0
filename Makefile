# The two commands a newcomer runs: `make demo` and `make test`. Both bootstrap .venv from
# pyproject.toml on their own; nothing depends on what was installed by hand.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell sha256sum pyproject.toml | cut -c1-12)
BENCH_STAMP := $(VENV)/.bench-$(shell sha256sum pyproject.toml | cut -c1-12)
export GRAPHRAG_DATA ?= $(CURDIR)/data
PYTEST_ARGS ?=

.PHONY: install system-packages demo test test-fast dev bench lint clean

# System packages the tests start or drive: PostgreSQL (the distributed-instance test) and
# Chromium (the UI test). Installed only when missing, and only where apt-get can (root).
SYSTEM_PACKAGES := $(if $(wildcard /usr/lib/postgresql/*/bin/initdb),,postgresql) $(if $(wildcard /usr/bin/chromium),,chromium)

system-packages:
	@if [ -n "$(strip $(SYSTEM_PACKAGES))" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing system packages: $(strip $(SYSTEM_PACKAGES))"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(SYSTEM_PACKAGES) >/dev/null; \
	  else echo "missing system packages (install them with apt-get): $(strip $(SYSTEM_PACKAGES))"; fi; \
	fi

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "installing the project into $(VENV) (first run takes a few minutes)"
	@$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@rm -f $(VENV)/.installed-* && touch $(STAMP)

$(BENCH_STAMP): $(STAMP)
	@$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev,bench]'
	@rm -f $(VENV)/.bench-* && touch $(BENCH_STAMP)

install: $(STAMP) system-packages

demo: $(STAMP)
	@$(VENV)/bin/filings-graph demo

# Lint and types first: a failing check costs seconds, not the suite's minutes.
test: $(STAMP) system-packages
	@$(VENV)/bin/ruff format --check .
	@$(VENV)/bin/ruff check .
	@$(VENV)/bin/mypy
	@$(PY) -m pytest $(PYTEST_ARGS)

test-fast: $(STAMP) system-packages
	@$(VENV)/bin/ruff format --check .
	@$(VENV)/bin/ruff check .
	@$(VENV)/bin/mypy
	@$(PY) -m pytest -m "not slow" $(PYTEST_ARGS)

dev: $(STAMP)
	@$(VENV)/bin/filings-graph dev

bench: $(BENCH_STAMP)
	@for b in bench/*.py; do case $$b in bench/_*) continue;; esac; echo "== $$b"; $(PY) $$b || exit 1; done

lint: $(STAMP)
	@$(VENV)/bin/ruff format --check .
	@$(VENV)/bin/ruff check .
	@$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) .pytest_cache
