"""PostgreSQL bulk loading on the real server: batches of vectors go in by binary COPY,
``bulk_load`` drops the per-layer HNSW indexes for a load and builds them once after it
(parallel maintenance workers), and a layer's search walks that layer's own index."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator

import numpy as np
import psycopg
import pytest
from sqlalchemy import event, text

from zenbrain import MemoryCoordinator
from zenbrain._storage.postgres.hnsw import LAYER_INDEXES
from zenbrain._storage.postgres.vectors import COPY_MIN_ROWS
from zenbrain.errors import InvalidInputError, StorageError
from zenbrain.providers import HashingEmbedder
from zenbrain.testing.postgres import fresh_database

pytestmark = pytest.mark.postgres

PER_LAYER = set(LAYER_INDEXES.values())


@pytest.fixture
def pg_url(postgres_url: str) -> Iterator[str]:
    with fresh_database(postgres_url) as url:
        yield url


def _hnsw_indexes(memory: MemoryCoordinator) -> set[str]:
    with memory.database.engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT indexname FROM pg_indexes WHERE tablename = 'zb_pgvectors' "
                "AND indexdef LIKE '%USING hnsw%'"
            )
        )
        return {str(r[0]) for r in rows}


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


def test_a_new_store_has_one_hnsw_index_per_searched_layer(pg_url: str) -> None:
    with MemoryCoordinator(pg_url, embedder=HashingEmbedder(dimension=32)) as memory:
        assert _hnsw_indexes(memory) == PER_LAYER


def test_bulk_load_builds_the_indexes_after_the_load(pg_url: str) -> None:
    embedder = HashingEmbedder(dimension=32)
    with MemoryCoordinator(pg_url, embedder=embedder) as memory:
        memory.store("seed note so the vector table exists")
        with memory.bulk_load(parallel_workers=1, maintenance_work_mem="64MB"):
            assert _hnsw_indexes(memory) == set()
            memory.store_many([f"loaded note {i} about topic{i % 7}" for i in range(300)])
            # Searches still work while the indexes are gone (an exact scan).
            assert memory.recall("loaded note 42", layers=["semantic"], limit=1)
        assert _hnsw_indexes(memory) == PER_LAYER
        top = memory.recall("loaded note 42 about topic0", layers=["semantic"], limit=1)
        assert top[0].content == "loaded note 42 about topic0"
        with memory.database.engine.connect() as conn:
            analyzed = conn.execute(
                text("SELECT last_analyze IS NOT NULL FROM pg_stat_user_tables "
                     "WHERE relname = 'zb_pgvectors'")
            ).scalar()  # fmt: skip
        assert analyzed  # the planner's statistics were refreshed after the load


def test_bulk_load_rebuilds_the_indexes_when_the_block_fails(pg_url: str) -> None:
    with MemoryCoordinator(pg_url, embedder=HashingEmbedder(dimension=32)) as memory:
        with pytest.raises(RuntimeError), memory.bulk_load(parallel_workers=0):
            memory.store("stored before the failure")
            raise RuntimeError("the import failed half way")
        assert _hnsw_indexes(memory) == PER_LAYER


@pytest.mark.parametrize(
    ("workers", "memory_setting"),
    [(-1, "1GB"), (65, "1GB"), (True, "1GB"), ("2", "1GB"), (2, "1GB; DROP TABLE x"), (2, 1)],
)
def test_bulk_load_rejects_bad_settings_before_dropping_anything(
    pg_url: str, workers: object, memory_setting: object
) -> None:
    with MemoryCoordinator(pg_url, embedder=HashingEmbedder(dimension=32)) as memory:
        with pytest.raises(InvalidInputError):
            memory.bulk_load(workers, memory_setting)  # type: ignore[arg-type]
        assert _hnsw_indexes(memory) == PER_LAYER


def test_bulk_load_with_a_size_the_server_refuses_drops_nothing(pg_url: str) -> None:
    with MemoryCoordinator(pg_url, embedder=HashingEmbedder(dimension=32)) as memory:
        with pytest.raises(StorageError), memory.bulk_load(2, "9999999TB"):
            pytest.fail("the block must not run")
        assert _hnsw_indexes(memory) == PER_LAYER


def test_abulk_load_builds_the_indexes_after_the_load(pg_url: str) -> None:
    async def load(memory: MemoryCoordinator) -> set[str]:
        async with memory.abulk_load(parallel_workers=1):
            await memory.astore_many([f"async note {i}" for i in range(100)])
            during = _hnsw_indexes(memory)
        return during

    with MemoryCoordinator(pg_url, embedder=HashingEmbedder(dimension=32)) as memory:
        assert asyncio.run(load(memory)) == set()
        assert _hnsw_indexes(memory) == PER_LAYER


def test_bulk_load_replaces_the_shared_index_of_older_stores(pg_url: str) -> None:
    """Stores made before the per-layer indexes have one HNSW index over every layer: they
    open and search as before, and a bulk load builds the per-layer indexes instead."""
    with MemoryCoordinator(pg_url, embedder=HashingEmbedder(dimension=32)) as memory:
        with memory.database.engine.begin() as conn:
            for name in PER_LAYER:
                conn.exec_driver_sql(f"DROP INDEX {name}")
            conn.exec_driver_sql(
                "CREATE INDEX zb_pgvectors_hnsw ON zb_pgvectors "
                "USING hnsw (embedding vector_cosine_ops)"
            )
        memory.store("an older store's note about kayaks")
    with MemoryCoordinator(pg_url, embedder=HashingEmbedder(dimension=32)) as memory:
        assert _hnsw_indexes(memory) == {"zb_pgvectors_hnsw"}
        assert memory.recall("kayaks", limit=1)[0].content == "an older store's note about kayaks"
        with memory.bulk_load():
            pass
        assert _hnsw_indexes(memory) == PER_LAYER


def test_bulk_load_on_sqlite_changes_nothing_and_still_checks_its_settings(
    tmp_path: object,
) -> None:
    with MemoryCoordinator(f"{tmp_path}/memory.db") as memory:
        with memory.bulk_load():
            memory.store("a note in a file")
        assert memory.recall("note", limit=1)
        with pytest.raises(InvalidInputError):
            memory.bulk_load(maintenance_work_mem="lots")


def test_a_layer_search_uses_its_own_index_even_as_a_prepared_statement(pg_url: str) -> None:
    """The statement the vector search runs names its layer as a literal, so PostgreSQL's
    plan (a generic one included, as used for prepared statements) reads that layer's
    partial index instead of filtering a graph of every layer."""
    embedder = HashingEmbedder(dimension=32)
    with MemoryCoordinator(pg_url, embedder=embedder) as memory:
        memory.store_many(
            [{"content": f"episode {i} at the lake", "layer": "episodic"} for i in range(20)]
            + [{"content": f"fact {i} about rivers", "layer": "semantic"} for i in range(80)]
        )
        captured: list[tuple[str, dict[str, object]]] = []

        def capture(_c: object, _cur: object, statement: str, params: object, *_: object) -> None:
            if "<=>" in statement and isinstance(params, dict):
                captured.append((statement, dict(params)))

        event.listen(memory.database.engine, "before_cursor_execute", capture)
        try:
            memory.recall("episode at the lake", layers=["episodic"], limit=3)
        finally:
            event.remove(memory.database.engine, "before_cursor_execute", capture)
        assert captured, "the recall ran no vector search"
        statement, params = captured[0]
        names = list(dict.fromkeys(re.findall(r"%\((\w+)\)s", statement)))
        for number, name in enumerate(names, 1):
            statement = statement.replace(f"%({name})s", f"${number}")
        raw = memory.database.engine.raw_connection()
        try:
            # Client-side binding: EXPLAIN EXECUTE is a utility statement, which takes no
            # server-side parameters.
            cursor = psycopg.ClientCursor(raw.driver_connection)  # type: ignore[arg-type]
            cursor.execute("SET plan_cache_mode = force_generic_plan")
            # A tiny table would be scanned and sorted rather than searched through a graph.
            cursor.execute("SET enable_seqscan = off")
            cursor.execute("SET enable_sort = off")
            types = [{"q": "vector", "limit": "bigint"}.get(n, "text") for n in names]
            cursor.execute(f"PREPARE layer_search({', '.join(types)}) AS {statement}")
            marks = ", ".join(f"%s::{kind}" for kind in types)
            cursor.execute(f"EXPLAIN EXECUTE layer_search({marks})", [params[n] for n in names])
            plan = "\n".join(str(row[0]) for row in cursor.fetchall())
        finally:
            raw.close()
        assert LAYER_INDEXES["episodic"] in plan, plan


def test_search_settings_are_sent_once_per_transaction(pg_url: str) -> None:
    with MemoryCoordinator(pg_url, embedder=HashingEmbedder(dimension=32)) as memory:
        memory.store_many(
            [{"content": f"episode {i}", "layer": "episodic"} for i in range(5)]
            + [{"content": f"fact {i}", "layer": "semantic"} for i in range(5)]
        )
        statements: list[str] = []

        def capture(_c: object, _cur: object, statement: str, *_: object) -> None:
            statements.append(statement)

        event.listen(memory.database.engine, "before_cursor_execute", capture)
        try:
            memory.recall("episode fact", layers=["episodic", "semantic"], limit=3)
            memory.recall("episode fact", layers=["episodic", "semantic"], limit=300)
        finally:
            event.remove(memory.database.engine, "before_cursor_execute", capture)
        settings = [s for s in statements if "hnsw.ef_search" in s]
        searches = [s for s in statements if "<=>" in s]
        assert len(searches) == 4
        assert len(settings) == 2  # one per recall (transaction), not one per layer
        # The wider pool of the second recall, at most the 1,000 pgvector accepts.
        assert "'1000'" in settings[1]
