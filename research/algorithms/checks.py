"""The argument checks the research modules share: numbers as zenbrain's own algorithms check
them (same rules, same :class:`~zenbrain.errors.InvalidInputError`), written here because
zenbrain's checks are internal. A module moved back into :mod:`zenbrain._algorithms` uses
zenbrain's instead."""

from __future__ import annotations

import math
import reprlib
from datetime import datetime
from typing import TypeGuard

from zenbrain.errors import InvalidInputError

__all__ = ["check_finite", "check_positive", "check_unit", "days_between"]

_SHOWN = reprlib.Repr()
_SHOWN.maxstring = _SHOWN.maxother = 80


def _is_number(value: object) -> TypeGuard[int | float]:
    return not isinstance(value, bool) and isinstance(value, int | float)


def check_finite(value: object, name: str) -> float:
    """A finite number (bools, NaN and infinities rejected), as float."""
    if not _is_number(value) or not math.isfinite(value):
        raise InvalidInputError(f"{name} must be a finite number, got {_SHOWN.repr(value)}")
    return float(value)


def check_positive(value: object, name: str) -> float:
    """A finite number above 0, as float."""
    if not _is_number(value) or not math.isfinite(value) or value <= 0:
        raise InvalidInputError(f"{name} must be a finite number > 0, got {_SHOWN.repr(value)}")
    return float(value)


def check_unit(value: object, name: str) -> float:
    """A number from 0 to 1 inclusive, as float."""
    if not _is_number(value) or not 0.0 <= value <= 1.0:
        raise InvalidInputError(f"{name} must be a number from 0 to 1, got {_SHOWN.repr(value)}")
    return float(value)


def days_between(earlier: datetime, later: datetime) -> float:
    """Days from ``earlier`` to ``later`` (negative if ``later`` comes first); both
    timezone-aware or both naive."""
    if (earlier.tzinfo is None) != (later.tzinfo is None):
        raise InvalidInputError("cannot compare a timezone-aware and a naive datetime")
    return (later - earlier).total_seconds() / 86_400.0
