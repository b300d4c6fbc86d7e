"""Plot-ready data: a retention curve with reviews, and a review schedule timeline.

Source: the visualisation helpers of the TypeScript original (inventory §4.1
"visualization"); forgetting curve ``R = exp(-t / S)`` (Ebbinghaus 1885) and the
FSRS-shaped updates of :mod:`fsrs_math`. Output is plain dataclasses: hand it to
matplotlib, a notebook table or JSON.

- :func:`retention_curve`: daily (or finer) retention over ``days``; a review on day d
  resets retention to 1 and multiplies stability by the grade's factor
  (Again 0.5, Hard 1.5, Good 2.0, Easy 2.5). An emotional multiplier (1..3) stretches the
  initial stability.
- :func:`schedule_timeline`: successive reviews, each when retrievability reaches 0.9, with
  the stability and difficulty after each grade.

Difference from the original: grades use the FSRS scale 1..4 (Again, Hard, Good, Easy) as
everywhere in zenbrain. The original used a 1..5 scale here, counted grade >= 2 as recall,
and >= 3 elsewhere; its five curve factors map onto four grades by dropping its
"recalled without growth" grade (x1.0).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from research.algorithms.checks import check_finite, check_positive
from research.algorithms.fsrs_math import (
    TARGET_RETENTION,
    difficulty_after_review,
    interval_days,
    stability_after_lapse,
    stability_after_recall,
)
from zenbrain.errors import InvalidInputError

__all__ = [
    "GRADE_STABILITY_FACTORS",
    "CurvePoint",
    "ReviewMark",
    "ScheduledReview",
    "retention_curve",
    "schedule_timeline",
]

GRADE_STABILITY_FACTORS: Final = {1: 0.5, 2: 1.5, 3: 2.0, 4: 2.5}
_MAX_EMOTIONAL_MULTIPLIER: Final = 3.0


@dataclass(frozen=True, slots=True)
class CurvePoint:
    day: float
    retention: float
    stability: float


@dataclass(frozen=True, slots=True)
class ReviewMark:
    """A review on ``day`` (days after the start) with an FSRS grade 1..4."""

    day: float
    grade: int


@dataclass(frozen=True, slots=True)
class ScheduledReview:
    number: int
    day: float
    interval_days: float
    grade: int
    recalled: bool
    stability_after: float
    difficulty_after: float


def _check_grade(grade: int) -> int:
    if grade not in GRADE_STABILITY_FACTORS or isinstance(grade, bool):
        raise InvalidInputError(f"grade must be 1, 2, 3 or 4, got {grade!r}")
    return grade


def retention_curve(
    stability: float,
    days: int = 30,
    reviews: Sequence[ReviewMark] = (),
    emotional_multiplier: float = 1.0,
    points_per_day: int = 1,
) -> list[CurvePoint]:
    """Retention from day 0 to ``days`` inclusive, ``points_per_day`` samples per day."""
    current = check_positive(stability, "stability")
    emotion = check_finite(emotional_multiplier, "emotional_multiplier")
    current *= max(1.0, min(_MAX_EMOTIONAL_MULTIPLIER, emotion))
    if isinstance(days, bool) or not isinstance(days, int) or days < 0:
        raise InvalidInputError(f"days must be an int >= 0, got {days!r}")
    if not isinstance(points_per_day, int) or points_per_day < 1:
        raise InvalidInputError(f"points_per_day must be an int >= 1, got {points_per_day!r}")
    pending = sorted(reviews, key=lambda mark: mark.day)
    for mark in pending:
        _check_grade(mark.grade)
        if check_finite(mark.day, "review day") < 0:
            raise InvalidInputError(f"review day must be >= 0, got {mark.day}")
    points: list[CurvePoint] = []
    last_review_day = 0.0
    next_mark = 0
    for step in range(days * points_per_day + 1):
        day = step / points_per_day
        while next_mark < len(pending) and pending[next_mark].day <= day:
            mark = pending[next_mark]
            current *= GRADE_STABILITY_FACTORS[mark.grade]
            last_review_day = mark.day
            next_mark += 1
        points.append(CurvePoint(day, math.exp(-(day - last_review_day) / current), current))
    return points


def schedule_timeline(
    difficulty: float = 5.0,
    grades: Sequence[int] = (4, 4, 4, 4, 4),
    initial_stability: float = 1.0,
    target_retention: float = TARGET_RETENTION,
) -> list[ScheduledReview]:
    """Reviews held whenever retrievability reaches ``target_retention``, one per grade."""
    stability = check_positive(initial_stability, "initial_stability")
    current_difficulty = difficulty
    day = 0.0
    timeline: list[ScheduledReview] = []
    for number, grade in enumerate(grades, start=1):
        _check_grade(grade)
        wait = interval_days(stability, target_retention)
        day += wait
        retrievability = math.exp(-wait / stability)
        recalled = grade >= 2
        if recalled:
            stability = stability_after_recall(stability, current_difficulty, retrievability)
        else:
            stability = stability_after_lapse(stability, current_difficulty, retrievability)
        current_difficulty = difficulty_after_review(current_difficulty, grade)
        timeline.append(
            ScheduledReview(number, day, wait, grade, recalled, stability, current_difficulty)
        )
    return timeline
