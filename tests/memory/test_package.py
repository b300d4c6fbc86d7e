"""The shape of the house: a small facade over one-concept pipeline modules, each with an
explicit public surface, and no module of the core over 600 lines."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

import zenbrain
import zenbrain.memory

PIPELINES = sorted(
    f"zenbrain.memory.{info.name}" for info in pkgutil.iter_modules(zenbrain.memory.__path__)
)
STORAGE = [
    "zenbrain.storage.repository",
    "zenbrain.storage.dialect",
    "zenbrain.storage.records",
    "zenbrain.storage.postings.scopes",
]
PACKAGE = Path(zenbrain.__file__).parent


@pytest.mark.parametrize("name", ["zenbrain.memory", *PIPELINES, *STORAGE])
def test_module_declares_all_and_every_name_exists(name: str) -> None:
    module = importlib.import_module(name)
    exported = module.__all__
    assert len(exported) == len(set(exported))
    assert all(hasattr(module, symbol) for symbol in exported)


def test_the_pipelines_are_there() -> None:
    expected = {"store", "recall", "find", "forget", "consolidate", "review", "sessions"}
    expected |= {"core_blocks", "embedding", "namespaces", "health"}
    assert {name.rsplit(".", 1)[1] for name in PIPELINES} >= expected


def test_module_sizes() -> None:
    """No module of the package over 600 lines, the facade at most 500."""
    facade = PACKAGE / "coordinator.py"
    assert len(facade.read_text(encoding="utf-8").splitlines()) <= 500
    too_long = {
        str(path.relative_to(PACKAGE)): lines
        for path in PACKAGE.rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert too_long == {}


def test_no_module_of_the_repository_is_over_600_lines() -> None:
    """The same bound for the benchmarks, the tests, the integrations, research/ and scripts/:
    a module that grows past it is split by concept."""
    root = PACKAGE.parent
    folders = ["benchmarks", "tests", "integrations", "research", "scripts", "examples"]
    too_long = {
        str(path.relative_to(root)): lines
        for folder in folders
        for path in (root / folder).rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert too_long == {}


def test_the_pipelines_write_no_sql() -> None:
    """SQL and dialect choices live in zenbrain.storage; the pipelines only call it."""
    for name in PIPELINES:
        source = Path(importlib.import_module(name).__file__ or "").read_text(encoding="utf-8")
        assert "import sqlalchemy" not in source and "from sqlalchemy import (" not in source
        assert "zenbrain.storage.schema" not in source, name
        assert '"postgresql"' not in source and '"sqlite"' not in source, name
