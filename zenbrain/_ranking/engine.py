"""Candidates of every layer on one scale: fused, weighed by their layer's prior, lifted by
their conversation neighbours and ordered.

The pipeline (:mod:`zenbrain._memory.recall`) gathers candidates from the indexes and gives
each its lexical score against one :class:`~zenbrain._ranking.collection.Collection`, so a
score of 0.6 means the same share of the query's weight found, whether the memory is one of
three procedures or one of five thousand facts. What follows is the same for every layer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from zenbrain._ranking.conversation import with_conversation
from zenbrain._ranking.neighbours import with_neighbours
from zenbrain._ranking.scoring import fuse, semantic_score
from zenbrain.layers._procedural import success_weighted

__all__ = ["CORE_PRIOR", "Candidate", "Ranked", "rank_candidates"]

# A core block is weighed as any memory is: docs/benchmarks.md, "Recall across layers",
# table "Core blocks" (the seeds' fixed 0.8 / 0.5 put a block above the fact that answers).
CORE_PRIOR = 1.0


# Candidate and Ranked are read-only by convention, not frozen: a frozen dataclass sets each
# field through object.__setattr__, and a recall builds one of each per memory it scores
# (about 165 for a hybrid recall of a LoCoMo question). Frozen, the two took 2.4M of the
# 24.2M CPU instructions of a hybrid recall of 20k LoCoMo-derived memories (issue 39).
@dataclass(slots=True)
class Candidate:
    """One memory a recall may return: where it is, when it was stored, what the lexical
    score made of it (against the recall's one collection) and its cosine to the query
    (None: no vector, or no embedder)."""

    key: int | str  # the stored memory's primary key; a working-memory slot's id
    layer: str
    created_at: datetime | None
    lexical: float
    cosine: float | None = None
    success_rate: float | None = None  # procedures only
    tie: float = 0.0  # BM25's uncapped relevance: orders equal scores (shorter first)
    conversation: str | None = None  # the session or thread it was told in, if named


@dataclass(slots=True)
class Ranked:
    """A candidate's score and its parts, on the scale of the score: ``lexical`` (None
    without words in common), ``semantic`` (None without an embedder), ``fused`` (the
    two combined), ``layered`` (after the layer's prior); the rest of ``score`` is what
    the conversation lent (its neighbours and its other matches)."""

    score: float
    candidate: Candidate
    lexical: float = 0.0
    semantic: float | None = None
    fused: float = 0.0
    layered: float = 0.0


def rank_candidates(
    candidates: Sequence[Candidate],
    *,
    semantic: bool,
    similarity_floor: float = 0.0,
    neighbours: bool = True,
    lexical_share: float = 1.0,
) -> list[Ranked]:
    """Every candidate with a score above 0, best first (equal scores: the newest first).

    ``semantic``: the recall has a query vector, so each score fuses the lexical score with
    the cosine (:func:`~zenbrain._ranking.scoring.fuse`; a candidate without a vector gets
    the semantic score 0). Then each layer's prior, then conversation neighbours: memories
    stored one right after the other (consecutive keys, within the gap) lend each other
    relevance across layers, since routing may file two turns of one exchange apart; two
    memories that name their conversations lend only within the same one
    (:func:`~zenbrain._ranking.neighbours.with_neighbours`). Then conversation evidence:
    each memory that names a conversation gains a share of the best other match of that
    conversation (:func:`~zenbrain._ranking.conversation.with_conversation`).

    ``lexical_share``: the share of the query's weight some memory holds
    (:attr:`~zenbrain._ranking.scoring.LexicalQuery.held_share`). Without an embedder each
    score is scaled by it after the neighbours (so the order is what the held words make it,
    and one word found of many is no perfect score). With one, the cosine already says how
    much of the question a memory answers, and fusing the held words' share loses recall
    (docs/benchmarks.md, "Recall across layers", table "Words no memory holds")."""
    scale = 1.0 if semantic else lexical_share
    parts: list[tuple[float, float | None, float, float]] = []
    for candidate in candidates:
        score = candidate.lexical
        meaning: float | None = None
        if semantic:
            cosine = candidate.cosine if candidate.cosine is not None else -1.0
            meaning = semantic_score(cosine, similarity_floor)
            score = fuse(score, meaning)
        fused = score
        if candidate.layer == "procedural" and candidate.success_rate is not None:
            score = success_weighted(score, candidate.success_rate)
        elif candidate.layer == "core":
            score *= CORE_PRIOR
        parts.append((candidate.lexical, meaning, fused, score))
    found = [(p, c) for p, c in zip(parts, candidates, strict=True) if p[3] > 0]
    lifted: dict[int | str, float] = {}
    if neighbours:
        stored = [
            (p[3], c.key, c.created_at)
            for p, c in found
            if isinstance(c.key, int) and c.created_at is not None
        ]
        conversations = {c.key: c.conversation for _, c in found if isinstance(c.key, int)}
        lifted = dict(
            zip(
                [key for _, key, _ in stored],
                with_neighbours(stored, conversations=conversations),
                strict=True,
            )
        )
        named = [(p, c) for p, c in found if c.conversation is not None]
        lent = with_conversation([(lifted.get(c.key, p[3]), c.conversation) for p, c in named])
        lifted.update(zip([c.key for _, c in named], lent, strict=True))
    ranked = [
        Ranked(
            min(1.0, lifted.get(c.key, p[3])) * scale,
            c,
            lexical=p[0] * scale,
            semantic=p[1],
            fused=p[2] * scale,
            layered=p[3] * scale,
        )
        for p, c in found
    ]
    ranked.sort(key=_order)
    return ranked


def _order(item: Ranked) -> tuple[float, float, int, str]:
    """Best score first; equal scores (a capped lexical score ties often): the higher BM25
    relevance, then the newest memory, the same on every back end whatever order its index
    returned the candidates in."""
    key = item.candidate.key
    newest = -key if isinstance(key, int) else 0
    return (-item.score, -item.candidate.tie, newest, str(key))
