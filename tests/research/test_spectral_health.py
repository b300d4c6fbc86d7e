"""Fiedler value of the memory graph."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from research.algorithms.spectral_health import fiedler_value, graph_health, laplacian
from zenbrain.errors import InvalidInputError


def test_known_graphs() -> None:
    # Path on 3 nodes: Laplacian eigenvalues 0, 1, 3.
    assert fiedler_value("abc", [("a", "b"), ("b", "c")]) == pytest.approx(1.0)
    # Complete graph K4: λ2 = n = 4.
    k4 = [(a, b) for a in range(4) for b in range(a + 1, 4)]
    assert fiedler_value(range(4), k4) == pytest.approx(4.0)
    # Weighted single edge: eigenvalues 0 and 2w.
    assert fiedler_value(["x", "y"], [("x", "y", 2.5)]) == pytest.approx(5.0)
    assert fiedler_value(["x"], []) == 0.0


def test_report() -> None:
    split = graph_health("abcd", [("a", "b"), ("c", "d")], previous_fiedler_value=0.5)
    assert split.is_fragmented and not split.consolidation_successful
    assert (split.node_count, split.edge_count) == (4, 2)
    joined = graph_health("abcd", [("a", "b"), ("b", "c"), ("c", "d")], 0.0)
    assert not joined.is_fragmented and joined.consolidation_successful


def test_laplacian_and_errors() -> None:
    matrix = laplacian(["a", "b"], [("a", "b", 1.0), ("a", "a", 3.0)])
    assert matrix.tolist() == [[1.0, -1.0], [-1.0, 1.0]]
    with pytest.raises(InvalidInputError):
        laplacian(["a"], [("a", "z")])
    with pytest.raises(InvalidInputError):
        laplacian(["a", "b"], [("a", "b", -1.0)])


@given(st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7), st.floats(0, 5)), max_size=25))
def test_adding_an_edge_never_lowers_connectivity(edges: list[tuple[int, int, float]]) -> None:
    nodes = list(range(8))
    before = fiedler_value(nodes, edges)
    after = fiedler_value(nodes, [*edges, (0, 7, 1.0)])
    assert before >= 0.0
    assert after >= before - 1e-9
