"""Sleep-like consolidation: pick memories to replay, strengthen them, prune weak links.

Source: systems consolidation through hippocampal replay during sleep (Diekelmann & Born
2010, "The memory function of sleep"; Wilson & McNaughton 1994) and the synaptic
homeostasis hypothesis — weak synapses are pruned during sleep (Tononi & Cirelli 2014).
Constants from the TypeScript original (inventory §4.1 "sleep-consolidation").

- Replay priority of a memory:
  ``0.3 access/max_access + bias * emotional + 0.2 e^{-0.1 days_since_access}
  + (0.5 - bias) (1 - min(1, S / 365))`` with emotional bias 0.3; the top 20 are replayed.
- Replay multiplies stability by 1.5, by a further 1.2 when the memory's emotional weight
  is above 0.5, capped at 365 days.
- Edges touching replayed memories: weight >= 0.2 -> x1.1 (cap 10); weaker -> pruned.

Edge cases made explicit: a memory whose last access lies after ``now`` (clock skew)
counts as just accessed, the mean stability increase is 0.0 when nothing was replayed,
and an emotional bias above 0.5 is rejected (it would turn the fragility term negative).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Generic, TypeVar

from zenbrain._validation import check_finite, check_unit, days_between
from zenbrain.errors import InvalidInputError

__all__ = [
    "EDGE_STRENGTHEN",
    "EMOTIONAL_BIAS",
    "EMOTIONAL_BONUS",
    "MAX_EDGE_WEIGHT",
    "MAX_REPLAYS",
    "MAX_STABILITY",
    "REPLAY_STRENGTH",
    "WEAK_THRESHOLD",
    "ConsolidationEdge",
    "PruneResult",
    "ReplayCandidate",
    "ReplayOutcome",
    "prune_weak_connections",
    "replay",
    "replay_priority",
    "select_for_replay",
]

REPLAY_STRENGTH: Final = 1.5
EMOTIONAL_BIAS: Final = 0.3
MAX_REPLAYS: Final = 20
WEAK_THRESHOLD: Final = 0.2
MAX_STABILITY: Final = 365.0
EMOTIONAL_BONUS: Final = 1.2
EDGE_STRENGTHEN: Final = 1.1
MAX_EDGE_WEIGHT: Final = 10.0
_EMOTIONAL_REPLAY_THRESHOLD: Final = 0.5
_ACCESS_SHARE: Final = 0.3
_RECENCY_SHARE: Final = 0.2
_RECENCY_RATE: Final = 0.1
_FRAGILITY_BUDGET: Final = 0.5

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True, slots=True)
class ReplayCandidate:
    memory_id: str
    stability: float
    access_count: int
    last_accessed: datetime
    emotional_weight: float = 0.0


@dataclass(frozen=True, slots=True)
class ConsolidationEdge(Generic[K]):
    source: K
    target: K
    weight: float


@dataclass(frozen=True, slots=True)
class PruneResult(Generic[K]):
    kept: list[ConsolidationEdge[K]]
    pruned: list[ConsolidationEdge[K]]


@dataclass(frozen=True, slots=True)
class ReplayOutcome:
    stabilities: dict[str, float]
    edges: list[ConsolidationEdge[str]]
    replayed: int
    strengthened: int
    pruned: int
    mean_stability_increase: float


def replay_priority(
    candidate: ReplayCandidate,
    now: datetime,
    max_access: int,
    emotional_bias: float = EMOTIONAL_BIAS,
) -> float:
    """Priority of one memory for replay (higher first); see the module docstring."""
    bias = check_unit(emotional_bias, "emotional_bias")
    if bias > _FRAGILITY_BUDGET:
        raise InvalidInputError(f"emotional_bias must be <= 0.5, got {emotional_bias}")
    emotion = check_unit(candidate.emotional_weight, "emotional_weight")
    stability = check_finite(candidate.stability, "stability")
    if candidate.access_count < 0 or stability <= 0:
        raise InvalidInputError("access_count must be >= 0 and stability > 0")
    access = candidate.access_count / max_access if max_access > 0 else 0.0
    days = max(0.0, days_between(candidate.last_accessed, now))
    return (
        _ACCESS_SHARE * access
        + bias * emotion
        + _RECENCY_SHARE * math.exp(-_RECENCY_RATE * days)
        + (_FRAGILITY_BUDGET - bias) * (1.0 - min(1.0, stability / MAX_STABILITY))
    )


def select_for_replay(
    candidates: Sequence[ReplayCandidate],
    now: datetime,
    limit: int = MAX_REPLAYS,
    emotional_bias: float = EMOTIONAL_BIAS,
) -> list[ReplayCandidate]:
    """The ``limit`` memories with the highest replay priority (ties by id)."""
    if limit < 0:
        raise InvalidInputError(f"limit must be >= 0, got {limit}")
    max_access = max((c.access_count for c in candidates), default=0)
    ranked = sorted(
        candidates,
        key=lambda c: (-replay_priority(c, now, max_access, emotional_bias), c.memory_id),
    )
    return ranked[:limit]


def prune_weak_connections(
    edges: Sequence[ConsolidationEdge[K]], threshold: float = WEAK_THRESHOLD
) -> PruneResult[K]:
    """Split ``edges`` into kept (weight >= threshold) and pruned."""
    limit = check_finite(threshold, "threshold")
    kept = [edge for edge in edges if edge.weight >= limit]
    pruned = [edge for edge in edges if edge.weight < limit]
    return PruneResult(kept, pruned)


def replay(
    selected: Sequence[ReplayCandidate],
    edges: Sequence[ConsolidationEdge[str]] = (),
) -> ReplayOutcome:
    """Replay ``selected``: raise their stability, strengthen or prune their edges.

    Edges not touching a replayed memory are returned unchanged.
    """
    stabilities: dict[str, float] = {}
    increases: list[float] = []
    for memory in selected:
        factor = REPLAY_STRENGTH
        if memory.emotional_weight > _EMOTIONAL_REPLAY_THRESHOLD:
            factor *= EMOTIONAL_BONUS
        new_stability = min(MAX_STABILITY, memory.stability * factor)
        stabilities[memory.memory_id] = new_stability
        increases.append(new_stability - memory.stability)
    replayed_ids = set(stabilities)
    kept: list[ConsolidationEdge[str]] = []
    strengthened = pruned = 0
    for edge in edges:
        if edge.source not in replayed_ids and edge.target not in replayed_ids:
            kept.append(edge)
        elif edge.weight >= WEAK_THRESHOLD:
            weight = min(MAX_EDGE_WEIGHT, edge.weight * EDGE_STRENGTHEN)
            kept.append(ConsolidationEdge(edge.source, edge.target, weight))
            strengthened += 1
        else:
            pruned += 1
    return ReplayOutcome(
        stabilities=stabilities,
        edges=kept,
        replayed=len(stabilities),
        strengthened=strengthened,
        pruned=pruned,
        mean_stability_increase=sum(increases) / len(increases) if increases else 0.0,
    )
