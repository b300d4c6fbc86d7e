"""Spectral health of the memory graph: is it one connected web or falling apart?

Source: algebraic connectivity (M. Fiedler 1973, "Algebraic connectivity of graphs"): the
second-smallest eigenvalue λ2 of the graph Laplacian ``L = D - A`` is 0 exactly when the
graph is disconnected, and grows as the graph becomes better connected. As in the
TypeScript original (inventory §4.2 "spectral-health"), a graph with ``λ2 < 0.01`` is
reported as fragmented, and a consolidation pass is successful when it did not lower λ2.

Difference from the original: eigenvalues come from LAPACK through
``numpy.linalg.eigvalsh`` instead of a hand-written Householder/QL routine. Edges are
undirected; parallel edges add up, self-loops are ignored (they do not change L). The
dense eigen-decomposition costs O(n³): fine for a few thousand nodes.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from research.algorithms.checks import check_finite
from zenbrain.errors import InvalidInputError

__all__ = [
    "FRAGMENTATION_THRESHOLD",
    "GraphHealthReport",
    "fiedler_value",
    "graph_health",
    "laplacian",
]

FRAGMENTATION_THRESHOLD: Final = 0.01
WeightedEdge = tuple[Hashable, Hashable, float]


@dataclass(frozen=True, slots=True)
class GraphHealthReport:
    fiedler_value: float
    previous_fiedler_value: float | None
    is_fragmented: bool
    consolidation_successful: bool
    node_count: int
    edge_count: int


def _normalise_edges(
    edges: Iterable[tuple[Hashable, Hashable] | WeightedEdge],
) -> list[WeightedEdge]:
    normalised: list[WeightedEdge] = []
    for edge in edges:
        if len(edge) == 2:
            a, b = edge
            weight = 1.0
        elif len(edge) == 3:
            a, b, raw = edge
            weight = check_finite(raw, "edge weight")
        else:
            raise InvalidInputError(f"edges must be (a, b) or (a, b, weight), got {edge!r}")
        if weight < 0:
            raise InvalidInputError(f"edge weights must be >= 0, got {weight}")
        normalised.append((a, b, weight))
    return normalised


def laplacian(
    nodes: Sequence[Hashable], edges: Iterable[tuple[Hashable, Hashable] | WeightedEdge]
) -> np.ndarray:
    """The weighted Laplacian ``D - A`` with rows in the order of ``nodes``."""
    index = {node: i for i, node in enumerate(nodes)}
    if len(index) != len(nodes):
        raise InvalidInputError("nodes must be unique")
    matrix = np.zeros((len(nodes), len(nodes)), dtype=np.float64)
    for a, b, weight in _normalise_edges(edges):
        if a not in index or b not in index:
            raise InvalidInputError(f"edge ({a!r}, {b!r}) refers to an unknown node")
        i, j = index[a], index[b]
        if i == j:
            continue
        matrix[i, j] -= weight
        matrix[j, i] -= weight
        matrix[i, i] += weight
        matrix[j, j] += weight
    return matrix


def fiedler_value(
    nodes: Sequence[Hashable], edges: Iterable[tuple[Hashable, Hashable] | WeightedEdge]
) -> float:
    """λ2 of the Laplacian (0.0 for graphs with fewer than two nodes)."""
    matrix = laplacian(nodes, edges)
    if len(nodes) < 2:
        return 0.0
    eigenvalues = np.linalg.eigvalsh(matrix)
    # Round-off can leave a tiny negative value where the exact answer is 0.
    return max(0.0, float(eigenvalues[1]))


def graph_health(
    nodes: Sequence[Hashable],
    edges: Iterable[tuple[Hashable, Hashable] | WeightedEdge],
    previous_fiedler_value: float | None = None,
) -> GraphHealthReport:
    """Fiedler value, fragmentation and whether it held up against ``previous_fiedler_value``."""
    edge_list = _normalise_edges(edges)
    value = fiedler_value(nodes, edge_list)
    if previous_fiedler_value is not None:
        previous_fiedler_value = check_finite(previous_fiedler_value, "previous_fiedler_value")
    successful = previous_fiedler_value is None or value >= previous_fiedler_value - 1e-12
    return GraphHealthReport(
        fiedler_value=value,
        previous_fiedler_value=previous_fiedler_value,
        is_fragmented=value < FRAGMENTATION_THRESHOLD,
        consolidation_successful=successful,
        node_count=len(nodes),
        edge_count=len(edge_list),
    )
