"""Modern (continuous) Hopfield retrieval: pull a noisy query toward a stored pattern.

Source: H. Ramsauer et al. 2020, "Hopfield Networks is All You Need" — the update
``ξ' = Xᵀ softmax(β X ξ)`` over stored patterns X (one per row) converges in one step for
well-separated patterns, and the energy ``E(ξ) = -lse(β, Xξ) + ½ ξᵀξ`` (the constant terms
``β⁻¹ log N + ½ M²`` are left out; they do not change which state has lower energy) never
increases under the update. Defaults of the TypeScript original (inventory §4.2
"hopfield-stm"): β = 1, one iteration, tolerance 1e-4.

Difference from the original: the log-sum-exp is computed with the max-shift, so large β
or long vectors do not overflow; shapes are checked and a mismatch is an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from research.algorithms.checks import check_positive
from zenbrain.errors import EmbeddingMismatchError, InvalidInputError

__all__ = ["DEFAULT_BETA", "HopfieldResult", "hopfield_energy", "hopfield_retrieve"]

DEFAULT_BETA: Final = 1.0
_DEFAULT_TOLERANCE: Final = 1e-4

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class HopfieldResult:
    state: FloatArray
    attention: FloatArray
    iterations: int
    converged: bool
    energy: float


def _as_arrays(
    query: Sequence[float] | FloatArray, patterns: Sequence[Sequence[float]] | FloatArray
) -> tuple[FloatArray, FloatArray]:
    xi = np.asarray(query, dtype=np.float64)
    stored = np.asarray(patterns, dtype=np.float64)
    if xi.ndim != 1 or xi.size == 0:
        raise InvalidInputError("query must be a non-empty 1-D vector")
    if stored.ndim != 2 or stored.shape[0] == 0:
        raise InvalidInputError("patterns must be a non-empty 2-D array (one pattern per row)")
    if stored.shape[1] != xi.size:
        raise EmbeddingMismatchError(
            f"query has dimension {xi.size} but patterns have dimension {stored.shape[1]}"
        )
    if not (np.all(np.isfinite(xi)) and np.all(np.isfinite(stored))):
        raise InvalidInputError("query and patterns must contain finite numbers only")
    return xi, stored


def _softmax(logits: FloatArray) -> FloatArray:
    shifted = np.exp(logits - logits.max())
    result: FloatArray = shifted / shifted.sum()
    return result


def _energy(xi: FloatArray, stored: FloatArray, beta: float) -> float:
    logits = beta * (stored @ xi)
    peak = float(logits.max())
    lse = peak + float(np.log(np.exp(logits - peak).sum()))
    return -lse / beta + 0.5 * float(xi @ xi)


def hopfield_energy(
    state: Sequence[float] | FloatArray,
    patterns: Sequence[Sequence[float]] | FloatArray,
    beta: float = DEFAULT_BETA,
) -> float:
    """Energy ``-lse(β, Xξ)/β + ½‖ξ‖²`` of ``state`` (lower = closer to a stored pattern)."""
    xi, stored = _as_arrays(state, patterns)
    return _energy(xi, stored, check_positive(beta, "beta"))


def hopfield_retrieve(
    query: Sequence[float] | FloatArray,
    patterns: Sequence[Sequence[float]] | FloatArray,
    beta: float = DEFAULT_BETA,
    max_iterations: int = 1,
    tolerance: float = _DEFAULT_TOLERANCE,
) -> HopfieldResult:
    """Iterate ``ξ ← Xᵀ softmax(β X ξ)`` until it moves less than ``tolerance`` (L2)."""
    xi, stored = _as_arrays(query, patterns)
    beta = check_positive(beta, "beta")
    tolerance = check_positive(tolerance, "tolerance")
    if max_iterations < 1:
        raise InvalidInputError(f"max_iterations must be >= 1, got {max_iterations}")
    attention = _softmax(beta * (stored @ xi))
    iterations = 0
    converged = False
    while iterations < max_iterations:
        iterations += 1
        attention = _softmax(beta * (stored @ xi))
        updated = stored.T @ attention
        step = float(np.linalg.norm(updated - xi))
        xi = updated
        if step < tolerance:
            converged = True
            break
    return HopfieldResult(
        state=xi,
        attention=attention,
        iterations=iterations,
        converged=converged,
        energy=_energy(xi, stored, beta),
    )
