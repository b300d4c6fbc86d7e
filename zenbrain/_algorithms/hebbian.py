"""Hebbian association weights: memories recalled together grow connected.

Source: D. O. Hebb, "The Organization of Behavior" (1949) — cells that fire together wire
together — with a soft upper bound (as in Oja's 1982 rule, the increment shrinks as the
weight approaches its maximum) and homeostatic synaptic scaling (Turrigiano 2008).
Constants from the TypeScript original (inventory §4.1 "hebbian").

The rule implemented (what the code does; the original's prose described a plain
``w += lr`` while its code used the bounded form):

- strengthen on co-activation: ``w' = min(10, w + lr (1 - w / 10))`` with lr = 0.1, so a
  new edge at the neutral weight 1.0 becomes 1.09;
- decay: ``w' = w (1 - 0.02)^periods``; a result below 0.1 becomes 0.0, the signal to
  prune the edge. ``periods`` is the time since the *last* decay, not the edge's age:
  passing the total age on every call would compound the decay (a quirk of the original's
  working memory that this API avoids by making the elapsed periods explicit);
- normalise: when the weights on a node sum to more than 50 they are scaled down
  proportionally to sum to 50; smaller sums are left alone (scaling only damps).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from itertools import combinations
from typing import Final, TypeVar

from zenbrain._validation import check_finite, check_positive, check_unit
from zenbrain.errors import InvalidInputError

__all__ = [
    "DECAY_RATE",
    "LEARNING_RATE",
    "MAX_WEIGHT",
    "MIN_WEIGHT",
    "NEUTRAL_WEIGHT",
    "TARGET_SUM",
    "apply_coactivation",
    "decay",
    "generate_pairs",
    "normalize",
    "strengthen",
]

LEARNING_RATE: Final = 0.1
MAX_WEIGHT: Final = 10.0
DECAY_RATE: Final = 0.02
MIN_WEIGHT: Final = 0.1
TARGET_SUM: Final = 50.0
NEUTRAL_WEIGHT: Final = 1.0

K = TypeVar("K", bound=Hashable)


def _check_weight(weight: float) -> float:
    value = check_finite(weight, "weight")
    if value < 0:
        raise InvalidInputError(f"weight must be >= 0, got {weight}")
    return value


def strengthen(weight: float, learning_rate: float = LEARNING_RATE) -> float:
    """One co-activation: ``min(10, w + lr (1 - w / 10))``."""
    w = _check_weight(weight)
    lr = check_unit(learning_rate, "learning_rate")
    return min(MAX_WEIGHT, w + lr * (1.0 - w / MAX_WEIGHT))


def decay(weight: float, periods: float = 1.0, rate: float = DECAY_RATE) -> float:
    """``w (1 - rate)^periods``; 0.0 when the result drops below 0.1 (prune the edge)."""
    w = _check_weight(weight)
    elapsed = check_finite(periods, "periods")
    if elapsed < 0:
        raise InvalidInputError(f"periods must be >= 0, got {periods}")
    decayed = w * (1.0 - check_unit(rate, "rate")) ** elapsed
    return 0.0 if decayed < MIN_WEIGHT else decayed


def normalize(weights: Mapping[K, float], target_sum: float = TARGET_SUM) -> dict[K, float]:
    """Scale ``weights`` down proportionally when their sum exceeds ``target_sum``."""
    target = check_positive(target_sum, "target_sum")
    checked = {key: _check_weight(w) for key, w in weights.items()}
    total = sum(checked.values())
    if total <= target:
        return checked
    factor = target / total
    return {key: w * factor for key, w in checked.items()}


def generate_pairs(ids: Iterable[K]) -> list[tuple[K, K]]:
    """Every unordered pair of distinct ids, in first-seen order (duplicates dropped)."""
    unique = list(dict.fromkeys(ids))
    return list(combinations(unique, 2))


def apply_coactivation(
    edges: Mapping[frozenset[K], float],
    active_ids: Iterable[K],
    learning_rate: float = LEARNING_RATE,
) -> dict[frozenset[K], float]:
    """Strengthen the edge of every pair among ``active_ids`` (new edges start at 1.0).

    Edges are keyed by ``frozenset({a, b})`` so direction does not matter. Returns a new
    mapping; ``edges`` is left untouched.
    """
    updated = dict(edges)
    for a, b in generate_pairs(active_ids):
        key = frozenset((a, b))
        updated[key] = strengthen(updated.get(key, NEUTRAL_WEIGHT), learning_rate)
    return updated
