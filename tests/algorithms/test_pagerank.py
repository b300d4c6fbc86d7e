"""Personalised PageRank by power iteration."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from zenbrain._algorithms.pagerank import (
    personalized_pagerank,
    top_k_by_pagerank,
    undirected_to_directed,
)
from zenbrain.errors import InvalidInputError


def test_two_node_cycle_closed_form() -> None:
    # a <-> b, seed a: v_a = α + (1-α) v_b, v_b = (1-α) v_a  =>  v_a = 1/(2-α)
    result = personalized_pagerank(["a", "b"], [("a", "b", 1.0), ("b", "a", 1.0)], {"a": 1.0})
    assert result.converged
    assert result.scores["a"] == pytest.approx(1 / 1.85, abs=1e-5)
    assert result.scores["b"] == pytest.approx(0.85 / 1.85, abs=1e-5)


def test_dangling_mass_returns_to_seeds() -> None:
    result = personalized_pagerank(["s", "d", "x"], [("s", "d", 1.0)], {"s": 1.0})
    assert sum(result.scores.values()) == pytest.approx(1.0)
    assert result.scores["x"] == 0.0
    # stationary: v_s = α + (1-α) v_d, v_d = (1-α) v_s
    assert result.scores["s"] == pytest.approx(1 / (1 + 0.85), abs=1e-5)


def test_matches_dense_linear_solve() -> None:
    rng = np.random.default_rng(3)
    n = 8
    weights = rng.random((n, n)) * (rng.random((n, n)) < 0.4)
    np.fill_diagonal(weights, 0)
    edges = [(i, j, float(weights[i, j])) for i in range(n) for j in range(n) if weights[i, j]]
    seeds = {0: 1.0, 3: 1.0}
    result = personalized_pagerank(
        list(range(n)), edges, seeds, max_iterations=1000, tolerance=1e-12
    )
    s = np.zeros(n)
    s[[0, 3]] = 0.5
    out = weights.sum(axis=1)
    m = np.zeros((n, n))
    for i in range(n):
        m[:, i] = weights[i] / out[i] if out[i] else s
    expected = np.linalg.solve(np.eye(n) - 0.85 * m, 0.15 * s)
    assert [result.scores[i] for i in range(n)] == pytest.approx(expected.tolist(), abs=1e-9)


def test_helpers_and_errors() -> None:
    assert undirected_to_directed([("a", "b", 2.0)]) == [("a", "b", 2.0), ("b", "a", 2.0)]
    assert top_k_by_pagerank({"a": 0.5, "b": 0.3, "c": 0.2}, 2, exclude=["a"]) == [
        ("b", 0.3),
        ("c", 0.2),
    ]
    with pytest.raises(InvalidInputError):
        personalized_pagerank(["a"], [], {})
    with pytest.raises(InvalidInputError):
        personalized_pagerank(["a"], [("a", "z", 1.0)], {"a": 1.0})


@given(
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.floats(0, 3)), max_size=20),
    st.integers(0, 5),
)
def test_scores_are_a_distribution(edges: list[tuple[int, int, float]], seed: int) -> None:
    result = personalized_pagerank(list(range(6)), edges, {seed: 1.0})
    assert sum(result.scores.values()) == pytest.approx(1.0)
    assert all(v >= 0 for v in result.scores.values())
    assert result.scores[seed] >= 0.15 - 1e-9
