"""FSRS-shaped math: the README golden values, ranges and monotonicity."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from research.algorithms.fsrs_math import (
    MemoryState,
    difficulty_after_review,
    init_from_decay_class,
    init_from_sm2_interval,
    interval_days,
    last_review_from_next_review,
    retrievability,
    retrievability_at,
    review,
    stability_after_lapse,
    stability_after_recall,
)
from zenbrain.errors import InvalidInputError

NOW = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
stabilities = st.floats(min_value=0.5, max_value=365)
difficulties = st.floats(min_value=1, max_value=10)
unit = st.floats(min_value=0, max_value=1)


def test_readme_golden_values() -> None:
    assert retrievability(7, 7) == pytest.approx(math.exp(-1))
    assert round(retrievability(7, 7), 3) == 0.368
    assert round(stability_after_recall(7, 5, math.exp(-1)), 2) == 8.19


def test_interval_for_ninety_percent() -> None:
    assert interval_days(10) == pytest.approx(-10 * math.log(0.9))
    assert retrievability(interval_days(10), 10) == pytest.approx(0.9)


def test_lapse_keeps_a_tenth() -> None:
    assert stability_after_lapse(20, 5, 0.5) == pytest.approx(2.0)
    assert stability_after_lapse(2, 5, 0.5) == pytest.approx(0.5)  # floor


def test_difficulty_updates_and_clamps() -> None:
    assert difficulty_after_review(5, 4) == pytest.approx(4.85)
    assert difficulty_after_review(5, 2) == pytest.approx(5.15)
    assert difficulty_after_review(5, 1) == pytest.approx(5.2)
    assert difficulty_after_review(9.9, 1) == 10.0
    assert difficulty_after_review(1.0, 4) == 1.0


def test_review_moves_schedule_forward() -> None:
    state = MemoryState(7.0, 5.0, NOW, NOW + timedelta(days=interval_days(7.0)))
    later = NOW + timedelta(days=7)
    after = review(state, 3, later)
    assert after.last_review == later
    assert after.stability == pytest.approx(stability_after_recall(7, 5, math.exp(-1)))
    assert after.next_review == later + timedelta(days=interval_days(after.stability))
    assert retrievability_at(after, after.next_review) == pytest.approx(0.9)
    lapsed = review(state, 1, later)
    assert lapsed.stability == pytest.approx(0.7)
    assert lapsed.difficulty == pytest.approx(5.2)


def test_last_review_reconstruction() -> None:
    nxt = NOW + timedelta(days=interval_days(30))
    assert last_review_from_next_review(nxt, 30) == NOW


def test_initial_states() -> None:
    state = init_from_decay_class("normal_decay", NOW)
    assert (state.difficulty, state.stability) == (5.0, 7.0)
    assert init_from_decay_class("permanent", NOW, emotional_multiplier=5).stability == 180
    assert init_from_decay_class("fast_decay", NOW, emotional_multiplier=0.2).stability == 2
    assert init_from_sm2_interval(None, NOW).stability == 1.0
    assert init_from_sm2_interval(2, NOW).difficulty == 7.5
    assert init_from_sm2_interval(30, NOW).difficulty == 3.5
    sm2 = init_from_sm2_interval(45, NOW)
    assert sm2.difficulty == 2.0
    assert (sm2.next_review - NOW).total_seconds() / 86400 == pytest.approx(45)


@pytest.mark.parametrize(
    "call",
    [
        lambda: retrievability(-1, 5),
        lambda: retrievability(1, 0),
        lambda: stability_after_recall(5, 11, 0.5),
        lambda: stability_after_recall(5, 5, 1.5),
        lambda: difficulty_after_review(5, 5),
        lambda: difficulty_after_review(5, True),
        lambda: interval_days(5, 1.0),
        lambda: init_from_decay_class("eternal", NOW),  # type: ignore[arg-type]
        lambda: init_from_sm2_interval(0, NOW),
    ],
)
def test_bad_input_raises(call: object) -> None:
    with pytest.raises(InvalidInputError):
        call()  # type: ignore[operator]


@given(st.floats(min_value=0, max_value=1000), st.floats(min_value=0, max_value=1000), stabilities)
def test_retrievability_decreases_with_time(t1: float, t2: float, s: float) -> None:
    r1, r2 = retrievability(min(t1, t2), s), retrievability(max(t1, t2), s)
    assert 0 <= r2 <= r1 <= 1


@given(stabilities, difficulties, unit)
def test_recall_never_lowers_and_lapse_never_raises_stability(s: float, d: float, r: float) -> None:
    assert stability_after_recall(s, d, r) >= s
    assert stability_after_lapse(s, d, r) <= max(s, 0.5)


@given(stabilities, difficulties, unit, unit)
def test_lower_retrievability_gives_bigger_gain(s: float, d: float, r1: float, r2: float) -> None:
    low, high = min(r1, r2), max(r1, r2)
    assert stability_after_recall(s, d, low) >= stability_after_recall(s, d, high) - 1e-9


@given(difficulties, st.integers(min_value=1, max_value=4))
def test_difficulty_stays_in_range(d: float, grade: int) -> None:
    assert 1 <= difficulty_after_review(d, grade) <= 10
