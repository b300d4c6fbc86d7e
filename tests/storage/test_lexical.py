"""The lexical index contract, on a SQLite file and on PostgreSQL: the counts BM25 needs are
kept beside the index through adds and removes, stores made before they were kept get them
filled once, and both back ends rank the same memories the same way, namely as
:func:`zenbrain._ranking.lexical_score` over the same statistics computed by hand."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from zenbrain import MemoryCoordinator
from zenbrain._ranking import (
    FUNCTION_WORD_WEIGHT,
    FUNCTION_WORDS,
    idf,
    lexical_score,
    with_neighbours,
)
from zenbrain._storage.database import Database
from zenbrain._storage.indexes import IndexedText
from zenbrain.config import resolve_location
from zenbrain.text import content_tokens, tokenize

# Memories of very different lengths, as agents store them: a long pasted text that
# mentions a bit of everything must not beat the short memory that answers.
MEMORIES = (
    "The harbour festival starts on Friday with a parade.",
    "Maria moved to Lisbon last spring.",
    "Meeting notes: the harbour budget, the festival posters, the parade route, the "
    "fireworks permit, the catering for the volunteers, the stage lights, the rain plan, "
    "the harbour master's phone number, the parking, the shuttle buses and the festival "
    "wristbands were discussed; the parade needs two more marshals and the harbour "
    "festival website still lists last year's dates.",
    "Fireworks over the harbour close the festival on Sunday.",
    "Tom's parade costume is a lobster.",
    "Lisbon trams are yellow.",
)
STORED_AT = datetime(2026, 5, 1, 12, 0)
QUERIES = ("harbour festival parade", "when does the festival start", "Lisbon", "fireworks permit")


def _expected(query: str, memories: Sequence[str]) -> list[tuple[str, float]]:
    docs = [content_tokens(m) for m in memories]
    n = len(docs)
    average = sum(len(d) for d in docs) / n
    terms = tokenize(query)
    held = {t: df for t in terms if (df := sum(t in d for d in docs))}
    # A function word weighs a share of its IDF while the query holds another word.
    damp = any(t not in FUNCTION_WORDS for t in held)
    weights = {
        t: idf(n, df) * (FUNCTION_WORD_WEIGHT if damp and t in FUNCTION_WORDS else 1.0)
        for t, df in held.items()
    }
    # A content word no memory holds: what no memory can gain scales every score alike.
    unheld = sum(idf(n, 0) for t in set(terms) - set(held) if t not in FUNCTION_WORDS)
    share = sum(weights.values()) / (sum(weights.values()) + unheld) if weights else 0.0
    matched = [
        (position, m, score)
        for position, (m, d) in enumerate(zip(memories, docs, strict=True))
        if (score := lexical_score(terms, d, weights, average)) > 0
    ]
    # Stored in one batch, one after the other, at one time: conversation neighbours.
    lifted = with_neighbours([(score, position, STORED_AT) for position, _, score in matched])
    scored = [
        (p, m, round(min(1.0, s) * share, 6))
        for (p, m, _), s in zip(matched, lifted, strict=True)
        if min(1.0, s) * share >= 0.01  # the recall's min_score
    ]
    # Best first; equal scores newest first (stored in order: the later one).
    ranked = sorted(scored, key=lambda p: (-p[2], -p[0]))
    return [(m, s) for _, m, s in ranked]


def test_statistics_follow_adds_and_removes(store_location: str, insert_memories: Any) -> None:
    db = Database(*_location(store_location))
    try:
        rows = [
            IndexedText(1, "ns", "episodic", None, ["alpha", "beta", "alpha"]),
            IndexedText(2, "ns", "episodic", "work", ["beta"]),
            IndexedText(3, "ns", "semantic", None, ["gamma", "beta"]),
            IndexedText(4, "other", "episodic", None, ["alpha"] * 10),
        ]
        with db.write() as conn:
            insert_memories(conn, rows)
            db.lexical.add(conn, rows)
        with db.read() as conn:
            stats = db.lexical.statistics(
                conn, "ns", ["episodic", "semantic"], ["alpha", "beta"], None
            )
        assert stats["episodic"].documents == 2
        assert stats["episodic"].average_length == pytest.approx(2.0)
        assert dict(stats["episodic"].frequencies) == {"alpha": 1, "beta": 2}
        assert stats["semantic"].documents == 1
        assert dict(stats["semantic"].frequencies) == {"alpha": 0, "beta": 1}
        with db.read() as conn:
            in_work = db.lexical.statistics(conn, "ns", ["episodic"], ["alpha", "beta"], "work")
        assert in_work["episodic"].documents == 1
        assert dict(in_work["episodic"].frequencies) == {"alpha": 0, "beta": 1}
        with db.write() as conn:
            db.lexical.remove(conn, [1])
        with db.read() as conn:
            after = db.lexical.statistics(conn, "ns", ["episodic"], ["alpha", "beta"], None)
            [counted] = db.lexical.statistics(conn, "ns", ["episodic"], [], None).values()
            assert counted.documents == 1
        assert after["episodic"].documents == 1
        assert after["episodic"].average_length == pytest.approx(1.0)
        assert dict(after["episodic"].frequencies) == {"alpha": 0, "beta": 1}
    finally:
        db.close()


def test_both_back_ends_rank_as_the_reference_score(store_location: str) -> None:
    with MemoryCoordinator(store_location) as memory:
        memory.store_many(
            [{"content": m, "layer": "episodic", "created_at": STORED_AT} for m in MEMORIES]
        )
        for query in (*QUERIES, "harbour festival parade zanzibar quixotic"):
            found = memory.recall(query, layers=["episodic"], limit=10, min_score=0.01)
            assert [(r.content, r.score) for r in found] == _expected(query, MEMORIES), query
        # The long note mentions every query word, more than once, and still loses.
        top = memory.recall("harbour festival parade", layers=["episodic"], limit=1)
        assert top[0].content == MEMORIES[0]


def test_counts_are_filled_for_stores_made_before_they_were_kept(store_location: str) -> None:
    with MemoryCoordinator(store_location) as memory:
        memory.store_many([{"content": m, "layer": "episodic"} for m in MEMORIES])
        before = [(r.content, r.score) for r in memory.recall("harbour festival parade")]
    db = Database(*_location(store_location))
    try:
        with db.write() as conn:
            if db.dialect == "sqlite":
                conn.exec_driver_sql("DROP TABLE zb_lexical_lengths")
            else:
                conn.exec_driver_sql("ALTER TABLE zb_lexical DROP COLUMN length")
                conn.exec_driver_sql("ALTER TABLE zb_lexical_counts DROP COLUMN length")
    finally:
        db.close()
    with MemoryCoordinator(store_location) as reopened:
        after = [(r.content, r.score) for r in reopened.recall("harbour festival parade")]
    assert after == before


def _location(store_location: str) -> tuple[str, Path | None]:
    return resolve_location(store_location)
