"""Confidence intervals for retrievability estimates and for propagated beliefs.

Source: binomial proportion intervals — the Wald interval ``p ± z sqrt(p (1 - p) / n)``
used by the TypeScript original (inventory §4.1 "intervals") and the Wilson score interval
(E. B. Wilson 1927, recommended by Brown, Cai & DasGupta 2001, "Interval Estimation for a
Binomial Proportion"). ``n`` is the number of observations behind the estimate (reviews).

Propagation through an edge of weight ``w`` widens the interval:
``width' = min(1, 1.1 width + 0.05 w)``, centred on the propagated estimate.

Difference from the original: the default method is Wilson, because the Wald interval has
zero width at R = 0 or R = 1 (one lucky review would look certain) and can leave 0..1.
``method="wald"`` reproduces the original (clamped to 0..1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final, Literal

from research.algorithms.checks import check_positive, check_unit
from zenbrain.errors import InvalidInputError

__all__ = [
    "Z_95",
    "ConfidenceInterval",
    "IntervalMethod",
    "propagate_interval",
    "retrievability_interval",
]

Z_95: Final = 1.96
_PROPAGATION_WIDENING: Final = 1.1
_PROPAGATION_WEIGHT_TERM: Final = 0.05

IntervalMethod = Literal["wilson", "wald"]


@dataclass(frozen=True, slots=True)
class ConfidenceInterval:
    estimate: float
    lower: float
    upper: float

    @property
    def width(self) -> float:
        return self.upper - self.lower


def retrievability_interval(
    retrievability: float,
    observations: int,
    z: float = Z_95,
    method: IntervalMethod = "wilson",
) -> ConfidenceInterval:
    """Interval around ``retrievability`` estimated from ``observations`` reviews (>= 1 used)."""
    p = check_unit(retrievability, "retrievability")
    z = check_positive(z, "z")
    if isinstance(observations, bool) or not isinstance(observations, int) or observations < 0:
        raise InvalidInputError(f"observations must be an int >= 0, got {observations!r}")
    n = max(observations, 1)
    if method == "wald":
        half = z * math.sqrt(p * (1.0 - p) / n)
        return ConfidenceInterval(p, max(0.0, p - half), min(1.0, p + half))
    if method == "wilson":
        z2 = z * z
        centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
        return ConfidenceInterval(p, max(0.0, centre - half), min(1.0, centre + half))
    raise InvalidInputError(f"method must be 'wilson' or 'wald', got {method!r}")


def propagate_interval(
    estimate: float, source: ConfidenceInterval, edge_weight: float
) -> ConfidenceInterval:
    """Interval of a belief derived over an edge: wider than the source's, centred on it."""
    centre = check_unit(estimate, "estimate")
    weight = check_unit(edge_weight, "edge_weight")
    width = min(1.0, _PROPAGATION_WIDENING * source.width + _PROPAGATION_WEIGHT_TERM * weight)
    lower, upper = centre - width / 2, centre + width / 2
    # Keep the full width inside 0..1 by shifting rather than cutting it.
    if lower < 0.0:
        lower, upper = 0.0, width
    elif upper > 1.0:
        lower, upper = 1.0 - width, 1.0
    return ConfidenceInterval(centre, lower, upper)
