"""Spaced review of semantic facts, scheduled by FSRS (the ``fsrs`` package).

A new fact counts as learned once at the moment it is stored (a "Good" first review), so its
first review falls due after FSRS's initial stability for that grade instead of at once.
Grades are FSRS ratings: 1 again, 2 hard, 3 good, 4 easy. Fuzzing is off so schedules are
reproducible.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from fsrs import Card, Rating, Scheduler

__all__ = ["GRADES", "first_schedule", "retrievability", "review"]

GRADES = {1: Rating.Again, 2: Rating.Hard, 3: Rating.Good, 4: Rating.Easy}
_SCHEDULER = Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)


def first_schedule(now: datetime) -> dict[str, Any]:
    card, _ = _SCHEDULER.review_card(Card(card_id=1), Rating.Good, now)
    return dict(card.to_dict())


def review(card_state: dict[str, Any], grade: int, now: datetime) -> dict[str, Any]:
    card, _ = _SCHEDULER.review_card(Card.from_dict(cast(Any, card_state)), GRADES[grade], now)
    return dict(card.to_dict())


def retrievability(card_state: dict[str, Any], now: datetime) -> float:
    return float(_SCHEDULER.get_card_retrievability(Card.from_dict(cast(Any, card_state)), now))
