"""PostgreSQL bulk loading: batches of vectors go in by binary COPY, and the HNSW index can
be dropped for a load and built once after it, on the real server."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from sqlalchemy import text

from zenbrain import MemoryCoordinator
from zenbrain.errors import StorageError
from zenbrain.providers import HashingEmbedder
from zenbrain.storage.postgres import COPY_MIN_ROWS, deferred_hnsw
from zenbrain.testing.postgres import fresh_database

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg_url(postgres_url: str) -> Iterator[str]:
    with fresh_database(postgres_url) as url:
        yield url


def _hnsw_present(memory: MemoryCoordinator) -> bool:
    with memory.database.engine.connect() as conn:
        return bool(
            conn.execute(text("SELECT to_regclass('zb_pgvectors_hnsw') IS NOT NULL")).scalar()
        )


def _array(value: object) -> np.ndarray:
    """pgvector's ``Vector`` (binary results) or an array, as float32."""
    to_numpy = getattr(value, "to_numpy", None)
    return np.asarray(to_numpy() if to_numpy else value, dtype=np.float32)


def _stored(memory: MemoryCoordinator) -> tuple[list[int], np.ndarray]:
    with memory.database.engine.connect() as conn:
        rows = conn.execute(
            text("SELECT memory_pk, embedding FROM zb_pgvectors ORDER BY memory_pk")
        ).all()
    return [int(r[0]) for r in rows], np.vstack([_array(r[1]) for r in rows])


def test_copy_batches_store_the_same_vectors(pg_url: str) -> None:
    embedder = HashingEmbedder(dimension=32)
    texts = [f"bulk note {i} on subject{i % 13}" for i in range(COPY_MIN_ROWS * 3)]
    with MemoryCoordinator(pg_url, embedder=embedder) as memory:
        memory.store_many(texts)
        pks, matrix = _stored(memory)
        assert len(pks) == len(texts)
        with memory.database.engine.connect() as conn:
            order = conn.execute(
                text("SELECT content FROM zb_memories WHERE pk = ANY(:pks) ORDER BY pk"),
                {"pks": pks},
            ).scalars()
            contents = list(order)
        expected = embedder.embed_documents(contents)
        expected /= np.linalg.norm(expected, axis=1, keepdims=True)
        assert np.allclose(matrix, expected, atol=1e-6)


def test_deferred_hnsw_rebuilds_the_index_after_the_load(pg_url: str) -> None:
    embedder = HashingEmbedder(dimension=32)
    with MemoryCoordinator(pg_url, embedder=embedder) as memory:
        memory.store("seed note so the vector table exists")
        assert _hnsw_present(memory)
        with deferred_hnsw(memory.database.engine, parallel_workers=1):
            assert not _hnsw_present(memory)
            memory.store_many([f"loaded note {i} about topic{i % 7}" for i in range(300)])
            # Searches still work while the index is gone (an exact scan).
            assert memory.recall("loaded note 42", layers=["semantic"], limit=1)
        assert _hnsw_present(memory)
        top = memory.recall("loaded note 42 about topic0", layers=["semantic"], limit=1)
        assert top[0].content == "loaded note 42 about topic0"


def test_deferred_hnsw_rejects_a_malformed_memory_setting(pg_url: str) -> None:
    with (
        MemoryCoordinator(pg_url) as memory,
        pytest.raises(StorageError),
        deferred_hnsw(memory.database.engine, maintenance_work_mem="1GB; DROP TABLE x"),
    ):
        pass


def test_opening_does_not_create_an_installed_extension(pg_url: str) -> None:
    """A read-only session (as on a replica) can open the engine once pgvector exists."""
    from zenbrain.storage.postgres import open_postgres

    with MemoryCoordinator(pg_url):
        pass  # installs the extension and the schema
    separator = "&" if "?" in pg_url else "?"
    read_only = f"{pg_url}{separator}options=-c%20default_transaction_read_only%3Don"
    engine, _, _ = open_postgres(read_only)
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("SHOW default_transaction_read_only").scalar() == "on"
    finally:
        engine.dispose()
