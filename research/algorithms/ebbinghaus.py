"""Ebbinghaus forgetting curve: retention, personalised decay and repetition planning.

Source: H. Ebbinghaus, "Über das Gedächtnis" (1885) — retention decays exponentially,
``R = exp(-t / S)`` — with stability updates from FSRS (see :mod:`fsrs_math`), as in the
TypeScript original (inventory §4.1 "ebbinghaus").

- Stability is kept within 0.1..365 days; an emotional multiplier (at most 3) stretches it.
- A memory with ``0.1 < R <= 0.3`` is due for review; ``R <= 0.1`` means archive.
- Repetition candidates are memories with ``R <= 1.2 * 0.3`` (a little before they need
  review), most urgent (``1 - R``) first.
- Optimal interval for a target retention r: ``max(0.1, -S ln r)`` (r = 0.85 by default).
- Personal decay profile from at least two review events: with recall rate ``p``,
  ``m = 0.6 + 1.2 p``; a good learner (p > 0.5) who also waits long between reviews gets
  ``m *= 0.8 + 0.2 min(mean interval / 7, 2)``; ``m`` is clamped to 0.5..3 and multiplies
  stability.

Difference from the original: its documentation promised an SM-2 style update (x2.5 on
recall, x0.5 on a lapse) while the code delegated to FSRS. :func:`update_stability` is
documented as what it is: the FSRS recall/lapse update, clamped to 0.1..365.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Literal

import numpy as np
import numpy.typing as npt

from research.algorithms.checks import (
    check_finite,
    check_positive,
    check_unit,
    days_between,
)
from research.algorithms.fsrs_math import stability_after_lapse, stability_after_recall
from zenbrain.errors import InvalidInputError

__all__ = [
    "ARCHIVE_THRESHOLD",
    "MAX_EMOTIONAL_MULTIPLIER",
    "MAX_STABILITY",
    "MIN_STABILITY",
    "REVIEW_THRESHOLD",
    "DecayProfile",
    "MemoryTrace",
    "RepetitionCandidate",
    "RetentionStatus",
    "ReviewEvent",
    "batch_retention",
    "learn_decay_profile",
    "optimal_interval",
    "personalized_retention",
    "repetition_candidates",
    "retention",
    "retention_status",
    "update_stability",
]

MIN_STABILITY: Final = 0.1
MAX_STABILITY: Final = 365.0
REVIEW_THRESHOLD: Final = 0.3
ARCHIVE_THRESHOLD: Final = 0.1
MAX_EMOTIONAL_MULTIPLIER: Final = 3.0
_CANDIDATE_MARGIN: Final = 1.2
_MIN_PROFILE_EVENTS: Final = 2

RetentionStatus = Literal["retain", "review", "archive"]


@dataclass(frozen=True, slots=True)
class MemoryTrace:
    """What retention needs to know about one memory."""

    memory_id: str
    stability: float
    last_review: datetime
    emotional_multiplier: float = 1.0


@dataclass(frozen=True, slots=True)
class RepetitionCandidate:
    memory_id: str
    retention: float
    urgency: float


@dataclass(frozen=True, slots=True)
class ReviewEvent:
    """One past review: days since the previous one, and whether it was recalled."""

    interval_days: float
    recalled: bool


@dataclass(frozen=True, slots=True)
class DecayProfile:
    """A learner's personal stability multiplier (1.0 = average learner)."""

    multiplier: float = 1.0
    recall_rate: float | None = None
    sample_count: int = 0


def _effective_stability(stability: float, emotional_multiplier: float) -> float:
    stability = check_positive(stability, "stability")
    emotion = check_finite(emotional_multiplier, "emotional_multiplier")
    emotion = max(1.0, min(MAX_EMOTIONAL_MULTIPLIER, emotion))
    return max(MIN_STABILITY, min(MAX_STABILITY, stability * emotion))


def retention(elapsed_days: float, stability: float, emotional_multiplier: float = 1.0) -> float:
    """Retention ``exp(-t / S)`` with S stretched by emotion (1..3) and kept in 0.1..365."""
    elapsed = check_finite(elapsed_days, "elapsed_days")
    if elapsed < 0:
        raise InvalidInputError(f"elapsed_days must be >= 0, got {elapsed_days}")
    return math.exp(-elapsed / _effective_stability(stability, emotional_multiplier))


def retention_status(retention_value: float) -> RetentionStatus:
    """``archive`` at R <= 0.1, ``review`` at 0.1 < R <= 0.3, otherwise ``retain``."""
    r = check_unit(retention_value, "retention")
    if r <= ARCHIVE_THRESHOLD:
        return "archive"
    if r <= REVIEW_THRESHOLD:
        return "review"
    return "retain"


def update_stability(
    stability: float, retention_value: float, recalled: bool, difficulty: float = 5.0
) -> float:
    """FSRS recall/lapse update of ``stability`` (see :mod:`fsrs_math`), kept in 0.1..365."""
    if recalled:
        updated = stability_after_recall(stability, difficulty, retention_value)
    else:
        updated = stability_after_lapse(stability, difficulty, retention_value)
    return max(MIN_STABILITY, min(MAX_STABILITY, updated))


def optimal_interval(stability: float, target_retention: float = 0.85) -> float:
    """Days until retention falls to ``target_retention``: ``max(0.1, -S ln r)``."""
    target = check_unit(target_retention, "target_retention")
    if target in (0.0, 1.0):
        raise InvalidInputError("target_retention must be strictly between 0 and 1")
    return max(0.1, -check_positive(stability, "stability") * math.log(target))


def batch_retention(traces: Sequence[MemoryTrace], now: datetime) -> npt.NDArray[np.float64]:
    """Retention of every trace at ``now`` (vectorised); traces from the future count as 1."""
    if not traces:
        return np.zeros(0, dtype=np.float64)
    elapsed = np.array(
        [max(0.0, days_between(trace.last_review, now)) for trace in traces], dtype=np.float64
    )
    stability = np.array(
        [_effective_stability(t.stability, t.emotional_multiplier) for t in traces],
        dtype=np.float64,
    )
    result: npt.NDArray[np.float64] = np.exp(-elapsed / stability)
    return result


def repetition_candidates(
    traces: Sequence[MemoryTrace], now: datetime, threshold: float = REVIEW_THRESHOLD
) -> list[RepetitionCandidate]:
    """Traces whose retention is at most ``1.2 * threshold``, most urgent first."""
    limit = _CANDIDATE_MARGIN * check_unit(threshold, "threshold")
    retained = batch_retention(traces, now)
    candidates = [
        RepetitionCandidate(trace.memory_id, float(r), 1.0 - float(r))
        for trace, r in zip(traces, retained, strict=True)
        if r <= limit
    ]
    candidates.sort(key=lambda c: (-c.urgency, c.memory_id))
    return candidates


def learn_decay_profile(events: Iterable[ReviewEvent]) -> DecayProfile:
    """Personal stability multiplier from past reviews (neutral with fewer than two)."""
    history = list(events)
    if len(history) < _MIN_PROFILE_EVENTS:
        return DecayProfile(sample_count=len(history))
    for event in history:
        if check_finite(event.interval_days, "interval_days") < 0:
            raise InvalidInputError("review intervals must be >= 0 days")
    recall_rate = sum(1 for e in history if e.recalled) / len(history)
    multiplier = 0.6 + 1.2 * recall_rate
    if recall_rate > 0.5:
        mean_interval = sum(e.interval_days for e in history) / len(history)
        multiplier *= 0.8 + 0.2 * min(mean_interval / 7.0, 2.0)
    return DecayProfile(
        multiplier=max(0.5, min(3.0, multiplier)),
        recall_rate=recall_rate,
        sample_count=len(history),
    )


def personalized_retention(
    elapsed_days: float,
    stability: float,
    profile: DecayProfile,
    emotional_multiplier: float = 1.0,
) -> float:
    """Retention with stability scaled by the learner's profile (and by emotion)."""
    scaled = check_positive(stability, "stability") * profile.multiplier
    return retention(elapsed_days, min(MAX_STABILITY, scaled), emotional_multiplier)
