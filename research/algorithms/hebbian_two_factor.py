"""Two-factor Hebbian edges: a weight plus an uncertainty that shrinks with use.

Source: the two-factor synapse of the TypeScript original (inventory §4.2
"hebbian-two-factor"), combining Hebbian learning with the uncertainty-weighted
consolidation of Elastic Weight Consolidation (Kirkpatrick et al. 2017, "Overcoming
catastrophic forgetting in neural networks"): an edge's importance is its inverse
variance, important edges learn and decay more slowly, and moving them costs an EWC
penalty ``λ/2 · importance · Δw²``.

Update with a tag (-1..1, e.g. from :mod:`sleep_simulation_selection`) and an activation
(0..1): ``lr = 0.1 (1 - 0.5 lock)``, ``w' = clamp(w + lr · tag · activation, 0.05, 10)``,
``var' = max(0.01, var (1 - 0.15 / (1 + 0.1 n)))`` with ``n`` earlier activations.
Decay: rate ``r / (1 + 0.1 importance)`` per period, weight floored at 0.05.
A plain Hebbian weight converts with ``variance = 1 / (1 + 0.5 w)``.

Difference from the original: its lock score came from a proprietary "stability protector"
that is not shipped. Here the lock is an argument; :func:`lock_score` offers a documented
default, ``1 - min(1, variance)``, so a fresh edge (variance 1) is unlocked and a
well-rehearsed one (variance -> 0.01) almost fully locked. Decay takes the number of periods
elapsed since the last decay, so it does not compound when called repeatedly.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

from research.algorithms.checks import check_finite, check_positive, check_unit
from zenbrain.errors import InvalidInputError

__all__ = [
    "DEFAULT_VARIANCE",
    "DEFAULT_WEIGHT",
    "EWC_LAMBDA",
    "MAX_WEIGHT",
    "MIN_VARIANCE",
    "MIN_WEIGHT",
    "TwoFactorEdge",
    "decay_two_factor",
    "ewc_penalty",
    "from_legacy_edge",
    "importance",
    "lock_score",
    "update_two_factor",
]

DEFAULT_WEIGHT: Final = 1.0
DEFAULT_VARIANCE: Final = 1.0
MIN_VARIANCE: Final = 0.01
MAX_WEIGHT: Final = 10.0
MIN_WEIGHT: Final = 0.05
WEIGHT_LEARNING_RATE: Final = 0.1
VARIANCE_LEARNING_RATE: Final = 0.15
EWC_LAMBDA: Final = 0.5
_DEFAULT_DECAY_RATE: Final = 0.02


@dataclass(frozen=True, slots=True)
class TwoFactorEdge:
    source: str
    relation: str
    target: str
    weight: float = DEFAULT_WEIGHT
    variance: float = DEFAULT_VARIANCE
    activation_count: int = 0


def importance(edge: TwoFactorEdge) -> float:
    """Inverse variance: 1 for a fresh edge, up to 100 for a well-rehearsed one."""
    return 1.0 / max(MIN_VARIANCE, check_positive(edge.variance, "variance"))


def lock_score(variance: float) -> float:
    """How strongly an edge resists change (0 fresh .. 0.99 rehearsed)."""
    return 1.0 - min(1.0, check_positive(variance, "variance"))


def update_two_factor(
    edge: TwoFactorEdge, tag: float, activation: float, lock: float | None = None
) -> TwoFactorEdge:
    """One learning step; ``lock`` defaults to :func:`lock_score` of the edge's variance."""
    signed_tag = check_finite(tag, "tag")
    if not -1.0 <= signed_tag <= 1.0:
        raise InvalidInputError(f"tag must be within -1..1, got {tag}")
    act = check_unit(activation, "activation")
    lock_value = lock_score(edge.variance) if lock is None else check_unit(lock, "lock")
    lr = WEIGHT_LEARNING_RATE * (1.0 - 0.5 * lock_value)
    weight = min(MAX_WEIGHT, max(MIN_WEIGHT, edge.weight + lr * signed_tag * act))
    shrink = 1.0 - VARIANCE_LEARNING_RATE / (1.0 + 0.1 * edge.activation_count)
    variance = max(MIN_VARIANCE, edge.variance * shrink)
    return replace(
        edge, weight=weight, variance=variance, activation_count=edge.activation_count + 1
    )


def ewc_penalty(edge: TwoFactorEdge, anchor_weight: float, ewc_lambda: float = EWC_LAMBDA) -> float:
    """Cost of moving ``edge`` away from ``anchor_weight``: ``λ/2 · importance · Δw²``."""
    delta = edge.weight - check_finite(anchor_weight, "anchor_weight")
    return check_finite(ewc_lambda, "ewc_lambda") / 2.0 * importance(edge) * delta * delta


def decay_two_factor(
    edge: TwoFactorEdge, periods: float = 1.0, rate: float = _DEFAULT_DECAY_RATE
) -> TwoFactorEdge:
    """Decay ``periods`` steps at ``rate / (1 + 0.1 importance)``; weight floored at 0.05."""
    elapsed = check_finite(periods, "periods")
    if elapsed < 0:
        raise InvalidInputError(f"periods must be >= 0, got {periods}")
    effective = check_unit(rate, "rate") / (1.0 + 0.1 * importance(edge))
    weight = max(MIN_WEIGHT, edge.weight * (1.0 - effective) ** elapsed)
    return replace(edge, weight=weight)


def from_legacy_edge(
    source: str, target: str, weight: float, relation: str = "related_to"
) -> TwoFactorEdge:
    """Wrap a plain Hebbian weight; heavier edges start more certain (var 1/(1 + 0.5 w))."""
    w = check_finite(weight, "weight")
    if w < 0:
        raise InvalidInputError(f"weight must be >= 0, got {weight}")
    return TwoFactorEdge(
        source=source,
        relation=relation,
        target=target,
        weight=min(MAX_WEIGHT, max(MIN_WEIGHT, w)),
        variance=max(MIN_VARIANCE, 1.0 / (1.0 + 0.5 * w)),
    )
