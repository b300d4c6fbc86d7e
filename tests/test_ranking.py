"""The ranking rules that are not BM25 itself: which query words count toward what a query
can attain, and how conversation neighbours lend each other relevance."""

from __future__ import annotations

import warnings
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zenbrain import MemoryCoordinator
from zenbrain._ranking import (
    CONVERSATION_GAP,
    NEIGHBOUR_WEIGHT,
    EncodedDocuments,
    LexicalQuery,
    idf,
    lexical_score,
    query_weights,
    with_neighbours,
)

T0 = datetime(2026, 3, 1, 9, 0)


def test_words_no_memory_holds_do_not_count() -> None:
    weights = query_weights(100, {"lisbon": 3, "zanzibar": 0})
    assert weights == {"lisbon": idf(100, 3)}
    doc = ["maria", "moved", "lisbon"]
    # "zanzibar" is in no memory: the memory holding every other query word scores as if the
    # query had not named it (before, it lost the unknown word's IDF mass, the largest of all).
    alone = lexical_score(["lisbon"], doc, query_weights(100, {"lisbon": 3}), 3.0)
    assert lexical_score(["lisbon", "zanzibar"], doc, weights, 3.0) == pytest.approx(alone)
    assert alone == pytest.approx(1.0)


def test_neighbours_lift_by_the_better_neighbour_within_bounds() -> None:
    scored = [(0.5, 10, T0), (0.8, 11, T0), (0.2, 12, T0)]
    lifted = with_neighbours(scored)
    w = NEIGHBOUR_WEIGHT
    assert lifted[0] == pytest.approx(0.5 + w * 0.8 * 0.5)
    assert lifted[1] == pytest.approx(0.8 + w * 0.5 * 0.2)  # the better of 0.5 and 0.2
    assert lifted[2] == pytest.approx(0.2 + w * 0.8 * 0.8)
    assert all(new >= old for new, (old, _, _) in zip(lifted, scored, strict=True))
    assert with_neighbours([(1.0, 1, T0), (1.0, 2, T0)]) == [1.0, 1.0]  # never above 1


def test_only_adjacent_memories_close_in_time_are_neighbours() -> None:
    gap = CONVERSATION_GAP
    scored = [
        (0.5, 1, T0),
        (0.5, 3, T0),  # key 2 lies between: not a neighbour of 1
        (0.5, 4, T0 + gap + timedelta(seconds=1)),  # adjacent to 3 but too late
        (0.5, 5, T0 + gap + timedelta(minutes=5)),  # adjacent to 4, close in time
    ]
    lifted = with_neighbours(scored)
    assert lifted[:3] == [0.5, 0.5, pytest.approx(0.5 + NEIGHBOUR_WEIGHT * 0.25)]
    assert lifted[3] == pytest.approx(0.5 + NEIGHBOUR_WEIGHT * 0.25)
    assert with_neighbours(scored, weight=0.0) == [0.5] * 4


def test_recall_prefers_the_turn_next_to_the_question(tmp_path: Path) -> None:
    # Stored as a conversation is, turn after turn. Two turns match "sleeps" equally; the one
    # that answers the question asked the turn before wins, though the other is newer.
    turns = [
        "Did you finally adopt that rescue greyhound you mentioned?",
        "Yes, and she sleeps on my bed.",
        "We booked a cabin near the lake for the summer.",
        "The new job starts in two weeks.",
        "My old cat sleeps on the sofa.",
    ]
    with MemoryCoordinator(tmp_path / "chat.db") as memory:
        memory.store_many(
            [
                {"content": text, "layer": "episodic", "created_at": T0 + timedelta(minutes=i)}
                for i, text in enumerate(turns)
            ]
        )
        found = [r.content for r in memory.recall("greyhound sleeps", limit=3)]
    assert found[:3] == [turns[0], turns[1], turns[4]]


def test_memories_stored_days_apart_lend_nothing(tmp_path: Path) -> None:
    notes = ["Paris trip: the Louvre was closed.", "Paris in spring is lovely."]

    def scores(step: timedelta, name: str) -> dict[str, float]:
        with MemoryCoordinator(tmp_path / name) as memory:
            memory.store_many(
                [
                    {"content": text, "layer": "episodic", "created_at": T0 + i * step}
                    for i, text in enumerate(notes)
                ]
            )
            return {r.content: r.score for r in memory.recall("Paris Louvre", limit=2)}

    apart, together = scores(timedelta(days=2), "apart.db"), scores(timedelta(minutes=2), "t.db")
    assert apart[notes[1]] < together[notes[1]]
    assert apart[notes[0]] < together[notes[0]]
    # Apart, each scores what its own words give it.
    assert together[notes[1]] == pytest.approx(
        apart[notes[1]] + NEIGHBOUR_WEIGHT * apart[notes[0]] * (1 - apart[notes[1]]), abs=1e-5
    )


_WORDS = ["harbour", "kiel", "förde", "sail", "boat", "tea", "garden", "rain"]


def _encoded(docs: list[list[str]]) -> EncodedDocuments:
    vocabulary = list(dict.fromkeys(word for doc in docs for word in doc))
    numbers = {word: number for number, word in enumerate(vocabulary)}
    terms = np.array([numbers[word] for doc in docs for word in doc], dtype=np.int32)
    return EncodedDocuments(terms, np.array([len(doc) for doc in docs]), numbers, vocabulary)


@settings(max_examples=300, deadline=None)
@given(
    query=st.lists(st.sampled_from([*_WORDS, "absent"]), min_size=0, max_size=6),
    docs=st.lists(st.lists(st.sampled_from(_WORDS), max_size=12), max_size=8),
    weights=st.dictionaries(
        st.sampled_from([*_WORDS, "absent"]), st.floats(0.0, 5.0, allow_nan=False)
    ),
    average_length=st.one_of(st.none(), st.floats(0.0, 20.0, allow_nan=False)),
    b=st.sampled_from([0.0, 0.75, 1.0]),
)
def test_documents_scored_together_score_as_each_alone(
    query: list[str],
    docs: list[list[str]],
    weights: dict[str, float],
    average_length: float | None,
    b: float,
) -> None:
    prepared = LexicalQuery(query, weights, b=b)
    together = prepared.score_documents(_encoded(docs), average_length)
    alone = [prepared.score(doc, average_length) for doc in docs]
    assert together.tolist() == alone  # bit for bit, not approximately


def test_scoring_together_finds_pairs_only_within_one_document() -> None:
    # "kiel förde" spans the end of one document and the start of the next: no pair there.
    prepared = LexicalQuery(["kiel", "förde"], {"kiel": 1.0, "förde": 1.0})
    docs = [["sail", "kiel"], ["förde", "tea"], ["kiel", "förde"]]
    scores = prepared.score_documents(_encoded(docs), 2.0).tolist()
    assert scores == [prepared.score(doc, 2.0) for doc in docs]
    assert scores[2] > scores[0] == scores[1] > 0


def test_a_vanishing_mean_length_scores_as_alone_without_a_warning() -> None:
    # Python's floats overflow to inf silently in score(); numpy would warn about it.
    prepared = LexicalQuery(["kiel"], {"kiel": 1.0})
    docs = [["kiel", "harbour"], ["tea"]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scores = prepared.score_documents(_encoded(docs), 1e-310).tolist()
    assert scores == [prepared.score(doc, 1e-310) for doc in docs]
