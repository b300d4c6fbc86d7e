"""Shared fixtures. ``store_location`` runs a test once on a SQLite file and once on a real
PostgreSQL with pgvector (started by the suite unless ZENBRAIN_TEST_POSTGRES_URL is set):
that is the storage contract every back end must meet."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
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
    with fresh_database(postgres_server(request)) as url:
        yield url


def postgres_server(request: pytest.FixtureRequest) -> str:
    """The test PostgreSQL server's URL; skips without one, fails when CI requires it."""
    try:
        server: str = request.getfixturevalue("postgres_url")
    except pytest.skip.Exception:
        if REQUIRE_POSTGRES:
            pytest.fail("PostgreSQL is required here (ZENBRAIN_REQUIRE_POSTGRES=1) but unavailable")
        raise
    return server


@pytest.fixture
def memory(store_location: str) -> Iterator[MemoryCoordinator]:
    with MemoryCoordinator(store_location) as coordinator:
        yield coordinator


def _narrow_cone(rows: int, seed: int = 5) -> np.ndarray:
    """Unit vectors as many embedding models make them: all near one direction (a random
    pair's cosine is about 0.8), differing around it in 60 clusters."""
    rng = np.random.default_rng(seed)
    common = rng.standard_normal(384)
    centres = rng.standard_normal((60, 384))
    spread = centres[rng.integers(0, 60, rows)] + 0.6 * rng.standard_normal((rows, 384))
    spread /= np.linalg.norm(spread, axis=1, keepdims=True)
    points = 2.2 * common / np.linalg.norm(common) + spread
    return (points / np.linalg.norm(points, axis=1, keepdims=True)).astype(np.float32)


def _questions_near(vectors: np.ndarray, count: int, seed: int = 4) -> np.ndarray:
    """``count`` unit vectors, each a small step from a random one of ``vectors``."""
    rng = np.random.default_rng(seed)
    picked = vectors[rng.integers(0, len(vectors), count)]
    near = picked + 0.05 * rng.standard_normal((count, vectors.shape[1]))
    return (near / np.linalg.norm(near, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture
def narrow_cone() -> Callable[..., np.ndarray]:
    """``narrow_cone(rows, seed=5)``: vectors in a narrow cone (see :func:`_narrow_cone`)."""
    return _narrow_cone


@pytest.fixture
def questions_near() -> Callable[..., np.ndarray]:
    """``questions_near(vectors, count, seed=4)``: questions close to stored vectors."""
    return _questions_near
