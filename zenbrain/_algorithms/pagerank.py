"""Personalised PageRank: which memories are closest, through the graph, to the seeds?

Source: L. Page et al. 1999, "The PageRank Citation Ranking", personalised by a restart
distribution over seed nodes (Haveliwala 2002, "Topic-sensitive PageRank"); used for
multi-hop retrieval over knowledge graphs as in HippoRAG (Gutiérrez et al. 2024). As in the
TypeScript original (inventory §4.2 "personalized-pagerank"):
``v = α s + (1 - α) M v`` with restart probability α = 0.15, at most 100 power iterations,
stopping when the L1 change is below 1e-6. Mass sitting on dangling nodes (no out-edges)
returns to the seeds, so the scores always sum to 1.

Edges are directed ``(source, target, weight)``; use :func:`undirected_to_directed` for
symmetric graphs. Seeds may carry weights; they are normalised to sum to 1.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Generic, TypeVar

import numpy as np

from zenbrain._validation import check_finite, check_positive, check_unit
from zenbrain.errors import InvalidInputError

__all__ = [
    "DEFAULT_ALPHA",
    "PageRankResult",
    "personalized_pagerank",
    "top_k_by_pagerank",
    "undirected_to_directed",
]

DEFAULT_ALPHA: Final = 0.15
_MAX_ITERATIONS: Final = 100
_TOLERANCE: Final = 1e-6

N = TypeVar("N", bound=Hashable)


@dataclass(frozen=True, slots=True)
class PageRankResult(Generic[N]):
    scores: dict[N, float]
    iterations: int
    converged: bool


def undirected_to_directed(edges: Iterable[tuple[N, N, float]]) -> list[tuple[N, N, float]]:
    """Each undirected edge as two directed edges of the same weight."""
    directed: list[tuple[N, N, float]] = []
    for a, b, weight in edges:
        directed.append((a, b, weight))
        directed.append((b, a, weight))
    return directed


def personalized_pagerank(
    nodes: Sequence[N],
    edges: Iterable[tuple[N, N, float]],
    seeds: Mapping[N, float],
    alpha: float = DEFAULT_ALPHA,
    max_iterations: int = _MAX_ITERATIONS,
    tolerance: float = _TOLERANCE,
) -> PageRankResult[N]:
    """Scores (summing to 1) of every node for a random walk restarting at ``seeds``."""
    index = {node: i for i, node in enumerate(nodes)}
    if len(index) != len(nodes):
        raise InvalidInputError("nodes must be unique")
    alpha = check_unit(alpha, "alpha")
    tolerance = check_positive(tolerance, "tolerance")
    if max_iterations < 1:
        raise InvalidInputError(f"max_iterations must be >= 1, got {max_iterations}")

    restart = np.zeros(len(nodes), dtype=np.float64)
    for node, weight in seeds.items():
        if node not in index:
            raise InvalidInputError(f"seed {node!r} is not a node")
        if check_finite(weight, "seed weight") < 0:
            raise InvalidInputError(f"seed weights must be >= 0, got {weight}")
        restart[index[node]] += weight
    if restart.sum() <= 0:
        raise InvalidInputError("at least one seed with a positive weight is required")
    restart /= restart.sum()

    sources, targets, weights = [], [], []
    for a, b, weight in edges:
        if a not in index or b not in index:
            raise InvalidInputError(f"edge ({a!r}, {b!r}) refers to an unknown node")
        w = check_finite(weight, "edge weight")
        if w < 0:
            raise InvalidInputError(f"edge weights must be >= 0, got {weight}")
        if w > 0:
            sources.append(index[a])
            targets.append(index[b])
            weights.append(w)
    src = np.array(sources, dtype=np.intp)
    dst = np.array(targets, dtype=np.intp)
    out_weight = np.zeros(len(nodes), dtype=np.float64)
    np.add.at(out_weight, src, np.array(weights, dtype=np.float64))
    transition = np.array(weights, dtype=np.float64) / out_weight[src] if weights else np.zeros(0)
    dangling = out_weight == 0

    scores = restart.copy()
    iterations = 0
    converged = False
    while iterations < max_iterations:
        iterations += 1
        walked = np.zeros(len(nodes), dtype=np.float64)
        np.add.at(walked, dst, scores[src] * transition)
        walked += scores[dangling].sum() * restart
        updated = alpha * restart + (1.0 - alpha) * walked
        change = float(np.abs(updated - scores).sum())
        scores = updated
        if change < tolerance:
            converged = True
            break
    return PageRankResult(
        scores={node: float(scores[i]) for node, i in index.items()},
        iterations=iterations,
        converged=converged,
    )


def top_k_by_pagerank(
    scores: Mapping[N, float], k: int, exclude: Iterable[N] = ()
) -> list[tuple[N, float]]:
    """The ``k`` highest-scoring nodes not in ``exclude`` (e.g. the seeds), best first."""
    if k < 0:
        raise InvalidInputError(f"k must be >= 0, got {k}")
    skip = set(exclude)
    ranked = [(node, score) for node, score in scores.items() if node not in skip]
    ranked.sort(key=lambda item: -item[1])
    return ranked[:k]
