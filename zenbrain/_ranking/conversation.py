"""Conversation evidence: a question is often answered across several turns of one
conversation (a plan made in one turn, its date in another), so each turn of a named
conversation gains a share of the best match among the other turns of that conversation."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["CONVERSATION_WEIGHT", "with_conversation"]

# docs/benchmarks.md, "Recall on long conversations", table "Conversation evidence": 0.15 to
# 0.25 is a plateau on the four public sets at once; 0.2 its middle.
CONVERSATION_WEIGHT = 0.2


def with_conversation(
    scored: Sequence[tuple[float, str | None]],
    *,
    weight: float = CONVERSATION_WEIGHT,
) -> list[float]:
    """Scores of candidates ``(score, conversation)``, in their order, with a share of their
    conversation's evidence.

    Each candidate that names a conversation gains ``weight`` times the best score among the
    *other* candidates naming the same conversation, on the share of the scale it has not
    yet reached (``s + weight * best * (1 - s)``): within 0..1, never lower. A candidate
    naming none gains nothing (separate facts lend each other nothing, however close they
    were stored; :func:`~zenbrain._ranking.neighbours.with_neighbours` covers turns stored
    one after the other). Work: one pass over the candidates."""
    best: dict[str, float] = {}
    second: dict[str, float] = {}
    for score, conversation in scored:
        if conversation is None:
            continue
        top = best.get(conversation)
        if top is None or score > top:
            if top is not None:
                second[conversation] = top
            best[conversation] = score
        elif score > second.get(conversation, float("-inf")):
            second[conversation] = score
    seen: set[str] = set()
    out = []
    for score, conversation in scored:
        if conversation is None or weight <= 0:
            out.append(score)
            continue
        top = best[conversation]
        # The best other: the runner-up for the best itself (once: equal scores lend).
        if score == top and conversation not in seen:
            seen.add(conversation)
            other = second.get(conversation, 0.0)
        else:
            other = top
        out.append(score + weight * other * (1.0 - score) if other > 0 else score)
    return out
