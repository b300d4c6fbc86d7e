"""Ebbinghaus retention, candidates, intervals and the personal decay profile."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from research.algorithms.ebbinghaus import (
    DecayProfile,
    MemoryTrace,
    ReviewEvent,
    batch_retention,
    learn_decay_profile,
    optimal_interval,
    personalized_retention,
    repetition_candidates,
    retention,
    retention_status,
    update_stability,
)
from zenbrain.errors import InvalidInputError

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def test_retention_golden_and_emotional_cap() -> None:
    assert retention(10, 10) == pytest.approx(math.exp(-1))
    assert retention(10, 10, emotional_multiplier=2) == pytest.approx(math.exp(-0.5))
    assert retention(30, 10, emotional_multiplier=9) == pytest.approx(math.exp(-1))  # cap 3
    assert retention(365, 1000) == pytest.approx(math.exp(-1))  # S capped at 365


def test_status_thresholds() -> None:
    assert retention_status(0.31) == "retain"
    assert retention_status(0.3) == "review"
    assert retention_status(0.11) == "review"
    assert retention_status(0.1) == "archive"


def test_update_stability_uses_fsrs_and_clamps() -> None:
    assert update_stability(7, math.exp(-1), recalled=True) == pytest.approx(8.19, abs=0.01)
    assert update_stability(20, 0.5, recalled=False) == pytest.approx(2.0)
    assert update_stability(365, 0.01, recalled=True) == 365


def test_optimal_interval() -> None:
    assert optimal_interval(10) == pytest.approx(-10 * math.log(0.85))
    assert optimal_interval(0.1, 0.99) == 0.1


def test_repetition_candidates_are_sorted_by_urgency() -> None:
    traces = [
        MemoryTrace("fresh", 10, NOW - timedelta(days=1)),
        MemoryTrace("due", 10, NOW - timedelta(days=11)),  # R = 0.333 <= 0.36
        MemoryTrace("gone", 10, NOW - timedelta(days=40)),
        MemoryTrace("future", 10, NOW + timedelta(days=3)),
    ]
    found = repetition_candidates(traces, NOW)
    assert [c.memory_id for c in found] == ["gone", "due"]
    assert found[1].retention == pytest.approx(math.exp(-1.1))
    assert found[1].urgency == pytest.approx(1 - math.exp(-1.1))
    assert batch_retention(traces, NOW)[3] == 1.0
    assert batch_retention([], NOW).shape == (0,)


def test_decay_profile_formula() -> None:
    assert learn_decay_profile([ReviewEvent(1, True)]) == DecayProfile(sample_count=1)
    poor = learn_decay_profile([ReviewEvent(3, False), ReviewEvent(3, False)])
    assert poor.multiplier == pytest.approx(0.6)
    good = learn_decay_profile([ReviewEvent(14, True)] * 4)
    assert good.multiplier == pytest.approx(1.8 * (0.8 + 0.2 * 2))
    assert good.recall_rate == 1.0
    slow_good = learn_decay_profile([ReviewEvent(0, True), ReviewEvent(0, True)])
    assert slow_good.multiplier == pytest.approx(1.8 * 0.8)
    assert personalized_retention(18, 10, good) == pytest.approx(math.exp(-18 / 21.6))
    with pytest.raises(InvalidInputError):
        learn_decay_profile([ReviewEvent(-1, True), ReviewEvent(1, True)])


@given(
    st.lists(
        st.tuples(st.floats(min_value=0, max_value=100), st.booleans()), min_size=2, max_size=30
    )
)
def test_profile_multiplier_stays_in_range(events: list[tuple[float, bool]]) -> None:
    profile = learn_decay_profile(ReviewEvent(d, r) for d, r in events)
    assert 0.5 <= profile.multiplier <= 3.0


@given(
    st.floats(min_value=0, max_value=500),
    st.floats(min_value=0.1, max_value=365),
    st.floats(min_value=1, max_value=3),
)
def test_emotion_never_lowers_retention(t: float, s: float, emotion: float) -> None:
    assert retention(t, s, emotion) >= retention(t, s) - 1e-12
