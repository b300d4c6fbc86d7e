"""Prediction-error re-encoding strength and interval."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from research.algorithms.reencoding import (
    prediction_error,
    reencoding_interval,
    reencoding_strength,
)
from zenbrain.errors import EmbeddingMismatchError


def test_golden() -> None:
    assert prediction_error([1.0, 0.0], [1.0, 0.0]) == 0.0
    assert prediction_error([1.0, 0.0], [0.0, 1.0]) == 1.0
    assert prediction_error([1.0, 0.0], [-1.0, 0.0]) == 1.0
    assert prediction_error([0.0, 0.0], [1.0, 0.0]) == 1.0
    assert reencoding_strength(0.5) == 0.5
    assert reencoding_strength(1.0) == pytest.approx(1 / (1 + math.exp(-3)))
    assert reencoding_interval(10.0, 0.0) == pytest.approx(13.0)
    assert reencoding_interval(10.0, 1.0) == pytest.approx(7.0)
    assert reencoding_interval(0.0, 0.5) == 0.1


def test_dimension_mismatch() -> None:
    with pytest.raises(EmbeddingMismatchError):
        prediction_error([1.0, 0.0], [1.0, 0.0, 0.0])


@given(st.floats(0, 1), st.floats(0, 1))
def test_more_surprise_means_shorter_interval(e1: float, e2: float) -> None:
    low, high = sorted((e1, e2))
    assert reencoding_strength(low) <= reencoding_strength(high)
    short = reencoding_interval(10.0, reencoding_strength(high))
    long = reencoding_interval(10.0, reencoding_strength(low))
    assert 7.0 - 1e-9 <= short <= long <= 13.0 + 1e-9
