"""Retrievability confidence intervals (Wilson and Wald) and propagation widening."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from research.algorithms.intervals import (
    ConfidenceInterval,
    propagate_interval,
    retrievability_interval,
)
from zenbrain.errors import InvalidInputError


def test_wald_golden() -> None:
    ci = retrievability_interval(0.9, 100, method="wald")
    half = 1.96 * math.sqrt(0.09 / 100)
    assert (ci.lower, ci.upper) == pytest.approx((0.9 - half, 0.9 + half))


def test_wilson_golden_and_nonzero_width_at_certainty() -> None:
    ci = retrievability_interval(1.0, 4)
    # Wilson lower bound for 4 of 4: n / (n + z²)
    assert ci.lower == pytest.approx(4 / (4 + 1.96**2))
    assert ci.upper == pytest.approx(1.0)
    assert retrievability_interval(1.0, 4, method="wald").width == 0.0


def test_zero_observations_count_as_one() -> None:
    assert retrievability_interval(0.5, 0) == retrievability_interval(0.5, 1)


def test_propagation_widens() -> None:
    source = ConfidenceInterval(0.7, 0.6, 0.8)
    ci = propagate_interval(0.5, source, 1.0)
    assert ci.width == pytest.approx(1.1 * 0.2 + 0.05)
    assert ci.lower == pytest.approx(0.5 - ci.width / 2)
    edge = propagate_interval(0.02, source, 1.0)
    assert edge.lower == 0.0 and edge.width == pytest.approx(0.27)


def test_bad_input() -> None:
    with pytest.raises(InvalidInputError):
        retrievability_interval(1.2, 3)
    with pytest.raises(InvalidInputError):
        retrievability_interval(0.5, -1)
    with pytest.raises(InvalidInputError):
        retrievability_interval(0.5, 3, method="exact")  # type: ignore[arg-type]


@given(
    st.floats(min_value=0, max_value=1),
    st.integers(min_value=1, max_value=500),
    st.sampled_from(["wilson", "wald"]),
)
def test_interval_contains_estimate_and_stays_in_range(p: float, n: int, method: str) -> None:
    ci = retrievability_interval(p, n, method=method)  # type: ignore[arg-type]
    assert 0.0 <= ci.lower <= p + 1e-12
    assert p - 1e-12 <= ci.upper <= 1.0


@given(st.floats(min_value=0.01, max_value=0.99), st.integers(min_value=1, max_value=200))
def test_more_observations_narrow_the_interval(p: float, n: int) -> None:
    assert retrievability_interval(p, n * 4).width < retrievability_interval(p, n).width
