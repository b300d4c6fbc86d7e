"""The postings each process holds in memory for lexical candidates: they rank as BM25's
relevance computed by hand, count as the index does, and stay in step with every writer
(this process, another coordinator on the same store, another process), including removals,
memories re-indexed in place, a pruned removal log and a rebuilt index, on both back ends
(SQLite follows a change count and AUTOINCREMENT keys, PostgreSQL transaction snapshots)."""

from __future__ import annotations

import itertools
import math
import random
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zenbrain import MemoryCoordinator
from zenbrain._ranking import K1, B
from zenbrain._storage.database import Database
from zenbrain._storage.indexes import IndexedText
from zenbrain._storage.migrations import rebuild_lexical_index
from zenbrain._storage.postgres import lexical as postgres_lexical
from zenbrain._storage.postings import held as held_postings
from zenbrain._storage.postings.scope import ScopePostings
from zenbrain._storage.postings.scopes import scope_tokens
from zenbrain._storage.sqlite import lexical as sqlite_index
from zenbrain.config import resolve_location
from zenbrain.providers import HashingEmbedder
from zenbrain.testing.postgres import fresh_database
from zenbrain.text import tokenize

WORDS = [f"w{i}" for i in range(30)]


def _entry(postings: ScopePostings, pk: int) -> tuple[tuple[str, ...], int, str | None] | None:
    """One memory's terms in order, time and conversation, as :meth:`ScopePostings.documents`
    gives them."""
    keys, documents, times, conversations = postings.documents([pk])
    return (documents.words(0), int(times[0]), conversations[0]) if keys else None


def _relevance(terms: list[str], doc: list[str], docs: dict[int, list[str]]) -> float:
    """BM25's relevance as ScopePostings.best documents it, from the live documents only."""
    live = len(docs)
    average = sum(len(d) for d in docs.values()) / live
    total = 0.0
    for term in dict.fromkeys(terms):
        tf = doc.count(term)
        if not tf:
            continue
        df = sum(term in d for d in docs.values())
        norm = 1 - B + B * len(doc) / average
        total += math.log1p(live / (1 + df)) * min(1.0, tf * (K1 + 1) / (tf + K1 * norm))
    return total


@pytest.mark.parametrize("seed", range(6))
def test_best_and_counts_agree_with_a_count_by_hand(seed: int) -> None:
    rng = random.Random(seed)
    postings = ScopePostings()
    docs: dict[int, list[str]] = {}
    contexts: dict[int, str | None] = {}
    told_in: dict[int, str | None] = {}
    for pk in range(1, 120):
        doc = [rng.choice(WORDS[: rng.randint(3, 30)]) for _ in range(rng.randint(1, 12))]
        context = rng.choice([None, "a", "b"])
        told_in[pk] = rng.choice([None, "chat-1", "chat-2"])
        postings.add(pk, context, doc, pk * 1_000, told_in[pk])
        docs[pk], contexts[pk] = doc, context
    for pk in rng.sample(sorted(docs), 30):  # removed
        assert postings.discard(pk)
        del docs[pk], contexts[pk]
    assert not postings.discard(10_000)
    reindexed = set(rng.sample(sorted(docs), 10))
    for pk in sorted(reindexed):  # re-indexed in place with other words
        doc = [rng.choice(WORDS) for _ in range(rng.randint(1, 8))]
        told_in[pk] = "chat-3"  # a memory indexed again names what it names now
        postings.add(pk, contexts[pk], doc, pk * 1_000 + 1, told_in[pk])
        docs[pk] = doc
    assert len(postings) == len(docs)
    for pk in range(1, 120):  # terms, times, conversations as last indexed; removed: None
        expected_time = pk * 1_000 + (1 if pk in reindexed else 0)
        expected = (tuple(docs[pk]), expected_time, told_in[pk]) if pk in docs else None
        assert _entry(postings, pk) == expected
    # Asked together (in any order, with keys never indexed), the same entries.
    asked = rng.sample(range(1, 130), 60)
    keys, documents, times, conversations = postings.documents(asked)
    assert keys == [pk for pk in asked if pk in docs]
    assert [(documents.words(i), int(times[i]), conversations[i]) for i in range(len(keys))] == [
        _entry(postings, pk) for pk in keys
    ]
    # Dead postings were kept (nothing is compacted) yet count no more.
    assert postings.dead == 40
    for _ in range(20):
        terms = rng.sample(WORDS, rng.randint(1, 4))
        scores = {pk: _relevance(terms, doc, docs) for pk, doc in docs.items()}
        found = postings.best(terms, None, 7)
        matching = [pk for pk, score in scores.items() if score > 0]
        assert len(found) == min(7, len(matching))
        assert len(set(found)) == len(found)
        weakest = min(scores[pk] for pk in found) if found else 0.0
        for pk in set(matching) - set(found):
            assert scores[pk] <= weakest + 1e-6  # nothing better was left out
        for first, second in itertools.pairwise(found):
            assert scores[first] >= scores[second] - 1e-6
        in_a = postings.best(terms, "a", 50)
        assert set(in_a) == {pk for pk in matching if contexts[pk] == "a"}
        documents, average, frequencies = postings.counts(terms, None)
        assert documents == len(docs)
        assert average == pytest.approx(sum(len(d) for d in docs.values()) / len(docs))
        assert frequencies == {t: sum(t in d for d in docs.values()) for t in terms}
        documents, _, frequencies = postings.counts(terms, "b")
        in_b = [d for pk, d in docs.items() if contexts[pk] == "b"]
        assert documents == len(in_b)
        assert frequencies == {t: sum(t in d for d in in_b) for t in terms}
    assert postings.best(["w1"], "no such context", 5) == []
    assert postings.best(["never-indexed"], None, 5) == []
    assert postings.best(["w1"], None, 0) == []


def test_memories_without_index_terms_load_in_bulk_and_one_by_one() -> None:
    postings = ScopePostings()
    postings.extend([(1, None, (), 10, None), (2, "c", (), 20, "t")])  # a chunk without terms
    postings.extend([(3, None, ("harbour",), 30, "t"), (4, None, (), 40, None)])
    postings.add(5, None, (), 50)
    assert len(postings) == 5
    assert _entry(postings, 2) == ((), 20, "t")
    assert _entry(postings, 4) == ((), 40, None)
    keys, documents, times, conversations = postings.documents([4, 3, 2])
    assert keys == [4, 3, 2] and documents.lengths.tolist() == [0, 1, 0]
    assert documents.words(1) == ("harbour",) and times.tolist() == [40, 30, 20]
    assert conversations == [None, "t", "t"]
    keys, documents, times, conversations = postings.documents([])
    assert keys == [] and len(documents) == 0 and len(times) == 0 and conversations == []
    assert postings.best(["harbour"], None, 5) == [3]
    documents, average, frequencies = postings.counts(["harbour"], None)
    assert (documents, average, frequencies) == (5, 0.2, {"harbour": 1})


def test_a_memory_without_index_terms_stored_after_the_first_search(store_location: str) -> None:
    with MemoryCoordinator(store_location) as memory:
        memory.store("the harbour crane")
        assert len(_candidates(memory, "harbour")) == 1
        memory.store("🙂 !!!")  # nothing to index: no words at all
        assert len(_candidates(memory, "harbour")) == 1  # read back alone, in bulk
        memory.store_many(["…", "the harbour at night"])
        assert len(_candidates(memory, "harbour")) == 2
        assert len(_cached(memory)) == 4


def test_equal_scores_put_the_newer_memory_first() -> None:
    postings = ScopePostings()
    for pk in (3, 5, 9):
        postings.add(pk, None, ["same", "words"], 0)
    assert postings.best(["same"], None, 2) == [9, 5]


# --------------------------------------------------------------------------- keeping in step
def _backend(location: str) -> Any:
    """The module holding the back end's tuning constants."""
    return postgres_lexical if location.startswith("postgresql") else sqlite_index


def _candidates(memory: MemoryCoordinator, query: str, layer: str = "semantic") -> set[int]:
    with memory.database.read() as conn:
        return set(
            memory.database.lexical.candidates(
                conn, memory.namespace, layer, tokenize(query), None, 50
            )
        )


def _pk(memory: MemoryCoordinator, memory_id: str) -> int:
    with memory.database.read() as conn:
        row = memory._scope.repo.row(conn, memory_id)
        assert row is not None
        return int(row.pk)


def _id_of(memory: MemoryCoordinator, content: str) -> str:
    found = memory.recall(content, layers=["semantic"], limit=60)
    return next(r.id for r in found if r.content == content)


def _nearest(memory: MemoryCoordinator, vector: Any, layer: str) -> list[tuple[int, float]]:
    with memory.database.read() as conn:
        found = memory.database.vectors.nearest(conn, memory.namespace, layer, vector, None, 10)
    return [(pk, round(cosine, 6)) for pk, cosine in found]


def _cached(memory: MemoryCoordinator, layer: str = "semantic") -> ScopePostings:
    scope, _ = scope_tokens(memory.namespace, layer, None)
    return memory.database.lexical._cache[scope]  # type: ignore[attr-defined]


def test_postings_follow_another_coordinator_on_the_same_file(store_location: str) -> None:
    with MemoryCoordinator(store_location) as reader, MemoryCoordinator(store_location) as writer:
        writer.store_many([f"filler note number {i}" for i in range(40)])
        assert _candidates(reader, "quasar") == set()
        loaded = _cached(reader)
        # Added elsewhere: read incrementally, the copy is kept.
        quasar = writer.store("quasar telescope observation")
        assert _candidates(reader, "quasar telescope") == {_pk(reader, quasar)}
        assert _cached(reader) is loaded
        # Removed elsewhere: found in the removal log, the copy is kept.
        doomed = _id_of(writer, "filler note number 7")
        writer.forget(doomed, "semantic")
        assert _pk(writer, quasar) in _candidates(reader, "quasar")
        assert all(
            r.content != "filler note number 7"
            for r in reader.recall("filler note number 7", limit=60)
        )
        assert _cached(reader) is loaded
        assert len(loaded) == 40
        # Added and removed elsewhere between two searches here.
        fleeting = writer.store("ephemeral comet sighting")
        writer.forget(fleeting, "semantic")
        assert _candidates(reader, "ephemeral comet") == set()
        assert _cached(reader) is loaded


def test_a_memory_reindexed_in_place_elsewhere_is_found_by_its_new_words(
    store_location: str,
) -> None:
    with MemoryCoordinator(store_location) as reader, MemoryCoordinator(store_location) as writer:
        writer.set_core_block("persona", "Prefers green tea in the morning")
        assert len(_candidates(reader, "green tea", "core")) == 1
        loaded = _cached(reader, "core")
        writer.set_core_block("persona", "Drinks espresso after lunch")
        assert _candidates(reader, "green tea", "core") == set()
        assert len(_candidates(reader, "espresso lunch", "core")) == 1
        assert _cached(reader, "core") is loaded
        assert reader.recall("espresso", layers=["core"], core="matching")[0].content == (
            "Drinks espresso after lunch"
        )


def test_a_pruned_removal_log_reloads_the_scope(
    store_location: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = _backend(store_location)
    monkeypatch.setattr(backend, "REMOVAL_LOG_KEPT", 2)
    if backend is postgres_lexical:
        monkeypatch.setattr(postgres_lexical, "PRUNE_SLACK", 0)
    with MemoryCoordinator(store_location) as reader, MemoryCoordinator(store_location) as writer:
        ids = writer.store_many([f"harbour crane number {i}" for i in range(12)])
        assert len(_candidates(reader, "harbour crane")) == 12
        loaded = _cached(reader)
        for memory_id in ids[:6]:
            writer.forget(memory_id, "semantic")
        assert _candidates(reader, "harbour crane") == {_pk(writer, i) for i in ids[6:]}
        assert _cached(reader) is not loaded  # entries it never saw were pruned: reloaded


def test_a_rolled_back_write_leaves_nothing_behind(
    store_location: str, insert_memories: Any
) -> None:
    with MemoryCoordinator(store_location) as memory:
        memory.store("a first memory about lighthouses")
        assert len(_candidates(memory, "lighthouses")) == 1
        db = memory.database
        with pytest.raises(RuntimeError), db.write() as conn:
            abandoned = IndexedText(999, memory.namespace, "semantic", None, ["lighthouses"])
            if db.dialect == "postgresql":
                insert_memories(conn, [abandoned])  # the index references its memory
            db.lexical.add(conn, [abandoned])
            # Seen by a search inside the writing transaction, then rolled back.
            assert 999 in db.lexical.candidates(
                conn, memory.namespace, "semantic", ["lighthouses"], None, 10
            )
            raise RuntimeError("abandon the transaction")
        assert 999 not in _candidates(memory, "lighthouses")
        memory.store("a second memory about lighthouses")
        assert len(_candidates(memory, "lighthouses")) == 2


def test_a_rebuilt_index_elsewhere_is_reloaded(store_location: str) -> None:
    with MemoryCoordinator(store_location) as reader:
        reader.store_many(["alpha beta", "beta gamma", "gamma delta"])
        assert len(_candidates(reader, "beta")) == 2
        loaded = _cached(reader)
        other = Database(*resolve_location(store_location))
        try:
            with other.write() as conn:
                assert rebuild_lexical_index(other, conn) == 3
        finally:
            other.close()
        # Same memories, same keys, same count: only the change count says it happened.
        assert len(_candidates(reader, "beta")) == 2
        assert _cached(reader) is not loaded


def test_postings_follow_another_process(store_location: str) -> None:
    with MemoryCoordinator(store_location) as memory:
        memory.store_many([f"filler note number {i}" for i in range(30)])
        memory.set_core_block("persona", "Likes sailing")
        memory.recall("warm the postings")
        script = textwrap.dedent(
            f"""
            from zenbrain import MemoryCoordinator
            with MemoryCoordinator({store_location!r}) as m:
                m.store("pulsar radio signal")
                found = m.recall("filler note number 7", layers=["semantic"], limit=60)
                m.forget(next(r.id for r in found if r.content.endswith(" 7")), "semantic")
                m.set_core_block("persona", "Likes climbing")
            """
        )
        subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
        assert memory.recall("pulsar radio", limit=1)[0].content == "pulsar radio signal"
        remaining = memory.recall("filler note number 7", layers=["semantic"], limit=60)
        assert "filler note number 7" not in [r.content for r in remaining]
        assert _candidates(memory, "sailing", "core") == set()
        assert len(_candidates(memory, "climbing", "core")) == 1
        assert len(_cached(memory)) == 30


def test_postings_are_compacted_once_removals_outnumber_live_memories(
    store_location: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Removals that are not purges (``replace`` here) mark memories dead in the postings
    held; forget scrubs what the forgotten memories held and drop_namespace drops the
    namespace's postings (tests/storage/test_purge.py, test_forget_keeps_caches.py)."""
    monkeypatch.setattr(held_postings, "RELOAD_AFTER_REMOVALS", 3)
    with MemoryCoordinator(store_location) as memory:
        memory.store_many(
            [{"content": f"orchard apple tree {i}", "metadata": {"n": i}} for i in range(4)]
        )
        assert len(_candidates(memory, "orchard")) == 4
        loaded = _cached(memory)
        for i in range(4):
            memory.replace({"n": i}, f"orchard apple tree again {i}")
        assert len(_candidates(memory, "orchard")) == 4
        assert _cached(memory) is loaded and loaded.dead == 4  # four dead, four live
        memory.replace({"n": 0}, "orchard apple tree once more")
        assert len(_candidates(memory, "orchard")) == 4
        reloaded = _cached(memory)
        assert reloaded is not loaded and reloaded.dead == 0 and len(reloaded) == 4


def test_searches_and_writes_from_many_threads(store_location: str) -> None:
    """Postings are numpy views of growing arrays while a search runs: a write in another
    thread must never resize one under it, nor a search see half a write."""
    errors: list[BaseException] = []
    with MemoryCoordinator(store_location) as memory:
        memory.store_many([f"ferry timetable note {i}" for i in range(200)])
        stop = threading.Event()

        def search() -> None:
            try:
                while not stop.is_set():
                    found = memory.recall("ferry timetable", layers=["semantic"], limit=5)
                    assert len(found) == 5
            except BaseException as exc:
                errors.append(exc)

        readers = [threading.Thread(target=search) for _ in range(3)]
        for reader in readers:
            reader.start()
        try:
            for i in range(60):
                memory.store(f"ferry timetable change number {i}")
                if i % 10 == 0:
                    memory.set_core_block("persona", f"takes the ferry {i} times a week")
        finally:
            stop.set()
            for reader in readers:
                reader.join(timeout=60)
        assert not errors, errors
        assert len(_candidates(memory, "ferry timetable")) == 50  # the pool: 260 match
        assert len(_cached(memory)) == 260


@pytest.mark.postgres
def test_postgres_follows_transactions_that_commit_out_of_key_order(
    postgres_url: str, insert_memories: Any
) -> None:
    """A key drawn earlier can commit later: the copy must still take that memory in, by
    its transaction, without loading the scope again."""
    with fresh_database(postgres_url) as url, MemoryCoordinator(url) as reader:
        reader.store("an opening note about tides")
        assert len(_candidates(reader, "tides")) == 1
        loaded = _cached(reader)
        db = reader.database
        early = IndexedText(10_001, reader.namespace, "semantic", None, tokenize("tides early"))
        late = IndexedText(10_002, reader.namespace, "semantic", None, tokenize("tides late"))
        with db.write() as first:
            insert_memories(first, [early])  # the lower key, its transaction still open
            with db.write() as second:
                insert_memories(second, [late])
                db.lexical.add(second, [late])
            opening = _pk(reader, _id_of(reader, "an opening note about tides"))
            assert _candidates(reader, "tides") == {opening, 10_002}
            db.lexical.add(first, [early])
        assert 10_001 in _candidates(reader, "tides early")
        assert len(_candidates(reader, "tides")) == 3
        assert _cached(reader) is loaded


def test_a_memory_with_nothing_to_embed_is_similar_to_nothing(store_location: str) -> None:
    """The zero vector has no direction: SQLite's dot product gives 0, and pgvector's cosine
    distance NaN, which must not reach a score."""
    embedder = HashingEmbedder(dimension=32)
    with MemoryCoordinator(store_location, embedder=embedder) as memory:
        memory.store_many(["🙂", "harbour crane at night"])
        vector = embedder.embed_queries(["harbour crane"])[0]
        found = dict(_nearest(memory, vector, "semantic"))
        assert found[_pk(memory, _id_of(memory, "🙂"))] == 0.0
        assert all(not math.isnan(r.score) for r in memory.recall("harbour crane", limit=5))


@pytest.mark.postgres
def test_postgres_reads_many_changes_a_page_at_a_time(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(postgres_lexical, "CATCH_UP_PAGE", 3)
    with (
        fresh_database(postgres_url) as url,
        MemoryCoordinator(url) as reader,
        MemoryCoordinator(url) as writer,
    ):
        writer.store_many([f"glacier survey note {i}" for i in range(4)])
        assert len(_candidates(reader, "glacier")) == 4
        loaded = _cached(reader)
        ids = writer.store_many([f"glacier survey entry {i}" for i in range(7)])
        for i in range(5):
            writer.store(f"glacier melt reading {i}")
        writer.forget(ids[0], "semantic")
        writer.for_namespace("elsewhere").store_many([f"glacier {i}" for i in range(8)])
        with MemoryCoordinator(url) as fresh:
            assert _candidates(reader, "glacier") == _candidates(fresh, "glacier")
        assert len(_candidates(reader, "glacier")) == 15
        assert _cached(reader) is loaded  # read in pages, not loaded again


@pytest.mark.postgres
def test_a_long_transaction_elsewhere_does_not_make_searches_read_everything_again(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows its snapshot saw are not read again, however old the oldest running
    transaction on the server is: the range starts at the snapshot's xmax."""
    monkeypatch.setattr(postgres_lexical, "CATCH_UP_PAGE", 3)
    with (
        fresh_database(postgres_url) as url,
        MemoryCoordinator(url) as reader,
        MemoryCoordinator(url) as writer,
    ):
        writer.store("a first fjord note")
        assert len(_candidates(reader, "fjord")) == 1
        lexical: Any = reader.database.lexical
        pages: list[int] = []
        read_page = lexical._changes

        def counted(*args: Any, **kwargs: Any) -> Any:
            pages.append(1)
            return read_page(*args, **kwargs)

        monkeypatch.setattr(lexical, "_changes", counted)
        with writer.database.write() as long_running:  # holds an xid, stays open
            long_running.exec_driver_sql("SELECT pg_current_xact_id()")
            for i in range(10):
                writer.for_namespace("elsewhere").store(f"fjord ferry {i}")
            writer.store("a second fjord note")
            assert len(_candidates(reader, "fjord")) == 2
            pages.clear()
            assert len(_candidates(reader, "fjord")) == 2
            assert len(pages) == 1  # nothing new: one page, not the eleven rows again


# --------------------------------------------------------------------------- any sequence
_WORDS = ["harbour", "crane", "ferry", "night", "tea", "🙂", "the", "of", "Lisbon", "parade"]
# Often a text with no index term at all: it must load and catch up like any other.
_texts = st.one_of(
    st.sampled_from(["🙂", "the of", "…"]),
    st.lists(st.sampled_from(_WORDS), min_size=1, max_size=6).map(" ".join),
)
_operations = st.lists(
    st.one_of(
        st.tuples(st.just("store"), st.integers(0, 1), _texts),
        st.tuples(st.just("store_many"), st.integers(0, 1), st.lists(_texts, max_size=4)),
        st.tuples(st.just("forget"), st.integers(0, 1), st.integers(0, 50)),
        st.tuples(st.just("core"), st.integers(0, 1), _texts),
        st.tuples(st.just("recall"), st.integers(0, 1), _texts),
    ),
    min_size=1,
    max_size=25,
)


_KEPT_IN_STEP_SETTINGS = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow],
}


@pytest.mark.parametrize("embedded", [False, True], ids=["lexical", "hybrid"])
@settings(max_examples=60, **_KEPT_IN_STEP_SETTINGS)  # type: ignore[arg-type]
@given(operations=_operations)
def test_postings_kept_in_step_equal_postings_loaded_afresh(
    embedded: bool, operations: list[Any]
) -> None:
    folder = Path(tempfile.mkdtemp(prefix="zb-postings-"))
    try:
        _kept_in_step_equal_loaded_afresh(str(folder / "store.db"), embedded, operations)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# Fewer examples: each one creates a database on the server, and CI must stay short. A
# page of 2 rows makes nearly every catch-up read several pages.
@pytest.mark.postgres
@pytest.mark.parametrize("page", [postgres_lexical.CATCH_UP_PAGE, 2], ids=["page", "pages"])
@pytest.mark.parametrize("embedded", [False, True], ids=["lexical", "hybrid"])
@settings(max_examples=12, **_KEPT_IN_STEP_SETTINGS)  # type: ignore[arg-type]
@given(operations=_operations)
def test_postgres_postings_kept_in_step_equal_postings_loaded_afresh(
    postgres_url: str, embedded: bool, page: int, operations: list[Any]
) -> None:
    with (
        mock.patch.object(postgres_lexical, "CATCH_UP_PAGE", page),
        fresh_database(postgres_url) as url,
    ):
        _kept_in_step_equal_loaded_afresh(url, embedded, operations)


def _kept_in_step_equal_loaded_afresh(path: str, embedded: bool, operations: list[Any]) -> None:
    """Two coordinators on one store write and search in any order; afterwards each one's
    postings (and, with an embedder, cached vectors), kept in step search by search, answer
    exactly as those loaded afresh."""
    embedder = HashingEmbedder(dimension=32) if embedded else None
    ids: list[tuple[str, str]] = []
    with (
        MemoryCoordinator(path, embedder=embedder) as first,
        MemoryCoordinator(path, embedder=embedder) as second,
    ):
        pair = (first, second)
        for kind, who, argument in operations:
            memory = pair[who]
            # Memories name one of two conversations, or none: the held postings keep each
            # one's, and recall's conversation evidence scores by them.
            if kind == "store":
                told_in = (None, "chat-a", "chat-b")[len(ids) % 3]
                ids.append((memory.store(argument, conversation=told_in), "semantic"))
            elif kind == "store_many" and argument:
                items = [
                    {"content": text, "conversation": (None, "chat-a", "chat-b")[n % 3]}
                    for n, text in enumerate(argument, start=len(ids))
                ]
                ids += [(i, "semantic") for i in memory.store_many(items)]
            elif kind == "forget" and ids:
                memory_id, layer = ids.pop(argument % len(ids))
                memory.forget(memory_id, layer)
            elif kind == "core":
                memory.set_core_block("persona", argument)
            elif kind == "recall":
                memory.recall(argument, limit=5)
            # Both search both layers after every step, so each holds its copies from
            # early on and must follow every later write (core blocks are shown, not
            # searched, by recall).
            for held in pair:
                for layer in ("semantic", "core"):
                    _candidates(held, "harbour ferry", layer)
                    if embedder is not None:
                        _nearest(held, embedder.embed_queries(["harbour ferry"])[0], layer)
        queries = ["harbour crane", "ferry night tea", "Lisbon parade", "crane"]
        with MemoryCoordinator(path, embedder=embedder) as fresh:
            for query in queries:
                for layer in ("semantic", "core"):
                    expected = _candidates(fresh, query, layer)
                    assert _candidates(first, query, layer) == expected
                    assert _candidates(second, query, layer) == expected
                if embedder is not None:
                    vector = embedder.embed_queries([query])[0]
                    for layer in ("semantic", "core"):
                        expected_near = _nearest(fresh, vector, layer)
                        assert _nearest(first, vector, layer) == expected_near
                        assert _nearest(second, vector, layer) == expected_near
                expected_results = [(r.id, r.score) for r in fresh.recall(query, limit=5)]
                for memory in pair:
                    got = [(r.id, r.score) for r in memory.recall(query, limit=5)]
                    assert got == expected_results
