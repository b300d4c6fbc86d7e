"""Context-dependent retrieval similarity and boost."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from research.algorithms.context_retrieval import (
    RetrievalContext,
    apply_context_boost,
    context_boost,
    context_similarity,
    day_similarity,
    task_similarity,
    time_of_day,
    time_of_day_similarity,
)
from zenbrain.errors import InvalidInputError

MONDAY_9 = datetime(2026, 3, 2, 9, 0)  # a Monday morning


def test_buckets() -> None:
    assert time_of_day(MONDAY_9) == "morning"
    assert time_of_day(MONDAY_9.replace(hour=12)) == "afternoon"
    assert time_of_day(MONDAY_9.replace(hour=20)) == "evening"
    assert time_of_day(MONDAY_9.replace(hour=4)) == "night"


def test_time_similarity_is_circular() -> None:
    assert time_of_day_similarity(MONDAY_9, MONDAY_9.replace(hour=11)) == 1.0
    assert time_of_day_similarity(MONDAY_9, MONDAY_9.replace(hour=14)) == 0.5
    assert time_of_day_similarity(MONDAY_9, MONDAY_9.replace(hour=18)) == 0.2
    assert time_of_day_similarity(MONDAY_9, MONDAY_9.replace(hour=23)) == 0.5


def test_day_and_task_similarity() -> None:
    assert day_similarity(MONDAY_9, MONDAY_9 + timedelta(days=7)) == 1.0
    assert day_similarity(MONDAY_9, MONDAY_9 + timedelta(days=2)) == 0.6
    assert day_similarity(MONDAY_9 + timedelta(days=5), MONDAY_9 + timedelta(days=6)) == 0.6
    assert day_similarity(MONDAY_9, MONDAY_9 + timedelta(days=5)) == 0.2
    assert task_similarity("coding", "Coding ") == 1.0
    assert task_similarity("coding", "debugging") == 0.5
    assert task_similarity("coding", "meeting") == 0.1
    assert task_similarity(None, "coding") == 0.5


def test_golden_similarity_and_boost() -> None:
    encoded = RetrievalContext(MONDAY_9, "coding")
    query = RetrievalContext(MONDAY_9 + timedelta(days=1, hours=5), "debugging")
    expected = 0.4 * 0.5 + 0.2 * 0.6 + 0.4 * 0.5
    assert context_similarity(encoded, query) == pytest.approx(expected)
    assert apply_context_boost(0.5, encoded, query) == pytest.approx(0.5 * (1 + 0.3 * expected))
    assert context_boost(1.0) == pytest.approx(1.3)
    with pytest.raises(InvalidInputError):
        context_boost(1.5)


@given(st.datetimes(), st.datetimes(), st.sampled_from(["coding", "writing", None, "x"]))
def test_similarity_range_and_symmetry(a: datetime, b: datetime, task: str | None) -> None:
    left, right = RetrievalContext(a, task), RetrievalContext(b, "coding")
    sim = context_similarity(left, right)
    assert 0.0 < sim <= 1.0
    assert sim == pytest.approx(context_similarity(right, left))
    assert context_similarity(left, left) >= sim
