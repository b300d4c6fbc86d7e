"""Context-dependent retrieval: memories formed in a similar situation rank a little higher.

Source: encoding specificity (Tulving & Thomson 1973) and context-dependent memory
(Godden & Baddeley 1975): recall is better when the retrieval context matches the encoding
context. Constants from the TypeScript original (inventory §4.1 "context-retrieval").

- Time of day falls into four buckets: morning 05-12 h, afternoon 12-17 h, evening
  17-21 h, night 21-05 h. Same bucket 1.0, neighbouring bucket 0.5, opposite bucket 0.2;
  the buckets form a circle, so night and morning are neighbours.
- Day: same weekday 1.0, both weekdays or both weekend 0.6, otherwise 0.2.
- Task: same task 1.0, related tasks 0.5, unrelated 0.1; when either side has no task the
  term is 0.5 (no evidence either way).
- ``similarity = 0.4 time + 0.2 day + 0.4 task`` (0..1) and ``boost = 1 + 0.3 similarity``,
  a multiplier on a retrieval score.

Difference from the original: a missing task type no longer counts as a mismatch, and
task names are compared case-insensitively.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final, Literal

from research.algorithms.checks import check_finite, check_unit

__all__ = [
    "CONTEXT_BOOST_SCALE",
    "RELATED_TASKS",
    "TASK_TYPES",
    "RetrievalContext",
    "TimeOfDay",
    "apply_context_boost",
    "context_boost",
    "context_similarity",
    "day_similarity",
    "task_similarity",
    "time_of_day",
    "time_of_day_similarity",
]

TimeOfDay = Literal["morning", "afternoon", "evening", "night"]
_BUCKETS: Final[tuple[TimeOfDay, ...]] = ("morning", "afternoon", "evening", "night")
_BUCKET_SIMILARITY: Final = (1.0, 0.5, 0.2)  # by circular distance 0, 1, 2
_TIME_WEIGHT, _DAY_WEIGHT, _TASK_WEIGHT = 0.4, 0.2, 0.4
CONTEXT_BOOST_SCALE: Final = 0.3

TASK_TYPES: Final = frozenset(
    {
        "coding",
        "debugging",
        "code_review",
        "writing",
        "communication",
        "research",
        "learning",
        "planning",
        "meeting",
        "design",
    }
)
RELATED_TASKS: Final = frozenset(
    frozenset(pair)
    for pair in (
        ("coding", "debugging"),
        ("coding", "code_review"),
        ("debugging", "code_review"),
        ("coding", "design"),
        ("writing", "communication"),
        ("writing", "research"),
        ("research", "learning"),
        ("planning", "meeting"),
        ("planning", "design"),
        ("meeting", "communication"),
    )
)


@dataclass(frozen=True, slots=True)
class RetrievalContext:
    """When a memory was formed (or a query is made), and what the agent was doing."""

    timestamp: datetime
    task_type: str | None = None


def time_of_day(moment: datetime) -> TimeOfDay:
    """Bucket of ``moment``'s local hour (the clock as given, no timezone conversion)."""
    hour = moment.hour
    if 5 <= hour < 12:
        return "morning"
    if 12 <= hour < 17:
        return "afternoon"
    if 17 <= hour < 21:
        return "evening"
    return "night"


def time_of_day_similarity(a: datetime, b: datetime) -> float:
    """1.0 same bucket, 0.5 neighbouring bucket, 0.2 opposite bucket."""
    i, j = _BUCKETS.index(time_of_day(a)), _BUCKETS.index(time_of_day(b))
    distance = abs(i - j)
    return _BUCKET_SIMILARITY[min(distance, len(_BUCKETS) - distance)]


def day_similarity(a: datetime, b: datetime) -> float:
    """1.0 same weekday, 0.6 both weekdays or both weekend days, 0.2 otherwise."""
    if a.weekday() == b.weekday():
        return 1.0
    if (a.weekday() >= 5) == (b.weekday() >= 5):
        return 0.6
    return 0.2


def task_similarity(a: str | None, b: str | None) -> float:
    """1.0 same task, 0.5 related (see ``RELATED_TASKS``), 0.1 unrelated, 0.5 if unknown."""
    if a is None or b is None or not a.strip() or not b.strip():
        return 0.5
    left, right = a.strip().lower(), b.strip().lower()
    if left == right:
        return 1.0
    if frozenset((left, right)) in RELATED_TASKS:
        return 0.5
    return 0.1


def context_similarity(encoding: RetrievalContext, retrieval: RetrievalContext) -> float:
    """``0.4 time-of-day + 0.2 day + 0.4 task`` similarity of two contexts (0..1)."""
    return (
        _TIME_WEIGHT * time_of_day_similarity(encoding.timestamp, retrieval.timestamp)
        + _DAY_WEIGHT * day_similarity(encoding.timestamp, retrieval.timestamp)
        + _TASK_WEIGHT * task_similarity(encoding.task_type, retrieval.task_type)
    )


def context_boost(similarity: float) -> float:
    """Score multiplier ``1 + 0.3 similarity`` (1.0..1.3)."""
    return 1.0 + CONTEXT_BOOST_SCALE * check_unit(similarity, "similarity")


def apply_context_boost(
    score: float, encoding: RetrievalContext, retrieval: RetrievalContext
) -> float:
    """``score`` multiplied by the context boost of the two contexts."""
    return check_finite(score, "score") * context_boost(context_similarity(encoding, retrieval))
