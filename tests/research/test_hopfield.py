"""Modern Hopfield retrieval and energy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from research.algorithms.hopfield import hopfield_energy, hopfield_retrieve
from zenbrain.errors import EmbeddingMismatchError, InvalidInputError

PATTERNS = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def test_one_step_golden() -> None:
    result = hopfield_retrieve([1.0, 0.0, 0.0], PATTERNS)
    weights = np.exp([1.0, 0.0]) / np.exp([1.0, 0.0]).sum()
    assert result.attention == pytest.approx(weights)
    assert result.state == pytest.approx(weights @ PATTERNS)
    assert result.iterations == 1


def test_high_beta_recovers_the_pattern_from_noise() -> None:
    rng = np.random.default_rng(7)
    patterns = np.sign(rng.standard_normal((5, 64)))
    noisy = patterns[2] + 0.8 * rng.standard_normal(64)
    result = hopfield_retrieve(noisy, patterns, beta=1.0, max_iterations=5)
    assert int(np.argmax(result.attention)) == 2
    assert result.state == pytest.approx(patterns[2], abs=1e-6)
    assert result.converged


def test_energy_golden_and_stability() -> None:
    xi = np.array([0.5, 0.5, 0.0])
    expected = -np.log(np.exp(0.5) + np.exp(0.5)) + 0.25
    assert hopfield_energy(xi, PATTERNS) == pytest.approx(expected)
    big = hopfield_energy(np.array([100.0, 0.0, 0.0]), PATTERNS, beta=50.0)
    assert np.isfinite(big)


def test_shape_errors() -> None:
    with pytest.raises(EmbeddingMismatchError):
        hopfield_retrieve([1.0, 0.0], PATTERNS)
    with pytest.raises(InvalidInputError):
        hopfield_retrieve([1.0, 0.0, 0.0], np.zeros((0, 3)))
    with pytest.raises(InvalidInputError):
        hopfield_retrieve([1.0, 0.0, 0.0], PATTERNS, beta=0)


vectors = arrays(np.float64, (4,), elements=st.floats(-3, 3))


@settings(max_examples=60)
@given(vectors, arrays(np.float64, (3, 4), elements=st.floats(-3, 3)), st.floats(0.1, 8))
def test_update_never_raises_energy(xi: np.ndarray, patterns: np.ndarray, beta: float) -> None:
    before = hopfield_energy(xi, patterns, beta)
    after = hopfield_retrieve(xi, patterns, beta).energy
    assert after <= before + 1e-7
