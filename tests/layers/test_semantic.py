"""The semantic layer's rules: how facts relate, and FSRS review of a fact."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from zenbrain.layers._semantic import (
    after_replay,
    compare_facts,
    first_schedule,
    relate_facts,
    retrievability,
    review,
)


def test_compare_facts() -> None:
    assert compare_facts("The server is running", "The server is not running")[0] == "contradicts"
    assert compare_facts("Alice likes coffee", "Alice doesn't like coffee")[0] == "contradicts"
    assert compare_facts("Alice likes coffee", "Bob does not drink coffee")[0] is None
    assert compare_facts("Der Zug fährt heute", "Der Zug fährt heute nicht")[0] == "contradicts"
    assert compare_facts("Water boils at 100 C.", "water boils at 100 c")[0] == "supports"
    assert compare_facts("Water boils at 100 C", "Tea tastes good")[0] is None


def test_thresholds_decide_the_relation() -> None:
    relation, similarity = relate_facts("Alice likes green tea", "Alice likes black tea")
    assert relation is None and similarity == pytest.approx(0.6)  # {alice, like, tea} of 5
    assert relate_facts(
        "Alice likes green tea", "Alice likes black tea", support_threshold=0.6
    ) == ("supports", pytest.approx(0.6))


def test_a_new_fact_is_learned_once_and_reviews_push_it_out() -> None:
    learned = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
    card = first_schedule(learned)
    first_due = datetime.fromisoformat(card["due"])
    assert first_due > learned
    assert retrievability(card, learned) == pytest.approx(1.0)
    later = first_due + timedelta(days=1)
    assert retrievability(card, later) < 0.95
    easy = review(card, 4, later)
    again = review(card, 1, later)
    assert datetime.fromisoformat(easy["due"]) > datetime.fromisoformat(again["due"])
    assert easy["stability"] > card["stability"] > again["stability"]


def test_replay_moves_the_next_review_out_but_never_earlier() -> None:
    learned = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
    card = first_schedule(learned)
    stronger = after_replay(card, card["stability"] * 1.5)
    assert stronger["stability"] == pytest.approx(card["stability"] * 1.5)
    expected = learned + timedelta(days=card["stability"] * 1.5)
    assert datetime.fromisoformat(stronger["due"]) == expected
    weaker = after_replay(card, card["stability"] / 10)
    assert datetime.fromisoformat(weaker["due"]) == datetime.fromisoformat(card["due"])
    assert card["stability"] < stronger["stability"]  # the input is not changed in place
