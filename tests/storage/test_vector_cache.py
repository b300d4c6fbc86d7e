"""The SQLite vector cache stays correct across writes in this process and in others."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
from sqlalchemy import select

from zenbrain import MemoryCoordinator
from zenbrain.providers import HashingEmbedder
from zenbrain.storage.schema import vectors
from zenbrain.storage.sqlite_vectors import SqliteVectorIndex, quantize_int8


def ids(memory: MemoryCoordinator, query: str) -> list[str]:
    return [r.content for r in memory.recall(query, layers=["semantic"], limit=3, min_score=0.01)]


def test_cache_follows_writes_and_deletes_in_process(db_path: Path) -> None:
    with MemoryCoordinator(db_path, embedder=HashingEmbedder(dimension=64)) as memory:
        memory.store_many([f"filler note number {i}" for i in range(100)])
        assert "quasar telescope observation" not in ids(memory, "quasar telescope")
        memory.recall("warm the cache", layers=["semantic"])
        cached = memory.database.vectors._cache[(memory.namespace, "semantic")]  # type: ignore[attr-defined]
        new = memory.store("quasar telescope observation")
        assert memory.database.vectors._cache[(memory.namespace, "semantic")] is cached  # type: ignore[attr-defined]
        assert ids(memory, "quasar telescope")[0] == "quasar telescope observation"
        memory.forget(new, "semantic")
        assert "quasar telescope observation" not in ids(memory, "quasar telescope")


def test_cache_picks_up_another_process(db_path: Path) -> None:
    with MemoryCoordinator(db_path, embedder=HashingEmbedder(dimension=64)) as memory:
        memory.store_many([f"filler note number {i}" for i in range(50)])
        memory.recall("warm the cache", layers=["semantic"])
        script = textwrap.dedent(
            f"""
            from zenbrain import MemoryCoordinator
            from zenbrain.providers import HashingEmbedder
            with MemoryCoordinator({str(db_path)!r}, embedder=HashingEmbedder(dimension=64)) as m:
                m.store("pulsar radio signal")
                doomed = m.recall("filler note number 7", layers=["semantic"], limit=1)[0]
                m.forget(doomed.id, "semantic")
            """
        )
        subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
        assert ids(memory, "pulsar radio signal")[0] == "pulsar radio signal"
        remaining = memory.recall("filler note number 7", layers=["semantic"], limit=60)
        assert "filler note number 7" not in [r.content for r in remaining]
        assert memory.health().semantic["count"] == 50


# --------------------------------------------------------------------------- int8 pre-filter
def _exact_top(memory: MemoryCoordinator, query: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The true nearest rows of the semantic scope, by float32 cosine over every stored blob."""
    with memory.database.engine.connect() as conn:
        rows = conn.execute(
            select(vectors.c.memory_pk, vectors.c.vector).where(
                vectors.c.namespace == memory.namespace, vectors.c.layer == "semantic"
            )
        ).all()
    pks = np.array([r[0] for r in rows])
    matrix = np.vstack([np.frombuffer(r[1], dtype=np.float32) for r in rows])
    sims = matrix @ query
    order = np.argsort(-sims, kind="stable")[:k]
    return [(int(pks[i]), float(sims[i])) for i in order]


def _nearest(memory: MemoryCoordinator, query: np.ndarray, k: int) -> list[tuple[int, float]]:
    index = memory.database.vectors
    with memory.database.engine.connect() as conn:
        return index.nearest(conn, memory.namespace, "semantic", query, None, k)


def _assert_same(got: list[tuple[int, float]], want: list[tuple[int, float]]) -> None:
    assert [pk for pk, _ in got] == [pk for pk, _ in want]
    assert np.allclose([s for _, s in got], [s for _, s in want], atol=1e-6)


def _prefiltering(memory: MemoryCoordinator, min_rows: int = 50) -> SqliteVectorIndex:
    index = memory.database.vectors
    assert isinstance(index, SqliteVectorIndex)
    index.prefilter_min_rows = min_rows
    return index


def test_quantize_int8_keeps_direction() -> None:
    rows = np.array([[0.5, -0.25, 0.0], [0.0, 0.0, 0.0]], dtype=np.float32)
    assert quantize_int8(rows).tolist() == [[127, -64, 0], [0, 0, 0]]


def test_prefilter_and_rescore_return_the_exact_top_k(db_path: Path) -> None:
    embedder = HashingEmbedder(dimension=64)
    with MemoryCoordinator(db_path, embedder=embedder) as memory:
        index = _prefiltering(memory)
        memory.store_many([f"note {i} about topic{i % 37} and thing{i % 11}" for i in range(300)])
        for text in ("topic5 thing3", "note 17", "topic36 thing10 extra words"):
            query = embedder.embed_queries([text])[0]
            got = _nearest(memory, query, 10)
            cached = index._cache[(memory.namespace, "semantic")]
            assert not cached.exact  # searched through the int8 copy
            _assert_same(got, _exact_top(memory, query, 10))


def test_prefilter_follows_deletes_and_adds_by_another_process(db_path: Path) -> None:
    embedder = HashingEmbedder(dimension=64)
    with MemoryCoordinator(db_path, embedder=embedder) as memory:
        index = _prefiltering(memory)
        memory.store_many([f"filler note number {i}" for i in range(200)])
        query = embedder.embed_queries(["filler note number 7"])[0]
        doomed = _nearest(memory, query, 3)[0][0]
        cached = index._cache[(memory.namespace, "semantic")]
        assert not cached.exact
        script = textwrap.dedent(
            f"""
            from zenbrain import MemoryCoordinator
            from zenbrain.providers import HashingEmbedder
            with MemoryCoordinator({str(db_path)!r}, embedder=HashingEmbedder(dimension=64)) as m:
                hit = m.recall("filler note number 7", layers=["semantic"], limit=1)[0]
                m.forget(hit.id, "semantic")
                m.store("filler note number 7 again, rewritten")
            """
        )
        subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
        got = _nearest(memory, query, 10)
        # Synced in place (the rows that are gone dropped, the new one read), not reloaded.
        assert index._cache[(memory.namespace, "semantic")] is cached
        assert cached.size == 200
        assert doomed not in [pk for pk, _ in got]
        _assert_same(got, _exact_top(memory, query, 10))


def test_a_fresh_process_loads_a_large_scope_as_int8(db_path: Path) -> None:
    embedder = HashingEmbedder(dimension=64)
    with MemoryCoordinator(db_path, embedder=embedder) as memory:
        memory.store_many([f"entry {i} of the log" for i in range(120)])
    with MemoryCoordinator(db_path, embedder=embedder) as memory:
        index = _prefiltering(memory, min_rows=100)
        query = embedder.embed_queries(["entry 42"])[0]
        got = _nearest(memory, query, 5)
        cached = index._cache[(memory.namespace, "semantic")]
        assert not cached.exact and cached.size == 120
        assert cached.vectors.dtype == np.int8
        _assert_same(got, _exact_top(memory, query, 5))
