"""Surprise-gated memory: contribution, EMA, boost, interval shrink."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from research.algorithms.surprise import (
    shrink_interval,
    surprise_boost,
    surprise_contribution,
    update_surprise,
)
from zenbrain.errors import InvalidInputError


def test_golden() -> None:
    assert surprise_contribution(0.5, error_scale=2.0) == 0.25
    assert surprise_contribution(9.0, confidence=0.5, sign=-1) == -0.5
    assert update_surprise(0.0, 1.0) == pytest.approx(0.1)
    assert update_surprise(0.5, -1.0) == pytest.approx(0.35)
    assert surprise_boost(0.8, 0.5) == pytest.approx(0.84)
    assert surprise_boost(0.8, -1.0) == pytest.approx(0.72)
    assert shrink_interval(10.0, -0.5) == pytest.approx(9.0)


def test_repeated_surprise_approaches_one_without_compounding_past_it() -> None:
    state = 0.0
    for _ in range(200):
        state = update_surprise(state, 1.0)
    assert 0.99 < state <= 1.0


def test_bad_input() -> None:
    with pytest.raises(InvalidInputError):
        update_surprise(1.5, 0.0)
    with pytest.raises(InvalidInputError):
        surprise_contribution(0.5, error_scale=0)
    with pytest.raises(InvalidInputError):
        shrink_interval(-1, 0)


@given(st.floats(-1, 1), st.floats(-1, 1))
def test_state_stays_bounded(state: float, contribution: float) -> None:
    assert -1.0 <= update_surprise(state, contribution) <= 1.0


@given(st.floats(0, 1000), st.floats(-1, 1), st.floats(-1, 1))
def test_more_surprise_shortens_interval(base: float, d1: float, d2: float) -> None:
    calm, wild = sorted((d1, d2), key=abs)
    assert shrink_interval(base, wild) <= shrink_interval(base, calm) + 1e-9
    assert shrink_interval(base, wild) >= 0.2 * base - 1e-9
