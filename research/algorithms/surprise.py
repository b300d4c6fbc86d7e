"""Surprise-gated memory: a running surprise signal that boosts recall and speeds review.

Source: surprise as the gate for what to memorise, with momentum over past surprise
(A. Behrouz, P. Zhong & V. Mirrokni 2024, "Titans: Learning to Memorize at Test Time"),
and the prediction-error account of memory updating (Sinclair & Barense 2019). Constants
of the TypeScript original (inventory §4.2 "surprise-gradient-memory"):

- contribution of one observation: ``sign · clamp(prediction_error / error_scale, 0, 1) ·
  clamp(confidence, 0, 1)`` (confidence 1 when unknown, sign +1 by default);
- surprise state, an exponential moving average: ``δ' = clamp(0.9 δ + 0.1 c, -1, 1)``;
- retrieval boost: ``max(0, score · (1 + 0.1 δ))``;
- review interval: ``base · max(0.2, 1 - 0.2 |δ|)`` — a surprising memory is checked sooner.

The EMA takes the previous state as an argument and returns the next one; nothing is kept
between calls, so applying it once per observation never compounds.
"""

from __future__ import annotations

from typing import Final, Literal

from research.algorithms.checks import check_finite, check_positive
from zenbrain.errors import InvalidInputError

__all__ = [
    "SURPRISE_MOMENTUM",
    "shrink_interval",
    "surprise_boost",
    "surprise_contribution",
    "update_surprise",
]

SURPRISE_MOMENTUM: Final = 0.9
_BOOST_SCALE: Final = 0.1
_SHRINK_SCALE: Final = 0.2
_MIN_INTERVAL_FACTOR: Final = 0.2


def _clamp(value: float, low: float, high: float) -> float:
    return max(low, min(high, value))


def _check_state(surprise: float) -> float:
    value = check_finite(surprise, "surprise")
    if not -1.0 <= value <= 1.0:
        raise InvalidInputError(f"surprise must be within -1..1, got {surprise}")
    return value


def surprise_contribution(
    prediction_error: float,
    error_scale: float = 1.0,
    confidence: float | None = None,
    sign: Literal[1, -1] = 1,
) -> float:
    """Signed contribution (-1..1) of one observation's prediction error."""
    if sign not in (1, -1):
        raise InvalidInputError(f"sign must be +1 or -1, got {sign!r}")
    error = check_finite(prediction_error, "prediction_error")
    scale = check_positive(error_scale, "error_scale")
    trust = 1.0 if confidence is None else _clamp(check_finite(confidence, "confidence"), 0, 1)
    return sign * _clamp(error / scale, 0.0, 1.0) * trust


def update_surprise(
    surprise: float, contribution: float, momentum: float = SURPRISE_MOMENTUM
) -> float:
    """Next surprise state ``clamp(m δ + (1 - m) c, -1, 1)``."""
    state = _check_state(surprise)
    m = check_finite(momentum, "momentum")
    if not 0.0 <= m <= 1.0:
        raise InvalidInputError(f"momentum must be within 0..1, got {momentum}")
    return _clamp(m * state + (1.0 - m) * check_finite(contribution, "contribution"), -1, 1)


def surprise_boost(score: float, surprise: float) -> float:
    """Retrieval score adjusted by surprise: ``max(0, score (1 + 0.1 δ))``."""
    return max(0.0, check_finite(score, "score") * (1.0 + _BOOST_SCALE * _check_state(surprise)))


def shrink_interval(base_interval: float, surprise: float) -> float:
    """Review interval shortened by |surprise|: ``base · max(0.2, 1 - 0.2 |δ|)``."""
    base = check_finite(base_interval, "base_interval")
    if base < 0:
        raise InvalidInputError(f"base_interval must be >= 0, got {base_interval}")
    factor = max(_MIN_INTERVAL_FACTOR, 1.0 - _SHRINK_SCALE * abs(_check_state(surprise)))
    return base * factor
