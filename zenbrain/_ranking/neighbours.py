"""Conversation neighbours: memories stored one right after the other lend each other
relevance, whichever layer routing filed each of them in."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

__all__ = ["CONVERSATION_GAP", "NEIGHBOUR_WEIGHT", "with_neighbours"]

# docs/benchmarks.md, "Recall: how the defaults were chosen", tables "Lexical score" and
# "Fusion" (0.2 to 0.6 is a plateau; 0.5 its middle).
NEIGHBOUR_WEIGHT = 0.5
# Two memories stored one after the other this close in time belong to one conversation: the
# usual gap that separates two visits in session analysis, not fitted (same tables).
CONVERSATION_GAP = timedelta(minutes=30)


def with_neighbours(
    scored: Sequence[tuple[float, int, datetime]],
    *,
    weight: float = NEIGHBOUR_WEIGHT,
    gap: timedelta = CONVERSATION_GAP,
    conversations: Mapping[int, str | None] | None = None,
) -> list[float]:
    """Scores of candidates ``(score, key, created_at)`` with a share of their conversation
    neighbours' relevance.

    Two candidates are neighbours when they were stored one right after the other (keys
    ``k`` and ``k + 1``) as turns of one conversation. A turn is often relevant through the
    turn next to it (an answer to a question asked the turn before, a detail of an event
    told over two turns), so each candidate gains ``weight`` times its better neighbour's
    score, on the share of the scale it has not yet reached (``s + weight * n * (1 - s)``),
    which keeps every score within 0..1 and never lowers one.

    Which memories are turns of one conversation: two stored no more than ``gap`` apart
    that name the same conversation (``conversations``, by key: a session, a thread) or
    both name none. One that names a conversation and one that names none, or two that name
    different ones, never are, however close in time: in a store of separate facts told
    in separate conversations, a fact does not lift the one stored after it. Memories
    stored far apart in time, or with other memories stored between them, lend each other
    nothing (within one conversation too: keeping the gap there loses no question on any
    public set, and dropping it loses two of REALTALK's 696; docs/benchmarks.md, "Recall on
    long conversations")."""
    by_key = {key: (score, created) for score, key, created in scored}
    out = []
    for score, key, created in scored:
        best = 0.0
        own = conversations.get(key) if conversations is not None else None
        for other in (key - 1, key + 1):
            found = by_key.get(other)
            if found is None:
                continue
            theirs = conversations.get(other) if conversations is not None else None
            if own == theirs and abs(found[1] - created) <= gap:
                best = max(best, found[0])
        out.append(score + weight * best * (1.0 - score) if best > 0 else score)
    return out
