"""Retention-curve and schedule-timeline data."""

from __future__ import annotations

import math

import pytest

from research.algorithms.fsrs_math import interval_days, stability_after_recall
from research.algorithms.visualization import ReviewMark, retention_curve, schedule_timeline
from zenbrain.errors import InvalidInputError


def test_curve_without_reviews() -> None:
    curve = retention_curve(5.0, days=10)
    assert len(curve) == 11
    assert curve[0].retention == 1.0
    assert curve[5].retention == pytest.approx(math.exp(-1))
    assert [p.retention for p in curve] == sorted((p.retention for p in curve), reverse=True)


def test_review_resets_and_stretches() -> None:
    curve = retention_curve(4.0, days=12, reviews=[ReviewMark(4, 3)])
    assert curve[4].retention == 1.0
    assert curve[4].stability == pytest.approx(8.0)
    assert curve[12].retention == pytest.approx(math.exp(-1))
    lapse = retention_curve(4.0, days=6, reviews=[ReviewMark(4, 1)])
    assert lapse[6].retention == pytest.approx(math.exp(-1))


def test_emotion_and_resolution() -> None:
    curve = retention_curve(2.0, days=2, emotional_multiplier=2, points_per_day=4)
    assert len(curve) == 9
    assert curve[-1].retention == pytest.approx(math.exp(-0.5))


def test_schedule_timeline() -> None:
    timeline = schedule_timeline(5.0, [3, 1, 4], initial_stability=10.0)
    first = timeline[0]
    assert first.day == pytest.approx(interval_days(10.0))
    assert first.recalled
    assert first.stability_after == pytest.approx(stability_after_recall(10.0, 5.0, 0.9))
    assert timeline[1].stability_after == pytest.approx(first.stability_after * 0.1)
    assert not timeline[1].recalled and timeline[1].difficulty_after == pytest.approx(5.2)
    assert timeline[2].day > timeline[1].day
    assert [r.number for r in timeline] == [1, 2, 3]


def test_bad_grades() -> None:
    with pytest.raises(InvalidInputError):
        schedule_timeline(grades=[5])
    with pytest.raises(InvalidInputError):
        retention_curve(3.0, reviews=[ReviewMark(2, 0)])
    with pytest.raises(InvalidInputError):
        retention_curve(3.0, days=-1)
