"""FSRS-shaped memory-state math: retrievability, intervals, stability and difficulty.

Source: the Free Spaced Repetition Scheduler (FSRS, J. Ye, "A Stochastic Shortest Path
Algorithm for Optimizing Spaced Repetition Scheduling", KDD 2022, and the open-spaced-
repetition project), in the simplified form used by the TypeScript original (inventory
§4.1 "fsrs"). zenbrain's coordinator schedules facts with the ``fsrs`` package; this module
is the closed-form math for analysis, plots and what-if studies.

Model (times in days):

- retrievability ``R(t) = exp(-t / S)``; the interval that lets R fall to the target
  retention ``r`` is ``-S ln r`` (0.105 S for r = 0.9);
- after a successful recall with retrievability R:
  ``S' = max(0.5, S * max(1, 1 + 0.2 (11 - D) S^-0.2 (e^{0.3 (1 - R)} - 1)))`` and
  ``D' = clamp(D - 0.15 (grade - 3), 1, 10)``;
- after a lapse: ``S' = max(0.5, S * max(0.1, 0.2 D^-0.4 (S + 1)^0.2 (e^{0.02 (1 - R)} - 1)))``
  and ``D' = clamp(D + 0.2, 1, 10)``. The lapse term stays below 0.1 for every realistic
  state, so a lapse keeps a tenth of the stability.

Grades follow FSRS: 1 Again (a lapse), 2 Hard, 3 Good, 4 Easy.

Golden check (also the original's README): S = 7, D = 5, seven days later R = 0.368 and
a recall gives S' = 8.19.

Differences from the original: the difficulty after a lapse is clamped to 1..10 like every
other difficulty update (the original's lapse rule has no clamp), and the last review
is passed in explicitly instead of being reconstructed from ``next_review + S ln 0.9``
(:func:`last_review_from_next_review` still offers that reconstruction for old rows).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final, Literal

from research.algorithms.checks import (
    check_finite,
    check_positive,
    check_unit,
    days_between,
)
from zenbrain.errors import InvalidInputError

__all__ = [
    "DECAY_CLASS_PRESETS",
    "MAX_DIFFICULTY",
    "MIN_DIFFICULTY",
    "MIN_STABILITY",
    "TARGET_RETENTION",
    "DecayClass",
    "MemoryState",
    "difficulty_after_review",
    "init_from_decay_class",
    "init_from_sm2_interval",
    "interval_days",
    "last_review_from_next_review",
    "retrievability",
    "retrievability_at",
    "review",
    "stability_after_lapse",
    "stability_after_recall",
]

TARGET_RETENTION: Final = 0.9
MIN_STABILITY: Final = 0.5
MIN_DIFFICULTY: Final = 1.0
MAX_DIFFICULTY: Final = 10.0
_RECALL_GAIN = 0.2  # a
_STABILITY_EXPONENT = 0.2  # b
_RETRIEVABILITY_GAIN = 0.3  # c
_DIFFICULTY_STEP = 0.15
_LAPSE_DIFFICULTY_PENALTY = 0.2
_LAPSE_FLOOR = 0.1

DecayClass = Literal["permanent", "slow_decay", "normal_decay", "fast_decay"]
# (difficulty, stability in days) a memory of each decay class starts with.
DECAY_CLASS_PRESETS: Final[dict[str, tuple[float, float]]] = {
    "permanent": (1.5, 90.0),
    "slow_decay": (3.0, 30.0),
    "normal_decay": (5.0, 7.0),
    "fast_decay": (7.5, 2.0),
}


@dataclass(frozen=True, slots=True)
class MemoryState:
    """Stability (days), difficulty (1..10) and the review timestamps of one memory."""

    stability: float
    difficulty: float
    last_review: datetime
    next_review: datetime


def _clamp_difficulty(value: float) -> float:
    return max(MIN_DIFFICULTY, min(MAX_DIFFICULTY, value))


def _check_state(stability: float, difficulty: float) -> tuple[float, float]:
    stability = check_positive(stability, "stability")
    difficulty = check_finite(difficulty, "difficulty")
    if not MIN_DIFFICULTY <= difficulty <= MAX_DIFFICULTY:
        raise InvalidInputError(f"difficulty must be within 1..10, got {difficulty}")
    return stability, difficulty


def _check_grade(grade: int) -> int:
    if isinstance(grade, bool) or not isinstance(grade, int) or not 1 <= grade <= 4:
        raise InvalidInputError(f"grade must be 1 (Again), 2, 3 or 4 (Easy), got {grade!r}")
    return grade


def retrievability(elapsed_days: float, stability: float) -> float:
    """Probability of recall ``exp(-t / S)`` after ``elapsed_days`` (>= 0)."""
    elapsed = check_finite(elapsed_days, "elapsed_days")
    if elapsed < 0:
        raise InvalidInputError(f"elapsed_days must be >= 0, got {elapsed_days}")
    return math.exp(-elapsed / check_positive(stability, "stability"))


def retrievability_at(state: MemoryState, now: datetime) -> float:
    """Retrievability of ``state`` at ``now`` (1.0 if ``now`` precedes the last review)."""
    return retrievability(max(0.0, days_between(state.last_review, now)), state.stability)


def interval_days(stability: float, target_retention: float = TARGET_RETENTION) -> float:
    """Days until retrievability falls to ``target_retention``: ``-S ln r``."""
    target = check_unit(target_retention, "target_retention")
    if target in (0.0, 1.0):
        raise InvalidInputError("target_retention must be strictly between 0 and 1")
    return -check_positive(stability, "stability") * math.log(target)


def last_review_from_next_review(
    next_review: datetime, stability: float, target_retention: float = TARGET_RETENTION
) -> datetime:
    """The review time implied by a stored ``next_review`` (``next + S ln r``)."""
    return next_review - timedelta(days=interval_days(stability, target_retention))


def stability_after_recall(stability: float, difficulty: float, retrievability: float) -> float:
    """Stability after a successful recall at ``retrievability``; never decreases."""
    stability, difficulty = _check_state(stability, difficulty)
    r = check_unit(retrievability, "retrievability")
    growth = (
        _RECALL_GAIN
        * (11.0 - difficulty)
        * stability**-_STABILITY_EXPONENT
        * (math.exp(_RETRIEVABILITY_GAIN * (1.0 - r)) - 1.0)
    )
    return max(MIN_STABILITY, stability * max(1.0, 1.0 + growth))


def stability_after_lapse(stability: float, difficulty: float, retrievability: float) -> float:
    """Stability after a lapse (forgot) at ``retrievability``; at most the old stability."""
    stability, difficulty = _check_state(stability, difficulty)
    r = check_unit(retrievability, "retrievability")
    factor = 0.2 * difficulty**-0.4 * (stability + 1.0) ** 0.2 * (math.exp(0.02 * (1.0 - r)) - 1.0)
    return max(MIN_STABILITY, stability * max(_LAPSE_FLOOR, factor))


def difficulty_after_review(difficulty: float, grade: int) -> float:
    """Difficulty after a review: easier grades lower it, a lapse (grade 1) adds 0.2."""
    _, difficulty = _check_state(1.0, difficulty)
    if _check_grade(grade) == 1:
        return _clamp_difficulty(difficulty + _LAPSE_DIFFICULTY_PENALTY)
    return _clamp_difficulty(difficulty - _DIFFICULTY_STEP * (grade - 3))


def review(
    state: MemoryState,
    grade: int,
    now: datetime,
    target_retention: float = TARGET_RETENTION,
) -> MemoryState:
    """Apply one review with ``grade`` at ``now``; the next review keeps ``target_retention``."""
    _check_grade(grade)
    r = retrievability_at(state, now)
    if grade == 1:
        stability = stability_after_lapse(state.stability, state.difficulty, r)
    else:
        stability = stability_after_recall(state.stability, state.difficulty, r)
    return MemoryState(
        stability=stability,
        difficulty=difficulty_after_review(state.difficulty, grade),
        last_review=now,
        next_review=now + timedelta(days=interval_days(stability, target_retention)),
    )


def init_from_decay_class(
    decay_class: DecayClass, now: datetime, emotional_multiplier: float = 1.0
) -> MemoryState:
    """Initial state for a decay class; emotion (clamped 1..2) multiplies the stability."""
    preset = DECAY_CLASS_PRESETS.get(decay_class)
    if preset is None:
        raise InvalidInputError(
            f"decay_class must be one of {sorted(DECAY_CLASS_PRESETS)}, got {decay_class!r}"
        )
    multiplier = max(1.0, min(2.0, check_finite(emotional_multiplier, "emotional_multiplier")))
    difficulty, stability = preset[0], preset[1] * multiplier
    return MemoryState(stability, difficulty, now, now + timedelta(days=interval_days(stability)))


def init_from_sm2_interval(interval: float | None, now: datetime) -> MemoryState:
    """Convert an SM-2 interval (days, or ``None`` for a new item) into an FSRS state.

    Difficulty from the interval: none -> 5, < 3 -> 7.5, < 10 -> 5, <= 30 -> 3.5, else 2.
    Stability is chosen so the next review keeps the SM-2 due date:
    ``S = interval / -ln 0.9`` (at least 0.5); a new item starts at S = 1.
    """
    if interval is None:
        difficulty, stability = 5.0, 1.0
    else:
        days = check_positive(interval, "interval")
        if days < 3:
            difficulty = 7.5
        elif days < 10:
            difficulty = 5.0
        elif days <= 30:
            difficulty = 3.5
        else:
            difficulty = 2.0
        stability = max(MIN_STABILITY, days / -math.log(TARGET_RETENTION))
    return MemoryState(stability, difficulty, now, now + timedelta(days=interval_days(stability)))
