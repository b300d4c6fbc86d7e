"""Prediction-error re-encoding: how much a recall should reshape a memory's schedule.

Source: reconsolidation driven by prediction error (Sinclair & Barense 2019, "Prediction
error and memory reactivation"; Exton-McGuinness, Lee & Reichelt 2015) and the ventromedial
prefrontal cortex's role in schema-consistent memory, as in the TypeScript original's
FSRS-vmPFC extension (inventory §4.2 "fsrs-vmPFC"):

- prediction error ``PE = clamp(1 - cos(previous embedding, current embedding), 0, 1)``;
- re-encoding strength ``sigmoid(6 (PE - 0.5))``;
- interval ``max(0.1, base · clamp(1 + (0.5 - strength) · 0.6, 0.3, 2.0))``: a surprising
  recall (strong re-encoding) shortens the next interval, a confirming one lengthens it.
  With the sigmoid's range the factor stays within about 0.7..1.3.

A zero vector has no direction; its prediction error is 1 (nothing was predicted).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from research.algorithms.checks import check_finite, check_unit
from zenbrain.errors import EmbeddingMismatchError, InvalidInputError

__all__ = ["prediction_error", "reencoding_interval", "reencoding_strength"]


def prediction_error(previous: Sequence[float], current: Sequence[float]) -> float:
    """``clamp(1 - cosine similarity, 0, 1)`` of two embeddings of the same dimension."""
    a = np.asarray(previous, dtype=np.float64)
    b = np.asarray(current, dtype=np.float64)
    if a.ndim != 1 or b.ndim != 1 or a.size == 0:
        raise InvalidInputError("embeddings must be non-empty 1-D vectors")
    if a.size != b.size:
        raise EmbeddingMismatchError(f"embedding dimensions differ: {a.size} vs {b.size}")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise InvalidInputError("embeddings must contain finite numbers only")
    norms = float(np.linalg.norm(a) * np.linalg.norm(b))
    if norms == 0.0:
        return 1.0
    return max(0.0, min(1.0, 1.0 - float(a @ b) / norms))


def reencoding_strength(error: float) -> float:
    """``sigmoid(6 (PE - 0.5))``: 0.05 for no surprise, 0.95 for full surprise."""
    return 1.0 / (1.0 + math.exp(-6.0 * (check_unit(error, "prediction_error") - 0.5)))


def reencoding_interval(base_interval: float, strength: float) -> float:
    """Next interval after a recall with re-encoding ``strength`` (0..1)."""
    base = check_finite(base_interval, "base_interval")
    if base < 0:
        raise InvalidInputError(f"base_interval must be >= 0, got {base_interval}")
    factor = max(0.3, min(2.0, 1.0 + (0.5 - check_unit(strength, "strength")) * 0.6))
    return max(0.1, base * factor)
