"""Conversation evidence: a turn gains a share of the best other match of its conversation,
and memories naming no conversation lend each other nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from zenbrain import MemoryCoordinator
from zenbrain._ranking import CONVERSATION_WEIGHT, Candidate, rank_candidates, with_conversation

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def test_each_turn_gains_a_share_of_the_best_other_match_of_its_conversation() -> None:
    scored = [(0.8, "a"), (0.3, "a"), (0.5, "a"), (0.3, "b"), (0.6, None)]
    lifted = with_conversation(scored)
    w = CONVERSATION_WEIGHT
    assert lifted[0] == pytest.approx(0.8 + w * 0.5 * 0.2)  # the best: lent by the runner-up
    assert lifted[1] == pytest.approx(0.3 + w * 0.8 * 0.7)
    assert lifted[2] == pytest.approx(0.5 + w * 0.8 * 0.5)
    assert lifted[3] == 0.3  # alone in its conversation
    assert lifted[4] == 0.6  # names none
    assert with_conversation(scored, weight=0.0) == [s for s, _ in scored]
    # Two equal best scores lend each other; scores stay within 0..1.
    tied = with_conversation([(1.0, "a"), (1.0, "a"), (0.4, "a")])
    assert tied[:2] == [1.0, 1.0] and tied[2] == pytest.approx(0.4 + w * 0.6)
    # Nothing is lent by a score of 0, and nothing lends to a conversation's only match.
    assert with_conversation([(0.0, "a"), (0.0, "a"), (0.5, "b")]) == [0.0, 0.0, 0.5]


def test_ranking_counts_a_conversations_evidence_for_its_turns() -> None:
    far = timedelta(days=3)  # no neighbours: stored days apart

    def order(second_names: str | None) -> list[int | str]:
        candidates = [
            Candidate(1, "episodic", T0, 0.6, conversation="trip"),
            Candidate(5, "episodic", T0 + far, 0.4, conversation="trip"),
            Candidate(9, "episodic", T0 + 2 * far, 0.4, conversation=second_names),
        ]
        return [r.candidate.key for r in rank_candidates(candidates, semantic=False)]

    # Equal scores put the newest first, unless the older turn's conversation holds
    # another match.
    assert order(None) == [1, 5, 9]
    assert order("work") == [1, 5, 9]
    assert order("trip") == [1, 9, 5]  # all three of one conversation: newest first again


@pytest.mark.parametrize("named", [True, False], ids=["conversations", "none named"])
def test_a_turn_whose_conversation_holds_the_rest_of_the_answer_comes_first(
    store_location: str, named: bool
) -> None:
    """Two turns match "when did the Lisbon flight leave" equally ("flight", "leave"); the
    one whose conversation also named Lisbon comes first. Without conversations named, the
    newer one does (equal scores: newest first), as before. (Asked in the past tense, so
    that the newer of two turns about one thing is not taken for an update of it.)"""
    now = [T0]
    with MemoryCoordinator(store_location, clock=lambda: now[0]) as memory:
        told = [
            ("We are going to Lisbon for the conference in spring.", "trip"),
            ("The quarterly report is due on Friday.", "work"),
            ("The flight will leave at seven in the morning.", "trip"),
            ("The team offsite needs a venue near the station.", "work"),
            ("Our flight should leave at seven in the evening.", "berlin"),
        ]
        ids = []
        for content, conversation in told:
            ids.append(
                memory.store(
                    content, layer="episodic", conversation=conversation if named else None
                )
            )
            now[0] += timedelta(hours=2)  # far apart: no neighbours
        found = [r.id for r in memory.recall("when did the Lisbon flight leave", limit=3)]
    lisbon_flight, berlin_flight = ids[2], ids[4]
    first = lisbon_flight if named else berlin_flight
    second = berlin_flight if named else lisbon_flight
    assert found.index(first) < found.index(second), found
