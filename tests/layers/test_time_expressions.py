"""Time named in a question, resolved against a fixed "now" (Friday, 4 December 2026)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from zenbrain.layers._time_expressions import time_range_in

NOW = datetime(2026, 12, 4, 15, 30, tzinfo=UTC)  # a Friday


def _day(year: int, month: int, day: int) -> tuple[datetime, datetime]:
    start = datetime(year, month, day, tzinfo=UTC)
    return start, start + timedelta(days=1)


@pytest.mark.parametrize(
    ("question", "span"),
    [
        ("what did I say last Tuesday", _day(2026, 12, 1)),
        ("was habe ich letzten Montag gesagt", _day(2026, 11, 30)),
        ("and on Friday?", _day(2026, 11, 27)),  # "on Friday" on a Friday: a week ago
        ("what happened yesterday", _day(2026, 12, 3)),
        ("was war gestern", _day(2026, 12, 3)),
        ("vor drei Tagen", _day(2026, 12, 1)),
        ("three days ago", _day(2026, 12, 1)),
        ("what did we talk about in March",
         (datetime(2026, 3, 1, tzinfo=UTC), datetime(2026, 4, 1, tzinfo=UTC))),
        ("was war im März",
         (datetime(2026, 3, 1, tzinfo=UTC), datetime(2026, 4, 1, tzinfo=UTC))),
        ("in December", (datetime(2026, 12, 1, tzinfo=UTC), datetime(2027, 1, 1, tzinfo=UTC))),
        ("in May 2025", (datetime(2025, 5, 1, tzinfo=UTC), datetime(2025, 6, 1, tzinfo=UTC))),
        ("in 2024", (datetime(2024, 1, 1, tzinfo=UTC), datetime(2025, 1, 1, tzinfo=UTC))),
        ("last week", (datetime(2026, 11, 23, tzinfo=UTC), datetime(2026, 11, 30, tzinfo=UTC))),
        ("two weeks ago",
         (datetime(2026, 11, 17, tzinfo=UTC), datetime(2026, 11, 24, tzinfo=UTC))),
        ("letzten Monat",
         (datetime(2026, 11, 1, tzinfo=UTC), datetime(2026, 12, 1, tzinfo=UTC))),
    ],
)  # fmt: skip
def test_time_in_the_question(question: str, span: tuple[datetime, datetime]) -> None:
    assert time_range_in(question, NOW) == span


def test_a_later_month_than_now_is_last_years() -> None:
    early = datetime(2026, 2, 10, tzinfo=UTC)
    assert time_range_in("in March", early) == (
        datetime(2025, 3, 1, tzinfo=UTC),
        datetime(2025, 4, 1, tzinfo=UTC),
    )


@pytest.mark.parametrize(
    "question", ["may I ask you something", "the second time we met", "where do I live", ""]
)
def test_no_time_named(question: str) -> None:
    assert time_range_in(question, NOW) is None


def test_the_span_is_in_the_clock_s_zone() -> None:
    berlin = timezone(timedelta(hours=1))
    start, end = time_range_in("yesterday", NOW.astimezone(berlin)) or (None, None)
    assert start == datetime(2026, 12, 3, tzinfo=berlin)
    assert end == datetime(2026, 12, 4, tzinfo=berlin)
