"""Damped confidence propagation, including the related_to fix."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zenbrain._algorithms.bayesian import Relation, propagate_confidence, relation_factor
from zenbrain.errors import InvalidInputError


def test_factors() -> None:
    assert relation_factor("supports") == 1.0
    assert relation_factor("Contradicts") == -1.0
    assert relation_factor("related_to") == pytest.approx(0.1)
    with pytest.raises(InvalidInputError):
        relation_factor("likes")


def test_single_support_golden() -> None:
    result = propagate_confidence(
        {"a": 0.9, "b": 0.5}, [Relation("a", "b", "supports", 1.0)], max_iterations=1
    )
    proposed = 0.5 + 1.0 * 1.0 * 0.9 * 0.5
    assert result.beliefs["b"] == pytest.approx(0.7 * proposed + 0.3 * 0.5)
    assert result.beliefs["a"] == 0.9
    assert result.iterations == 1


def test_contradiction_lowers_belief() -> None:
    result = propagate_confidence(
        {"a": 0.8, "b": 0.6}, [Relation("a", "b", "contradicts", 0.5)], max_iterations=1
    )
    proposed = 0.6 * (1 - 1.0 * 0.5 * 0.8)
    assert result.beliefs["b"] == pytest.approx(0.7 * proposed + 0.3 * 0.6)


def test_related_to_now_has_an_effect() -> None:
    result = propagate_confidence({"a": 1.0, "b": 0.5}, [Relation("a", "b", "related_to")])
    assert result.beliefs["b"] > 0.5


def test_converges_to_fixed_point_instead_of_saturating() -> None:
    result = propagate_confidence(
        {"a": 0.5, "b": 0.5}, [Relation("a", "b", "similar_to", 0.5)], max_iterations=50
    )
    assert result.converged
    assert result.beliefs["b"] < 0.56  # fixed point 0.5 + 0.2*0.5*0.5*0.5 = 0.525


def test_order_of_relations_does_not_matter() -> None:
    relations = [
        Relation("a", "c", "supports", 0.7),
        Relation("b", "c", "contradicts", 0.4),
        Relation("c", "a", "causes", 0.9),
    ]
    priors = {"a": 0.6, "b": 0.7, "c": 0.5}
    forward = propagate_confidence(priors, relations).beliefs
    backward = propagate_confidence(priors, list(reversed(relations))).beliefs
    assert forward == pytest.approx(backward)


@pytest.mark.parametrize(
    ("priors", "relations"),
    [
        ({"a": 1.2}, []),
        ({"a": 0.5}, [Relation("a", "x", "supports")]),
        ({"a": 0.5}, [Relation("a", "a", "supports")]),
        ({"a": 0.5, "b": 0.5}, [Relation("a", "b", "supports", 2.0)]),
        ({"a": 0.5, "b": 0.5}, [Relation("a", "b", "befriends")]),
    ],
)
def test_bad_input(priors: dict[str, float], relations: list[Relation[str]]) -> None:
    with pytest.raises(InvalidInputError):
        propagate_confidence(priors, relations)


unit = st.floats(min_value=0, max_value=1)


@given(
    st.lists(
        st.tuples(unit, unit, st.sampled_from(["supports", "contradicts", "causes"])),
        min_size=1,
        max_size=6,
    ),
    unit,
)
def test_beliefs_stay_in_unit_range(edges: list[tuple[float, float, str]], prior: float) -> None:
    priors = {f"s{i}": b for i, (b, _, _) in enumerate(edges)} | {"t": prior}
    relations = [Relation(f"s{i}", "t", rel, w) for i, (_, w, rel) in enumerate(edges)]
    result = propagate_confidence(priors, relations)
    assert all(0.0 <= v <= 1.0 for v in result.beliefs.values())
    assert result.iterations <= 3


@given(unit, unit, unit)
def test_support_never_lowers_and_contradiction_never_raises(a: float, b: float, w: float) -> None:
    up = propagate_confidence({"a": a, "b": b}, [Relation("a", "b", "supports", w)])
    down = propagate_confidence({"a": a, "b": b}, [Relation("a", "b", "contradicts", w)])
    assert up.beliefs["b"] >= b - 1e-12
    assert down.beliefs["b"] <= b + 1e-12
