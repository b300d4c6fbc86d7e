"""Two-factor Hebbian edges: weight, variance, importance, EWC and decay."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from research.algorithms.hebbian_two_factor import (
    TwoFactorEdge,
    decay_two_factor,
    ewc_penalty,
    from_legacy_edge,
    importance,
    lock_score,
    update_two_factor,
)
from zenbrain.errors import InvalidInputError


def test_update_golden() -> None:
    edge = TwoFactorEdge("a", "related_to", "b")
    updated = update_two_factor(edge, tag=1.0, activation=1.0)
    assert updated.weight == pytest.approx(1.1)  # fresh edge: lock 0
    assert updated.variance == pytest.approx(0.85)
    assert updated.activation_count == 1
    locked = update_two_factor(edge, tag=1.0, activation=1.0, lock=1.0)
    assert locked.weight == pytest.approx(1.05)
    again = update_two_factor(updated, tag=1.0, activation=0.5)
    assert again.variance == pytest.approx(0.85 * (1 - 0.15 / 1.1))


def test_importance_ewc_decay_legacy() -> None:
    edge = TwoFactorEdge("a", "r", "b", weight=2.0, variance=0.25)
    assert importance(edge) == 4.0
    assert lock_score(0.25) == 0.75
    assert ewc_penalty(edge, anchor_weight=1.0) == pytest.approx(0.5 / 2 * 4 * 1.0)
    assert decay_two_factor(edge).weight == pytest.approx(2.0 * (1 - 0.02 / 1.4))
    assert decay_two_factor(edge, periods=1000).weight == 0.05
    legacy = from_legacy_edge("a", "b", 2.0)
    assert legacy.variance == pytest.approx(0.5)
    assert legacy.relation == "related_to"


def test_bad_input() -> None:
    edge = TwoFactorEdge("a", "r", "b")
    with pytest.raises(InvalidInputError):
        update_two_factor(edge, tag=2.0, activation=0.5)
    with pytest.raises(InvalidInputError):
        decay_two_factor(edge, periods=-1)


@given(st.lists(st.tuples(st.floats(-1, 1), st.floats(0, 1)), max_size=40))
def test_weight_and_variance_stay_bounded(steps: list[tuple[float, float]]) -> None:
    edge = TwoFactorEdge("a", "r", "b")
    for tag, activation in steps:
        previous = edge.variance
        edge = update_two_factor(edge, tag, activation)
        assert 0.05 <= edge.weight <= 10.0
        assert 0.01 <= edge.variance <= previous


@given(st.floats(0.01, 1), st.floats(0.05, 10))
def test_important_edges_decay_slower(variance: float, weight: float) -> None:
    important = TwoFactorEdge("a", "r", "b", weight=weight, variance=variance)
    fresh = TwoFactorEdge("a", "r", "b", weight=weight, variance=1.0)
    assert decay_two_factor(important).weight >= decay_two_factor(fresh).weight - 1e-12
