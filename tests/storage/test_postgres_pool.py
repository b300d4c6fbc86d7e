"""The PostgreSQL connection pool's size, set with zenbrain's own URL parameters, on the
real server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy.pool import QueuePool

from zenbrain import MemoryCoordinator
from zenbrain._storage.postgres.engine import POOL_DEFAULTS
from zenbrain.errors import InvalidInputError
from zenbrain.testing.postgres import fresh_database

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg_url(postgres_url: str) -> Iterator[str]:
    with fresh_database(postgres_url) as url:
        yield url


def _pool(memory: MemoryCoordinator) -> QueuePool:
    pool = memory.database.engine.pool
    assert isinstance(pool, QueuePool)
    return pool


def test_the_pool_has_its_default_size(pg_url: str) -> None:
    with MemoryCoordinator(pg_url) as memory:
        pool = _pool(memory)
        assert (pool.size(), pool._max_overflow) == (
            POOL_DEFAULTS["pool_size"],
            POOL_DEFAULTS["max_overflow"],
        )


def test_url_parameters_size_the_pool_and_do_not_reach_the_server(pg_url: str) -> None:
    separator = "&" if "?" in pg_url else "?"
    with MemoryCoordinator(f"{pg_url}{separator}pool_size=2&max_overflow=0") as memory:
        pool = _pool(memory)
        assert (pool.size(), pool._max_overflow) == (2, 0)
        assert "pool_size" not in str(memory.database.engine.url)
        memory.store("stored through a pool of two")
        assert memory.recall("pool of two", limit=1)


@pytest.mark.parametrize(
    "query", ["pool_size=0", "pool_size=x", "max_overflow=-1", "pool_size=1e3"]
)
def test_a_bad_pool_parameter_is_refused(pg_url: str, query: str) -> None:
    separator = "&" if "?" in pg_url else "?"
    with pytest.raises(InvalidInputError):
        MemoryCoordinator(f"{pg_url}{separator}{query}")
