"""Shared fixtures. ``store_location`` runs a test once on a SQLite file and once on a real
PostgreSQL with pgvector (started by the suite unless ZENBRAIN_TEST_POSTGRES_URL is set):
that is the storage contract every back end must meet."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from zenbrain import MemoryCoordinator
from zenbrain.testing.postgres import fresh_database
from zenbrain.testing.pytest_postgres import postgres_url  # noqa: F401  (a session fixture)

REQUIRE_POSTGRES = os.environ.get("ZENBRAIN_REQUIRE_POSTGRES") == "1"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_location(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh store: a SQLite file, or a new database on the test PostgreSQL server."""
    if request.param == "sqlite":
        yield str(tmp_path / "memory.db")
        return
    try:
        server = request.getfixturevalue("postgres_url")
    except pytest.skip.Exception:
        if REQUIRE_POSTGRES:
            pytest.fail("PostgreSQL is required here (ZENBRAIN_REQUIRE_POSTGRES=1) but unavailable")
        raise
    with fresh_database(server) as url:
        yield url


@pytest.fixture
def memory(store_location: str) -> Iterator[MemoryCoordinator]:
    with MemoryCoordinator(store_location) as coordinator:
        yield coordinator
