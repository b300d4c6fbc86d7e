"""The fusion variants of the tuning run: the lexical and the cosine scores of the same
candidates combined as zenbrain does (convex, on 0..1 scores) or as others do (reciprocal
rank, distribution-based, min-max)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from benchmarks.retrieval.tuning.lexical import best_first
from zenbrain import _ranking as ranking

__all__ = ["FusionVariant"]


def _rrf(
    lexical: Mapping[int, float], cosines: Mapping[int, float], k: int = 60
) -> dict[int, float]:
    fused: dict[int, float] = {}
    for scores in (lexical, cosines):
        for rank, doc in enumerate(best_first(scores, len(scores)), start=1):
            fused[doc] = fused.get(doc, 0.0) + 1.0 / (k + rank)
    return fused


def _dbsf(lexical: Mapping[int, float], cosines: Mapping[int, float]) -> dict[int, float]:
    """Distribution-based score fusion: each list scaled by its mean +- 3 sigma."""
    fused: dict[int, float] = {}
    for scores in (lexical, cosines):
        if not scores:
            continue
        values = np.array(list(scores.values()))
        low, high = values.mean() - 3 * values.std(), values.mean() + 3 * values.std()
        span = high - low if high > low else 1.0
        for doc, value in scores.items():
            fused[doc] = fused.get(doc, 0.0) + (value - low) / span
    return fused


def _minmax(
    lexical: Mapping[int, float], cosines: Mapping[int, float], w: float
) -> dict[int, float]:
    """Relative score fusion: each list min-max scaled, then convex."""
    fused: dict[int, float] = {}
    for scores, weight in ((lexical, 1 - w), (cosines, w)):
        if not scores:
            continue
        low, high = min(scores.values()), max(scores.values())
        span = high - low if high > low else 1.0
        for doc, value in scores.items():
            fused[doc] = fused.get(doc, 0.0) + weight * (value - low) / span
    return fused


@dataclass(frozen=True)
class FusionVariant:
    name: str
    kind: str  # convex | rrf | dbsf | minmax
    weight: float = ranking.SEMANTIC_WEIGHT
    neighbours: float = ranking.NEIGHBOUR_WEIGHT  # on the fused score (0..1 kinds only)
    conversation: float = ranking.CONVERSATION_WEIGHT  # likewise
    known_only: bool = True  # the lexical score's attainable mass: see LexicalVariant

    def fuse(
        self,
        lexical: Mapping[int, float],
        cosines: Mapping[int, float],
        floor: float,
        ceiling: float = 1.0,
    ) -> dict[int, float]:
        if self.kind == "rrf":
            return _rrf(lexical, cosines)
        if self.kind == "dbsf":
            return _dbsf(lexical, cosines)
        if self.kind == "minmax":
            return _minmax(lexical, cosines, self.weight)
        # "calibrated": the cosine of a question and its answer (CALIBRATION_PAIRS) maps to 1,
        # instead of a cosine of 1.
        top = ceiling
        fused = {}
        for doc in {*lexical, *cosines}:
            cosine = cosines.get(doc, -1.0)
            if self.kind == "calibrated":
                semantic = min(1.0, max(0.0, (cosine - floor) / (top - floor)))
            else:
                semantic = ranking.semantic_score(cosine, floor)
            fused[doc] = ranking.fuse(lexical.get(doc, 0.0), semantic, self.weight)
        return fused
