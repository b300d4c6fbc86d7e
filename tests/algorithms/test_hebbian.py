"""Hebbian strengthening, decay, homeostatic normalisation and pair generation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zenbrain._algorithms.hebbian import (
    apply_coactivation,
    decay,
    generate_pairs,
    normalize,
    strengthen,
)
from zenbrain.errors import InvalidInputError

weights = st.floats(min_value=0, max_value=10)


def test_golden_values() -> None:
    assert strengthen(1.0) == pytest.approx(1.09)
    assert strengthen(10.0) == 10.0
    assert decay(1.0) == pytest.approx(0.98)
    assert decay(1.0, periods=3) == pytest.approx(0.98**3)
    assert decay(0.1) == 0.0  # 0.098 < 0.1: prune signal


def test_decay_over_periods_equals_repeated_single_steps() -> None:
    step_by_step = decay(decay(decay(5.0)))
    assert decay(5.0, periods=3) == pytest.approx(step_by_step)


def test_normalize_only_scales_down() -> None:
    assert normalize({"a": 10.0, "b": 20.0}) == {"a": 10.0, "b": 20.0}
    scaled = normalize({"a": 60.0, "b": 40.0})
    assert scaled == pytest.approx({"a": 30.0, "b": 20.0})
    with pytest.raises(InvalidInputError):
        normalize({"a": -1.0})


def test_pairs_and_coactivation() -> None:
    assert generate_pairs(["a", "b", "a", "c"]) == [("a", "b"), ("a", "c"), ("b", "c")]
    edges = {frozenset(("a", "b")): 2.0}
    updated = apply_coactivation(edges, ["b", "a", "c"])
    assert updated[frozenset(("a", "b"))] == pytest.approx(2.0 + 0.1 * 0.8)
    assert updated[frozenset(("a", "c"))] == pytest.approx(1.09)
    assert edges == {frozenset(("a", "b")): 2.0}


@given(weights)
def test_strengthen_is_bounded_and_monotone(w: float) -> None:
    assert w <= strengthen(w) <= 10.0


@given(weights, st.floats(min_value=0, max_value=50))
def test_decay_never_increases(w: float, periods: float) -> None:
    result = decay(w, periods)
    assert result == 0.0 or 0.1 <= result <= w


@given(st.dictionaries(st.text(max_size=3), weights, max_size=20))
def test_normalized_sum_is_at_most_target(ws: dict[str, float]) -> None:
    assert sum(normalize(ws).values()) <= 50.0 + 1e-9
