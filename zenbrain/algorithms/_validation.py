"""Small argument checks shared by the algorithm modules (raise ``InvalidInputError``)."""

from __future__ import annotations

import math
from datetime import datetime

from zenbrain.errors import InvalidInputError

__all__ = ["days_between", "require_finite", "require_positive", "require_unit"]

_SECONDS_PER_DAY = 86_400.0


def require_finite(name: str, value: float) -> float:
    """Return ``value`` as float, or raise when it is not a finite number."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidInputError(f"{name} must be a finite number, got {value!r}")
    return float(value)


def require_positive(name: str, value: float) -> float:
    """Return ``value`` as float, or raise when it is not a finite number > 0."""
    number = require_finite(name, value)
    if number <= 0.0:
        raise InvalidInputError(f"{name} must be > 0, got {value!r}")
    return number


def require_unit(name: str, value: float) -> float:
    """Return ``value`` as float, or raise when it is outside 0..1."""
    number = require_finite(name, value)
    if not 0.0 <= number <= 1.0:
        raise InvalidInputError(f"{name} must be within 0..1, got {value!r}")
    return number


def days_between(earlier: datetime, later: datetime) -> float:
    """Days from ``earlier`` to ``later`` (negative if ``later`` comes first).

    Both must be timezone-aware or both naive; mixing them is an error, not a guess.
    """
    if (earlier.tzinfo is None) != (later.tzinfo is None):
        raise InvalidInputError("cannot compare a timezone-aware and a naive datetime")
    return (later - earlier).total_seconds() / _SECONDS_PER_DAY
