"""The shape of the house: a small facade over one-concept pipeline modules, each with an
explicit public surface, in the layers pyproject.toml's import contracts declare."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import zenbrain
import zenbrain._memory

PIPELINES = sorted(
    f"zenbrain._memory.{info.name}" for info in pkgutil.iter_modules(zenbrain._memory.__path__)
)
STORAGE = [
    "zenbrain._storage.repository",
    "zenbrain._storage.dialect",
    "zenbrain._storage.records",
    "zenbrain._storage.postings.scopes",
]
PACKAGE = Path(zenbrain.__file__).parent


@pytest.mark.parametrize("name", ["zenbrain._memory", *PIPELINES, *STORAGE])
def test_module_declares_all_and_every_name_exists(name: str) -> None:
    module = importlib.import_module(name)
    exported = module.__all__
    assert len(exported) == len(set(exported))
    assert all(hasattr(module, symbol) for symbol in exported)


def test_the_pipelines_are_there() -> None:
    expected = {"store", "recall", "find", "forget", "consolidate", "review", "sessions"}
    expected |= {"core_blocks", "embedding", "namespaces", "health"}
    assert {name.rsplit(".", 1)[1] for name in PIPELINES} >= expected


def test_the_facade_stays_small() -> None:
    """The facade delegates: at most 500 lines. Other modules are cut by concept, which the
    import contracts below watch, not by a line count."""
    facade = PACKAGE / "_coordinator.py"
    assert len(facade.read_text(encoding="utf-8").splitlines()) <= 500


def test_the_import_contracts_hold() -> None:
    """The layers, the forbidden arrows and the absence of cycles declared in pyproject.toml
    ([tool.importlinter]; `make lint` runs the same check)."""
    pytest.importorskip("importlinter")  # a dev tool: absent from the lowest-versions cell
    lint_imports = Path(sys.executable).parent / "lint-imports"
    root = PACKAGE.parent
    done = subprocess.run(
        [str(lint_imports), "--no-cache", "--no-logo"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Contracts: 4 kept, 0 broken." in done.stdout, done.stdout


def test_the_pipelines_write_no_sql() -> None:
    """SQL and dialect choices live in zenbrain._storage; the pipelines only call it."""
    for name in PIPELINES:
        source = Path(importlib.import_module(name).__file__ or "").read_text(encoding="utf-8")
        assert "import sqlalchemy" not in source and "from sqlalchemy import (" not in source
        assert "zenbrain._storage.schema" not in source, name
        assert '"postgresql"' not in source and '"sqlite"' not in source, name
