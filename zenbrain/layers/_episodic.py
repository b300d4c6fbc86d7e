"""Episodic memory: experiences, weighted by how much they moved the user.

A memory's emotional weight (0..1) is given by the caller or estimated from its text by the
lexicon of :mod:`zenbrain._algorithms.emotional` (English and German). Stored without a
layer, a memory weighing more than :data:`EPISODE_WEIGHT_THRESHOLD` is an episode (see
:mod:`zenbrain.layers._routing`). ``consolidate()`` turns each of the
:data:`CONSOLIDATION_BATCH` most recent episodes weighing more than
:data:`CONSOLIDATION_WEIGHT` that were not promoted yet into a semantic fact, once.
"""

from __future__ import annotations

from typing import Final

from zenbrain._algorithms.emotional import emotional_weight

__all__ = [
    "CONSOLIDATION_BATCH",
    "CONSOLIDATION_WEIGHT",
    "EPISODE_WEIGHT_THRESHOLD",
    "estimate_emotional_weight",
    "is_episode",
]

EPISODE_WEIGHT_THRESHOLD: Final = 0.5
CONSOLIDATION_WEIGHT: Final = 0.5
CONSOLIDATION_BATCH: Final = 100


def estimate_emotional_weight(text: str) -> float:
    """The emotional weight (0..1) of ``text`` when the caller gives none."""
    return emotional_weight(text)


def is_episode(emotional_weight: float) -> bool:
    """Whether a memory stored without a layer is an episode."""
    return emotional_weight > EPISODE_WEIGHT_THRESHOLD
