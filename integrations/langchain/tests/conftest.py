"""Shared fixtures: a real zenbrain coordinator on a SQLite file in a temporary directory,
and, where a test asks for ``store_location`` (or ``memory``), once on a SQLite file and once
on a fresh PostgreSQL database with pgvector."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_zenbrain import ZenBrainStore

from zenbrain import MemoryCoordinator
from zenbrain.testing.postgres import fresh_database
from zenbrain.testing.pytest_postgres import postgres_database_url, postgres_url  # noqa: F401

REQUIRE_POSTGRES = os.environ.get("ZENBRAIN_REQUIRE_POSTGRES") == "1"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def coordinator(db_path: Path) -> Iterator[MemoryCoordinator]:
    with MemoryCoordinator(db_path) as memory:
        yield memory


BACK_ENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACK_ENDS)
def store_location(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh store: a SQLite file, or a new database on the test PostgreSQL server (skipped
    when the optional PostgreSQL packages are missing, unless ZENBRAIN_REQUIRE_POSTGRES=1)."""
    yield from _location(request, tmp_path)


@pytest.fixture(scope="module", params=BACK_ENDS)
def module_store_location(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """As ``store_location``, one per module: for a store filled once and then only read."""
    yield from _location(request, tmp_path_factory.mktemp("module-store"))


def _location(request: pytest.FixtureRequest, folder: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(folder / "memory.db")
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
    """A coordinator on ``store_location``: every test using it runs on both back ends."""
    with MemoryCoordinator(store_location) as coordinator:
        yield coordinator


@pytest.fixture
def store(memory: MemoryCoordinator) -> ZenBrainStore:
    """A LangGraph store over the coordinator of each back end (``memory``)."""
    return ZenBrainStore(memory)
