"""Shared fixtures: a real zenbrain coordinator on a SQLite file in a temporary directory,
and, where a test asks for ``any_backend``, once more on PostgreSQL with pgvector."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from zenbrain import MemoryCoordinator
from zenbrain.testing.pytest_postgres import postgres_database_url, postgres_url  # noqa: F401


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def coordinator(db_path: Path) -> Iterator[MemoryCoordinator]:
    with MemoryCoordinator(db_path) as memory:
        yield memory


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def any_backend(request: pytest.FixtureRequest, db_path: Path) -> Iterator[MemoryCoordinator]:
    """A coordinator on a SQLite file, then on a fresh PostgreSQL database (skipped when the
    optional PostgreSQL packages are missing)."""
    location = (
        str(db_path)
        if request.param == "sqlite"
        else request.getfixturevalue("postgres_database_url")
    )
    with MemoryCoordinator(location) as memory:
        yield memory
