"""Semantic memory: facts, with a confidence, related to each other and reviewed by FSRS.

Confidence. A fact stored without one gets :data:`DEFAULT_FACT_CONFIDENCE`. Two facts are
compared as the Jaccard index of their content words (:func:`zenbrain.text.tokenize`, so
"do"/"does"/"the" do not count) once negation cues are removed; exactly one of the two
negated and a similarity of at least the contradiction threshold (0.5) means they
*contradict* each other ("The server is running" / "The server is not running"), the same
polarity and at least the support threshold (0.8) means they *support* each other.

Review. Facts are scheduled by FSRS (the ``fsrs`` package). A new fact counts as learned
once at the moment it is stored (a "Good" first review), so its first review falls due after
FSRS's initial stability for that grade instead of at once. Grades are FSRS ratings: 1
again, 2 hard, 3 good, 4 easy. Fuzzing is off so schedules are reproducible. A card state
is the ``fsrs.Card.to_dict()`` mapping the store keeps.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Final, Literal, cast

from fsrs import Card, Rating, Scheduler

from zenbrain._algorithms.similarity import detect_negation, strip_negation
from zenbrain.text import tokenize

__all__ = [
    "CONTRADICTION_THRESHOLD",
    "DEFAULT_FACT_CONFIDENCE",
    "GRADES",
    "SUPPORT_THRESHOLD",
    "FactRelation",
    "after_replay",
    "compare_facts",
    "first_schedule",
    "relate_facts",
    "retrievability",
    "review",
]

DEFAULT_FACT_CONFIDENCE: Final = 0.7
SUPPORT_THRESHOLD: Final = 0.8
CONTRADICTION_THRESHOLD: Final = 0.5

FactRelation = Literal["supports", "contradicts"]

GRADES = {1: Rating.Again, 2: Rating.Hard, 3: Rating.Good, 4: Rating.Easy}
_SCHEDULER = Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)


# ---------------------------------------------------------------------- confidence
def relate_facts(
    a: str,
    b: str,
    *,
    support_threshold: float = SUPPORT_THRESHOLD,
    contradiction_threshold: float = CONTRADICTION_THRESHOLD,
) -> tuple[FactRelation | None, float]:
    """How fact ``a`` relates to fact ``b``: ("supports" | "contradicts" | None, similarity)."""
    left, right = set(tokenize(strip_negation(a))), set(tokenize(strip_negation(b)))
    if not left or not right:
        return None, 0.0
    similarity = len(left & right) / len(left | right)
    if detect_negation(a).negated != detect_negation(b).negated:
        return ("contradicts" if similarity >= contradiction_threshold else None), similarity
    return ("supports" if similarity >= support_threshold else None), similarity


def compare_facts(a: str, b: str) -> tuple[FactRelation | None, float]:
    """:func:`relate_facts` with the default thresholds."""
    return relate_facts(a, b)


# ---------------------------------------------------------------------- review (FSRS)
def first_schedule(now: datetime) -> dict[str, Any]:
    """The card state of a fact learned at ``now``."""
    card, _ = _SCHEDULER.review_card(Card(card_id=1), Rating.Good, now)
    return dict(card.to_dict())


def review(card_state: dict[str, Any], grade: int, now: datetime) -> dict[str, Any]:
    """The card state after a review with ``grade`` (1..4) at ``now``."""
    card, _ = _SCHEDULER.review_card(Card.from_dict(cast(Any, card_state)), GRADES[grade], now)
    return dict(card.to_dict())


def after_replay(card_state: dict[str, Any], stability: float) -> dict[str, Any]:
    """The card state after sleep replay raised its stability to ``stability`` days: the next
    review moves out to ``stability`` days after the last review (FSRS's 90 % point), and is
    never brought forward."""
    card = Card.from_dict(cast(Any, card_state))
    card.stability = stability
    last_review = card.last_review or card.due
    card.due = max(card.due, last_review + timedelta(days=stability))
    return dict(card.to_dict())


def retrievability(card_state: dict[str, Any], now: datetime) -> float:
    """The probability (0..1) that the fact is recalled at ``now``."""
    return float(_SCHEDULER.get_card_retrievability(Card.from_dict(cast(Any, card_state)), now))
