"""Confidence propagation over a graph of related facts.

Source: loopy belief propagation (J. Pearl, "Probabilistic Reasoning in Intelligent
Systems", 1988) in the simplified, damped form of the TypeScript original (inventory §4.1
"bayesian"): each relation carries a factor ``f`` in -1..1; evidence from a source with
belief ``s`` over an edge of weight ``w`` moves the target belief ``b``:

- supporting (f > 0): ``b + f w s (1 - b)`` (pushes toward 1, never past it);
- contradicting (f < 0): ``b (1 - |f| w s)`` (pushes toward 0).

Factors: supports 1.0, contradicts -1.0, causes 0.8, requires 0.6, part_of 0.3,
similar_to 0.2, related_to 0.1, created_by 0, used_by 0. Updates are damped
(``0.7 new + 0.3 previous``), run for at most 3 iterations and stop early once no belief
moves by more than 0.01.

Differences from the original:

- ``related_to`` gets a small positive factor (0.1): a loose association is weak evidence,
  not none. The original's README used ``related_to`` in its example but the code gave it
  no factor, so the example changed nothing.
- An unknown relation type is an error (pass ``factors=`` to add your own) instead of a
  silent zero.
- Each iteration starts again from the nodes' prior beliefs and uses the previous
  iteration's beliefs of the sources (Jacobi order), so the result does not depend on edge
  order and the same evidence is not counted again on every iteration. Within a node,
  supporting evidence is applied before contradicting evidence.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, Generic, TypeVar

from zenbrain._validation import check_finite, check_unit
from zenbrain.errors import InvalidInputError

__all__ = [
    "CHANGE_THRESHOLD",
    "DAMPING",
    "MAX_ITERATIONS",
    "RELATION_FACTORS",
    "PropagationResult",
    "Relation",
    "propagate_confidence",
    "relation_factor",
]

DAMPING: Final = 0.7
MAX_ITERATIONS: Final = 3
CHANGE_THRESHOLD: Final = 0.01
RELATION_FACTORS: Final = MappingProxyType(
    {
        "supports": 1.0,
        "contradicts": -1.0,
        "causes": 0.8,
        "requires": 0.6,
        "part_of": 0.3,
        "similar_to": 0.2,
        "related_to": 0.1,
        "created_by": 0.0,
        "used_by": 0.0,
    }
)

N = TypeVar("N", bound=Hashable)


@dataclass(frozen=True, slots=True)
class Relation(Generic[N]):
    """A directed edge: ``source``'s belief is evidence for (or against) ``target``."""

    source: N
    target: N
    relation: str
    weight: float = 1.0


@dataclass(frozen=True, slots=True)
class PropagationResult(Generic[N]):
    beliefs: dict[N, float]
    iterations: int
    converged: bool


def relation_factor(relation: str, factors: Mapping[str, float] = RELATION_FACTORS) -> float:
    """The factor of ``relation`` (case-insensitive); unknown relations raise."""
    key = relation.strip().lower() if isinstance(relation, str) else relation
    if key not in factors:
        raise InvalidInputError(
            f"unknown relation type {relation!r}; known: {sorted(factors)} "
            "(pass factors= to add more)"
        )
    return factors[key]


def _combine(prior: float, evidence: list[tuple[float, float]]) -> float:
    """Apply (factor, weight * source belief) pairs to ``prior``: supports first."""
    belief = prior
    for factor, strength in evidence:
        if factor > 0:
            belief += factor * strength * (1.0 - belief)
    for factor, strength in evidence:
        if factor < 0:
            belief *= 1.0 - abs(factor) * strength
    return belief


def propagate_confidence(
    priors: Mapping[N, float],
    relations: Iterable[Relation[N]],
    *,
    factors: Mapping[str, float] = RELATION_FACTORS,
    damping: float = DAMPING,
    max_iterations: int = MAX_ITERATIONS,
    change_threshold: float = CHANGE_THRESHOLD,
) -> PropagationResult[N]:
    """Propagate beliefs (0..1) along ``relations``; returns the new beliefs of all nodes."""
    beliefs = {node: check_unit(b, f"belief of {node!r}") for node, b in priors.items()}
    damping = check_unit(damping, "damping")
    if max_iterations < 1:
        raise InvalidInputError(f"max_iterations must be >= 1, got {max_iterations}")
    for name, factor in factors.items():
        if not -1.0 <= check_finite(factor, f"factor of {name!r}") <= 1.0:
            raise InvalidInputError(f"factor of {name!r} must be within -1..1, got {factor}")

    incoming: dict[N, list[tuple[N, float, float]]] = {}
    for edge in relations:
        for end in (edge.source, edge.target):
            if end not in beliefs:
                raise InvalidInputError(f"relation refers to {end!r}, which has no prior")
        if edge.source == edge.target:
            raise InvalidInputError(f"self-relation on {edge.source!r} is not allowed")
        factor = relation_factor(edge.relation, factors)
        weight = check_unit(edge.weight, "relation weight")
        if factor != 0.0 and weight > 0.0:
            incoming.setdefault(edge.target, []).append((edge.source, factor, weight))

    priors_checked = dict(beliefs)
    iterations = 0
    converged = False
    while iterations < max_iterations:
        iterations += 1
        updated = dict(beliefs)
        largest_change = 0.0
        for target, edges in incoming.items():
            evidence = [(f, w * beliefs[source]) for source, f, w in edges]
            proposed = _combine(priors_checked[target], evidence)
            damped = damping * proposed + (1.0 - damping) * beliefs[target]
            largest_change = max(largest_change, abs(damped - beliefs[target]))
            updated[target] = min(1.0, max(0.0, damped))
        beliefs = updated
        if largest_change < change_threshold:
            converged = True
            break
    return PropagationResult(beliefs=beliefs, iterations=iterations, converged=converged)
