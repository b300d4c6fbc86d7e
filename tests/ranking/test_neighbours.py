"""Conversation neighbours lend relevance only between turns of one conversation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from zenbrain.ranking import NEIGHBOUR_WEIGHT, with_neighbours

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def test_named_conversations_decide_who_is_a_neighbour() -> None:
    scored = [(0.8, 1, T0), (0.2, 2, T0), (0.2, 3, T0 + timedelta(days=2)), (0.2, 4, T0)]
    conversations = {1: "thread-a", 2: "thread-a", 3: "thread-a", 4: None}
    lifted = with_neighbours(scored, conversations=conversations)
    assert lifted[1] == pytest.approx(0.2 + NEIGHBOUR_WEIGHT * 0.8 * 0.8)  # same thread
    # Two days later, still the same thread: a neighbour of 2 (the time gap is not asked).
    assert lifted[2] == pytest.approx(0.2 + NEIGHBOUR_WEIGHT * 0.2 * 0.8)
    assert lifted[3] == 0.2  # names no conversation: lends and borrows nothing
    other = with_neighbours(scored, conversations={1: "thread-a", 2: "thread-b"})
    assert other[:2] == [0.8, 0.2]  # stored one after the other, but two threads
    # Without conversations the time gap decides, as before.
    assert with_neighbours(scored)[1] == pytest.approx(lifted[1])
