"""Temporal cue detection (EN/DE), route confidence and RRF fusion."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zenbrain._algorithms.temporal_routing import (
    detect_temporal_routes,
    fuse_routes,
    relative_direction,
    run_temporal_multi_route,
)
from zenbrain.errors import InvalidInputError


@pytest.mark.parametrize(
    ("query", "route", "confidence"),
    [
        ("When did I move to Kiel?", "absolute", 0.95),
        ("Wann bin ich nach Kiel gezogen?", "absolute", 0.95),
        ("What happened two weeks ago?", "absolute", 0.5),
        ("Was war vor drei Wochen?", "absolute", 0.5),
        ("What did I do before the trip?", "relative", 0.9),
        ("Was habe ich nachdem Urlaub gemacht?", "relative", 0.9),
        ("What was my first job?", "relative", 0.85),
        ("Was war mein letzter Job?", "relative", 0.85),
        ("How long did the project take?", "duration", 0.95),
        ("Wie lange hat das Projekt gedauert?", "duration", 0.95),
    ],
)
def test_cues(query: str, route: str, confidence: float) -> None:
    analysis = detect_temporal_routes(query)
    assert analysis.routes[route] == pytest.approx(confidence)  # type: ignore[index]


def test_combined_confidence_and_non_temporal() -> None:
    analysis = detect_temporal_routes("What did I do after lunch and before the call?")
    assert analysis.routes["relative"] == pytest.approx(1 - 0.1 * 0.1)
    assert not detect_temporal_routes("Vor dem Haus steht ein Baum").is_temporal
    assert not detect_temporal_routes("favourite tea").is_temporal


def test_fusion_golden() -> None:
    fused = fuse_routes(
        {"absolute": ["a", "b"], "relative": ["b", "c"]},
        {"absolute": 0.9, "relative": 0.5},
    )
    scores = {item.item_id: item.score for item in fused}
    assert scores["a"] == pytest.approx(0.9 / 61)
    assert scores["b"] == pytest.approx((0.9 / 62 + 0.5 / 61) * 1.2)
    assert scores["c"] == pytest.approx(0.5 / 62)
    assert [item.item_id for item in fused] == ["b", "a", "c"]
    with pytest.raises(InvalidInputError):
        fuse_routes({"absolute": ["a"]}, {})


def test_run_multi_route_calls_detected_routes_only() -> None:
    called: list[str] = []

    def retriever(name: str, ids: list[str]):  # type: ignore[no-untyped-def]
        def run(query: str) -> list[str]:
            called.append(name)
            return ids

        return run

    retrievers = {
        "absolute": retriever("absolute", ["x", "y"]),
        "duration": retriever("duration", ["z"]),
    }
    fused = run_temporal_multi_route("When did we meet?", retrievers)
    assert called == ["absolute"]
    assert [item.item_id for item in fused] == ["x", "y"]
    assert run_temporal_multi_route("tea", retrievers) == []


@given(st.text(max_size=200))
def test_confidences_in_range(query: str) -> None:
    for confidence in detect_temporal_routes(query).routes.values():
        assert 0.0 < confidence <= 1.0


def test_relative_direction() -> None:
    assert relative_direction("What did I do after the concert?") == ("after", "the concert?")
    assert relative_direction("Was war vorher los") == ("before", "los")
    assert relative_direction("Wann war das erste Treffen") == ("earliest", "treffen")
    assert relative_direction("When was the concert?") is None
