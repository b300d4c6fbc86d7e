"""A forget removes from what the process holds in memory only what the forgotten memories
held: their postings entries, the words only they had, their vector rows. The rest is kept,
so the next recall loads nothing again (issue 39: each forget dropped the namespace's
postings and vectors, and the next search loaded them whole), and a forget copies no row of
the vectors held. That nothing of a purged memory is left: tests/storage/test_purge.py."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import numpy as np
import pytest

from zenbrain import MemoryCoordinator
from zenbrain._storage.postings.scope import ScopePostings
from zenbrain._storage.postings.scopes import scope_tokens
from zenbrain._storage.sqlite import vectors as sqlite_vectors
from zenbrain.providers import HashingEmbedder

SECRET = "zorblaxik"
WORDS = [f"w{i}" for i in range(40)]


def _held_postings(memory: MemoryCoordinator, layer: str = "semantic") -> ScopePostings | None:
    scope, _ = scope_tokens(memory.namespace, layer, None)
    held: dict[str, ScopePostings] = memory.database.lexical._cache  # type: ignore[attr-defined]
    return held.get(scope)


def _held_vectors(memory: MemoryCoordinator, layer: str = "semantic") -> Any:
    held = getattr(memory.database.vectors, "_cache", None)
    return None if held is None else held.get((memory.namespace, layer))


def _pk(memory: MemoryCoordinator, memory_id: str) -> int:
    with memory.database.read() as conn:
        row = memory._scope.repo.row(conn, memory_id)
    assert row is not None
    return int(row.pk)


@contextmanager
def _counting_loads() -> Iterator[dict[str, int]]:
    """Postings added to those held, vector rows read into or copied within the cache."""
    counted = {"postings loaded": 0, "vector rows read": 0, "vector rows copied": 0}
    extend, add = ScopePostings.extend, ScopePostings.add
    append_chunk, keep = sqlite_vectors.SqliteVectorIndex._append_chunk, sqlite_vectors._Rows.keep
    extending = [False]  # extend() adds one by one at times: counted once

    def counting_extend(self: ScopePostings, rows: Any) -> None:
        counted["postings loaded"] += sum(len(row[2]) for row in rows)
        extending[0] = True
        try:
            extend(self, rows)
        finally:
            extending[0] = False

    def counting_add(self: ScopePostings, *row: Any) -> None:
        if not extending[0]:
            counted["postings loaded"] += len(row[2])
        add(self, *row)

    def counting_append_chunk(cached: Any, chunk: Any) -> None:
        counted["vector rows read"] += len(chunk)
        append_chunk(cached, chunk)

    def counting_keep(self: Any, mask: Any) -> None:
        counted["vector rows copied"] += self.filled
        keep(self, mask)

    with (
        mock.patch.object(ScopePostings, "extend", counting_extend),
        mock.patch.object(ScopePostings, "add", counting_add),
        mock.patch.object(
            sqlite_vectors.SqliteVectorIndex, "_append_chunk", staticmethod(counting_append_chunk)
        ),
        mock.patch.object(sqlite_vectors._Rows, "keep", counting_keep),
    ):
        yield counted


def test_a_forget_keeps_what_the_others_hold_and_the_next_recall_loads_nothing(
    store_location: str,
) -> None:
    embedder = HashingEmbedder(dimension=32)
    with MemoryCoordinator(store_location, embedder=embedder) as memory:
        memory.store_many(
            [{"content": f"harbour ferry note {i}", "layer": "semantic"} for i in range(60)]
        )
        secret_id = memory.store(f"the {SECRET} harbour code", layer="semantic")
        secret_pk = _pk(memory, secret_id)
        memory.recall("harbour ferry")  # the postings (and SQLite's vectors) are held now
        postings, vectors = _held_postings(memory), _held_vectors(memory)
        assert postings is not None and SECRET in postings._term_ids
        with _counting_loads() as counted:
            assert memory.forget(secret_id, "semantic").forgotten
            after = [(r.id, r.score) for r in memory.recall("harbour ferry code", limit=5)]
        assert counted == {"postings loaded": 0, "vector rows read": 0, "vector rows copied": 0}
        assert _held_postings(memory) is postings and _held_vectors(memory) is vectors
        # Nothing of the forgotten memory is held: no word only it had, no postings entry.
        assert SECRET not in postings._term_ids and SECRET not in postings._vocabulary
        assert postings.dead == 0 and len(postings) == 60
        position = list(postings._pks).index(secret_pk)
        assert not any(position in where for where, _ in postings._postings)
        assert postings._found("harbour") is not None  # a word others hold stays
        if vectors is not None:  # SQLite: the row zeroed where it was, skipped by searches
            row = list(vectors.pks).index(secret_pk)
            assert not vectors.alive[row] and not np.any(vectors.vectors[row])
            assert vectors.size == 60
        with MemoryCoordinator(store_location, embedder=embedder) as fresh:
            assert after == [(r.id, r.score) for r in fresh.recall("harbour ferry code", limit=5)]
        assert secret_id not in {r.id for r in memory.recall(f"{SECRET} harbour", limit=70)}


def test_drop_namespace_drops_its_caches_and_keeps_the_others(store_location: str) -> None:
    embedder = HashingEmbedder(dimension=32)
    with MemoryCoordinator(store_location, embedder=embedder) as memory:
        user, other = memory.for_namespace("user"), memory.for_namespace("other")
        for namespace in (user, other):
            namespace.store_many([f"harbour ferry note {i}" for i in range(20)])
            namespace.recall("harbour ferry")
        kept_postings, kept_vectors = _held_postings(other), _held_vectors(other)
        assert user.drop_namespace() == 20
        assert _held_postings(user) is None and _held_vectors(user) is None
        assert _held_postings(other) is kept_postings and _held_vectors(other) is kept_vectors


def test_a_failed_scrub_drops_the_namespace_caches(store_location: str) -> None:
    """Whatever fails while a purge scrubs, nothing removed stays behind: all is dropped."""
    with MemoryCoordinator(store_location, embedder=HashingEmbedder(dimension=32)) as memory:
        doomed = memory.store("the harbour code", layer="semantic")
        memory.recall("harbour")
        lexical = memory.database.lexical
        with (
            mock.patch.object(type(lexical), "scrub", side_effect=RuntimeError("scrub failed")),
            pytest.raises(RuntimeError),
        ):
            memory.forget(doomed, "semantic")
        assert _held_postings(memory) is None and _held_vectors(memory) is None


# ---------------------------------------------------------------------- the pieces


def _loaded_afresh(docs: dict[int, tuple[list[str], str | None]]) -> ScopePostings:
    fresh = ScopePostings()
    for pk in sorted(docs):
        fresh.add(pk, docs[pk][1], docs[pk][0], pk)
    return fresh


@pytest.mark.parametrize("seed", range(5))
def test_scrubbed_postings_answer_as_postings_loaded_afresh(seed: int) -> None:
    rng = random.Random(seed)
    postings = ScopePostings()
    docs: dict[int, tuple[list[str], str | None]] = {}
    pk = 0
    for _ in range(4):  # rounds of adds, removals, re-indexing and a scrub
        for _ in range(60):
            pk += 1
            words = [rng.choice(WORDS) for _ in range(rng.randint(0, 9))]
            if rng.random() < 0.2:
                words.append(f"only{pk}")  # a word no other memory has
            docs[pk] = (words, rng.choice([None, "a", "b"]))
            postings.add(pk, docs[pk][1], words, pk)
        for gone in rng.sample(sorted(docs), 25):
            assert postings.discard(gone)
            del docs[gone]
        for again in rng.sample(sorted(docs), 5):  # re-indexed in place: its time kept
            docs[again] = ([rng.choice(WORDS) for _ in range(3)], docs[again][1])
            postings.add(again, docs[again][1], docs[again][0], again)
        assert postings.scrub() == 30 and postings.dead == 0 and postings.scrub() == 0
        fresh = _loaded_afresh(docs)
        held_words = {word for word in postings._vocabulary if word}
        assert held_words == set(postings._term_ids) == {w for d, _ in docs.values() for w in d}
        for _ in range(10):
            terms = [*rng.sample(WORDS, 3), f"only{rng.randint(1, pk)}"]
            for context in (None, "a"):
                assert postings.best(terms, context, 7) == fresh.best(terms, context, 7)
                documents, average, frequencies = postings.counts(terms, context)
                fresh_documents, fresh_average, fresh_frequencies = fresh.counts(terms, context)
                assert (documents, frequencies) == (fresh_documents, fresh_frequencies)
                assert average == pytest.approx(fresh_average)
        asked = rng.sample(range(1, pk + 1), 40)
        keys, documents, times, conversations = postings.documents(asked)
        fresh_keys, fresh_documents, fresh_times, fresh_conversations = fresh.documents(asked)
        assert keys == fresh_keys and times.tolist() == fresh_times.tolist()
        assert conversations == fresh_conversations
        assert [documents.words(i) for i in range(len(keys))] == [
            fresh_documents.words(i) for i in range(len(keys))
        ]


def _rows(count: int, dimension: int = 8) -> Any:
    cached = sqlite_vectors._Rows(version=1, dimension=dimension, capacity=count, int8=False)
    vectors = np.random.default_rng(3).standard_normal((count, dimension)).astype(np.float32)
    cached.append(list(range(1, count + 1)), vectors, [None] * count)
    return cached, vectors


def test_removed_vector_rows_are_zeroed_in_place_then_compacted_a_quarter_at_a_time() -> None:
    cached, vectors = _rows(8_000)
    with _counting_loads() as counted:
        cached.remove(np.asarray([5, 77, 4_000, 99_999], dtype=np.int64))  # one never held
        assert counted["vector rows copied"] == 0  # nothing compacted for three rows
        assert (cached.filled, cached.size, cached.dead) == (8_000, 7_997, 3)
        assert not np.any(cached.vectors[[4, 76, 3_999]]) and not cached.alive[4]
        cached.remove(np.asarray([5], dtype=np.int64))  # removed already: nothing happens
        assert cached.dead == 3
        cached.remove(np.arange(6_001, 8_001, dtype=np.int64))  # past a quarter: compacted
        assert counted["vector rows copied"] == 8_000
    assert (cached.filled, cached.size, cached.dead) == (5_997, 5_997, 0)
    expected = [pk for pk in range(1, 6_001) if pk not in (5, 77, 4_000)]
    assert cached.pks.tolist() == expected
    assert np.array_equal(cached.vectors, vectors[np.asarray(expected) - 1])
    assert not np.any(cached._vectors[5_997:])  # no copy left in the spare rows


def test_a_key_stored_again_out_of_order_is_removed_and_sorted_back_by_compaction() -> None:
    cached, vectors = _rows(3_000)
    cached.remove(np.asarray([10], dtype=np.int64))
    cached.append([10], vectors[9:10] * 2, ["again"])  # stored again under its key
    assert not cached.in_key_order and cached.size == 3_000
    cached.remove(np.asarray([10, 11], dtype=np.int64))  # found without a binary search
    assert cached.size == 2_998 and not cached.alive[-1] and not cached.alive[10]
    cached.keep(np.ones(cached.filled, dtype=bool))
    assert cached.in_key_order and cached.pks.tolist() == [
        pk for pk in range(1, 3_001) if pk not in (10, 11)
    ]


def test_the_exact_search_skips_removed_rows_and_ranks_as_if_compacted(db_path: Any) -> None:
    """Ties (here the zero vectors of texts without a letter) break as in a copy loaded
    afresh, which holds no removed row."""
    embedder = HashingEmbedder(dimension=16)
    with MemoryCoordinator(db_path, embedder=embedder) as memory:
        ids = memory.store_many(["🙂" * (i + 1) for i in range(30)] + ["note 3", "note 4"])
        query = embedder.embed_queries(["note 3"])[0]

        def nearest(coordinator: MemoryCoordinator) -> list[tuple[int, float]]:
            with coordinator.database.read() as conn:
                found = coordinator.database.vectors.nearest(
                    conn, coordinator.namespace, "semantic", query, None, 10
                )
            return [(pk, round(similarity, 6)) for pk, similarity in found]

        nearest(memory)
        forgotten = {_pk(memory, memory_id) for memory_id in ids[:12:3]}
        for memory_id in ids[:12:3]:
            memory.forget(memory_id, "semantic")
        assert _held_vectors(memory).dead == 4
        with MemoryCoordinator(db_path, embedder=embedder) as fresh:
            expected = nearest(fresh)
        assert nearest(memory) == expected and len(expected) == 10
        assert {pk for pk, _ in expected}.isdisjoint(forgotten)
