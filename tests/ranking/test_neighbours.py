"""Conversation neighbours lend relevance only between turns of one conversation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from zenbrain._ranking import CONVERSATION_GAP, NEIGHBOUR_WEIGHT, with_neighbours

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def test_named_conversations_decide_who_is_a_neighbour() -> None:
    later = T0 + timedelta(days=2)
    scored = [(0.8, 1, T0), (0.2, 2, T0), (0.2, 3, later), (0.2, 4, later), (0.2, 5, later)]
    conversations = {1: "thread-a", 2: "thread-a", 3: "thread-a", 4: None, 5: None}
    lifted = with_neighbours(scored, conversations=conversations)
    assert lifted[1] == pytest.approx(0.2 + NEIGHBOUR_WEIGHT * 0.8 * 0.8)  # same thread
    # 3 is of thread-a but two days after 2 (the gap holds within a thread too), and 4
    # names none: 3 is nobody's neighbour. 4 and 5 name none and were stored together.
    assert lifted[2] == 0.2
    assert lifted[3] == lifted[4] == pytest.approx(0.2 + NEIGHBOUR_WEIGHT * 0.2 * 0.8)
    other = with_neighbours(scored[:2], conversations={1: "thread-a", 2: "thread-b"})
    assert other == [0.8, 0.2]  # stored one after the other, but two threads
    # Without conversations the time gap decides, as before.
    far = [(0.8, 1, T0), (0.2, 2, T0 + CONVERSATION_GAP + timedelta(seconds=1))]
    assert with_neighbours(far) == [0.8, 0.2]
    assert with_neighbours(far, conversations={1: "a", 2: "a"}) == [0.8, 0.2]


def test_ranking_lends_only_within_a_named_conversation() -> None:
    from zenbrain._ranking import Candidate, rank_candidates

    def scores(first: str | None, second: str | None) -> dict[int | str, float]:
        candidates = [
            Candidate(1, "semantic", T0, 0.9, conversation=first),
            Candidate(2, "procedural", T0 + timedelta(seconds=20), 0.3, conversation=second),
        ]
        return {r.candidate.key: r.score for r in rank_candidates(candidates, semantic=False)}

    assert scores(None, None)[2] > 0.3  # stored together, neither names one: as before
    assert scores("ops", "ops")[2] > 0.3
    assert scores("ops", "release")[2] == pytest.approx(0.3)
    assert scores("ops", None)[2] == pytest.approx(0.3)


@pytest.mark.parametrize(("release_told_in", "lent"), [("release", False), ("ops", True)])
def test_a_fact_from_another_conversation_lends_the_next_one_nothing(
    release_told_in: str, lent: bool
) -> None:
    """Issue 42: in a store of separate facts, "How to release: ..." scored 0.566 for "when
    does the backup run", 0.286 of it lent by the backup fact stored right before it. Told
    in another conversation, it keeps its own score; told in the same one, it is lent."""
    from zenbrain import MemoryCoordinator

    now = [T0]
    with MemoryCoordinator(":memory:", clock=lambda: now[0]) as memory:
        for content, conversation in (
            ("The nightly backup runs at 2am and keeps 30 days of snapshots.", "ops"),
            ("How to release: 1. run the tests 2. tag the version 3. push the tag.", None),
        ):
            memory.store(content, conversation=conversation or release_told_in)
            now[0] += timedelta(seconds=20)
        (release,) = [
            r
            for r in memory.recall("when does the backup run", explain=True)
            if r.content.startswith("How to release")
        ]
    assert release.explanation is not None and release.explanation.lexical is not None
    assert ((release.explanation.neighbours or 0.0) > 0.1) is lent
    if not lent:
        assert release.score == pytest.approx(release.explanation.lexical)
