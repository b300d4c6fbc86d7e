"""The SQLite vector cache stays correct across writes in this process and in others."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import select

from zenbrain import MemoryCoordinator
from zenbrain._storage.schema import vectors
from zenbrain._storage.sqlite import prefilter as vp
from zenbrain._storage.sqlite import vectors as sv
from zenbrain._storage.sqlite.prefilter import (
    SIGN_CANDIDATES_SHARE,
    int8_candidates,
    prefilter_candidates,
    quantize_int8,
    sign_codes,
)
from zenbrain._storage.sqlite.vectors import SqliteVectorIndex
from zenbrain.providers import HashingEmbedder


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


def _core_cosine(memory: MemoryCoordinator, query: str) -> float:
    """The cosine the cached core scope gives the persona block for ``query``."""
    vector = HashingEmbedder(dimension=64).embed_queries([query])[0]
    with memory.database.read() as conn:
        found = memory.database.vectors.nearest(conn, memory.namespace, "core", vector, None, 1)
    return found[0][1]


def test_a_vector_changed_in_place_elsewhere_is_read_back(db_path: Path) -> None:
    embedder = HashingEmbedder(dimension=64)
    with (
        MemoryCoordinator(db_path, embedder=embedder) as reader,
        MemoryCoordinator(db_path, embedder=embedder) as writer,
    ):
        writer.set_core_block("persona", "Prefers green tea in the morning")
        before = _core_cosine(reader, "espresso after lunch")
        cached = reader.database.vectors._cache[(reader.namespace, "core")]  # type: ignore[attr-defined]
        writer.set_core_block("persona", "Drinks espresso after lunch")  # same key, new vector
        after = _core_cosine(reader, "espresso after lunch")
        assert after == pytest.approx(_core_cosine(writer, "espresso after lunch"))
        assert after > before + 0.3
        assert reader.database.vectors._cache[(reader.namespace, "core")] is cached  # type: ignore[attr-defined]


def test_a_pruned_removal_log_reads_the_scope_again(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sv, "REMOVAL_LOG_KEPT", 1)
    embedder = HashingEmbedder(dimension=64)
    with (
        MemoryCoordinator(db_path, embedder=embedder) as reader,
        MemoryCoordinator(db_path, embedder=embedder) as writer,
    ):
        ids = writer.store_many([f"lighthouse keeper log {i}" for i in range(8)])
        assert len(reader.recall("lighthouse keeper", layers=["semantic"], limit=20)) == 8
        cached = reader.database.vectors._cache[(reader.namespace, "semantic")]  # type: ignore[attr-defined]
        for memory_id in ids[:4]:
            writer.forget(memory_id, "semantic")
        with reader.database.read() as conn:
            vector = embedder.embed_queries(["lighthouse keeper"])[0]
            found = reader.database.vectors.nearest(
                conn, reader.namespace, "semantic", vector, None, 20
            )
        kept = {_pk(writer, i) for i in ids[4:]}
        assert {pk for pk, _ in found} == kept
        assert reader.database.vectors._cache[(reader.namespace, "semantic")] is not cached  # type: ignore[attr-defined]


def _pk(memory: MemoryCoordinator, memory_id: str) -> int:
    with memory.database.read() as conn:
        row = memory._scope.repo.row(conn, memory_id)
        assert row is not None
        return int(row.pk)


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


def _clustered(rows: int, dimension: int = 64, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((40, dimension))
    points = centres[rng.integers(0, 40, rows)] + 0.6 * rng.standard_normal((rows, dimension))
    return (points / np.linalg.norm(points, axis=1, keepdims=True)).astype(np.float32)


def test_sign_prefilter_finds_the_exact_neighbours() -> None:
    vectors = _clustered(8000, 384)
    quantized = quantize_int8(vectors)
    codes = np.ascontiguousarray(sign_codes(quantized).T)
    rng = np.random.default_rng(4)  # questions near what is stored, as in a recall
    queries = vectors[rng.integers(0, 8000, 30)] + 0.05 * rng.standard_normal((30, 384))
    hits = 0
    for query in queries:
        found = prefilter_candidates(quantized, codes, query, 10)
        wanted = vp.PREFILTER_CANDIDATES_PER_RESULT * 10 + vp.PREFILTER_EXTRA_CANDIDATES
        assert len(found) == wanted and len(set(found.tolist())) == wanted
        assert len(found) < 8000 * SIGN_CANDIDATES_SHARE  # the sign scan narrowed the rows
        exact = set(np.argsort(-(vectors @ query))[:10].tolist())
        hits += len(exact & set(found.tolist()))
    assert hits / (10 * len(queries)) >= 0.98


@pytest.mark.parametrize(("rows", "dimension"), [(500, 384), (8000, 64)])
def test_small_scopes_and_short_vectors_get_the_int8_scan(rows: int, dimension: int) -> None:
    vectors = _clustered(rows, dimension)
    quantized = quantize_int8(vectors)
    query = _clustered(1, dimension, seed=9)[0]
    found = prefilter_candidates(quantized, sign_codes(quantized).T, query, 10)
    assert found.tolist() == int8_candidates(quantized, query, 10).tolist()


def test_sign_codes_and_popcount_without_numpys_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = np.array([[3, -1, 0, 7] * 20, [-2] * 80], dtype=np.int8)  # 80 dims: two words
    codes = sign_codes(rows)
    assert codes.shape == (2, 2)
    expected = [int((row > 0).sum()) for row in rows]
    with_kernel = vp._popcount(codes).sum(axis=1).tolist()
    monkeypatch.delattr(np, "bitwise_count", raising=False)  # numpy < 2.0
    assert vp._popcount(codes).sum(axis=1).tolist() == with_kernel == expected


def test_int8_rows_keep_their_codes_through_appends_and_deletes() -> None:
    vectors = _clustered(300)
    cached = sv._Rows(1, 64, 16, int8=False)
    cached.append(list(range(1, 101)), vectors[:100], [None] * 100)
    cached.to_int8()
    cached.append(list(range(101, 301)), vectors[100:], [None] * 200)  # grows the buffers
    cached.keep(cached.pks % 3 != 0)
    assert cached.size == 200
    # The centre is the mean of the rows held when the scope was quantised, kept after.
    assert cached.centre is not None
    assert np.array_equal(cached.centre, vp.code_centre(vectors[:100]))
    kept = cached.pks - 1  # each kept row's position in ``vectors``
    assert np.array_equal(cached.codes, vp.centred_codes(vectors[kept], cached.centre).T)
    assert np.array_equal(cached.scales, vp.int8_scales(cached.vectors))


def test_a_scope_read_as_int8_takes_its_centre_from_its_first_rows() -> None:
    vectors = _clustered(5000, 384)
    cached = sv._Rows(1, 384, 5000, int8=True)
    for begin in range(0, 5000, 1000):  # as a fresh process reads a scope, in chunks
        cached.append(
            list(range(begin + 1, begin + 1001)), vectors[begin : begin + 1000], [None] * 1000
        )
    assert cached.centre is not None
    assert np.array_equal(cached.centre, vp.code_centre(vectors[:1000]))
    assert np.array_equal(cached.codes, vp.centred_codes(vectors, cached.centre).T)


def test_sign_bits_around_the_centre_find_neighbours_in_a_narrow_cone(
    narrow_cone: Callable[..., np.ndarray], questions_near: Callable[..., np.ndarray]
) -> None:
    vectors = narrow_cone(20_000)
    pairs = np.random.default_rng(6).integers(0, 20_000, (200, 2))
    assert float(np.mean(np.sum(vectors[pairs[:, 0]] * vectors[pairs[:, 1]], axis=1))) > 0.75
    quantized = quantize_int8(vectors)
    scales = vp.int8_scales(quantized)
    centre = vp.code_centre(vectors[: vp.CENTRE_SAMPLE_ROWS])
    centred = np.ascontiguousarray(vp.centred_codes(vectors, centre).T)
    around_origin = np.ascontiguousarray(sign_codes(quantized).T)
    hits = {"centre": 0, "origin": 0}
    queries = questions_near(vectors, 30)
    for query in queries:
        exact = set(np.argsort(-(vectors @ query))[:10].tolist())
        found = prefilter_candidates(quantized, centred, query, 10, scales, centre)
        hits["centre"] += len(exact & set(found.tolist()))
        found = prefilter_candidates(quantized, around_origin, query, 10, scales)
        hits["origin"] += len(exact & set(found.tolist()))
    assert hits["centre"] / (10 * len(queries)) >= 0.98
    # Around the origin, most bits are the same in every row: the scan misses neighbours.
    assert hits["origin"] / (10 * len(queries)) < 0.92


class _RowEmbedder:
    """Text ``"row N"`` is row N of a fixed matrix (documents and questions alike); any
    other text (the coordinator's own probe) is hashed."""

    def __init__(self, matrix: np.ndarray) -> None:
        self.matrix = matrix
        self.others = HashingEmbedder(dimension=matrix.shape[1])

    @property
    def model_id(self) -> str:
        return "test-rows"

    @property
    def dimension(self) -> int:
        return int(self.matrix.shape[1])

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        if all(text.startswith("row ") for text in texts):
            return self.matrix[[int(text.split()[1]) for text in texts]]
        return self.others.embed_documents(texts)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.embed_documents(texts)


def test_a_stored_narrow_cone_is_searched_around_its_centre(
    db_path: Path,
    narrow_cone: Callable[..., np.ndarray],
    questions_near: Callable[..., np.ndarray],
) -> None:
    stored = narrow_cone(20_000, seed=3)
    questions = questions_near(stored, 30, seed=8)
    embedder = _RowEmbedder(np.vstack([stored, questions]))
    with MemoryCoordinator(db_path, embedder=embedder) as memory:
        index = _prefiltering(memory, min_rows=20_000)
        memory.store_many([{"content": f"row {i}", "layer": "semantic"} for i in range(20_000)])
        hits = 0
        for position, query in enumerate(questions):
            got = _nearest(memory, embedder.embed_queries([f"row {20_000 + position}"])[0], 10)
            want = _exact_top(memory, query, 10)
            hits += len({pk for pk, _ in got} & {pk for pk, _ in want})
        cached = index._cache[(memory.namespace, "semantic")]
        assert not cached.exact and cached.size == 20_000
        assert cached.centre is not None
        assert np.allclose(cached.centre, vp.code_centre(stored[: vp.CENTRE_SAMPLE_ROWS]))
        assert hits / (10 * len(questions)) >= 0.98


def test_int8_scales_rank_rows_by_cosine(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = np.array([[3, 4, 0], [0, 0, 0], [-1, 0, 0]], dtype=np.int8)
    assert vp.int8_scales(rows).tolist() == pytest.approx([0.2, 0.0, 1.0])
    vectors = _clustered(9000, 384)
    quantized = quantize_int8(vectors)
    codes = np.ascontiguousarray(sign_codes(quantized).T)
    query = vectors[5] + 0.05 * _clustered(1, 384, seed=11)[0]
    kept = prefilter_candidates(quantized, codes, query, 10, vp.int8_scales(quantized))
    assert kept.tolist() == prefilter_candidates(quantized, codes, query, 10).tolist()
    # Nearest first by int8 cosine; the query was made next to row 5.
    cosines = (quantized[kept].astype(np.float32) @ quantize_int8(query)[0]) * vp.int8_scales(
        quantized[kept]
    )
    assert np.all(np.diff(cosines) <= 1e-6)
    assert kept[0] == 5
    monkeypatch.setattr(vp, "_RERANK_CHUNK", 7)  # re-ranked a few rows at a time: the same
    assert prefilter_candidates(quantized, codes, query, 10).tolist() == kept.tolist()


def test_hamming_over_word_major_codes_and_the_nearest_codes() -> None:
    rows = quantize_int8(_clustered(500, 200))  # 200 dims: four words, the last one partial
    codes = sign_codes(rows)
    query = codes[17]
    by_hand = [
        sum(bin(int(a) ^ int(b)).count("1") for a, b in zip(row, query, strict=True))
        for row in codes
    ]
    distances = vp._hamming(codes.T.copy(), query)
    assert distances.tolist() == by_hand
    for wide in (1, 7, 100, 499, 500):
        chosen = vp._nearest_codes(distances, wide)
        assert len(chosen) == len(set(chosen.tolist())) == wide
        # Every row left out is at least as far as every row chosen; ties go to earlier rows.
        rest = np.setdiff1d(np.arange(500), chosen)
        if len(rest):
            assert distances[rest].min() >= distances[chosen].max()
            cut = distances[chosen].max()
            assert all(
                r > c for r in rest if distances[r] == cut for c in chosen if distances[c] == cut
            )
