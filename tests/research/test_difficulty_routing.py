"""Query difficulty score and routing."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from research.algorithms.difficulty_routing import (
    NEGATION_CUES,
    route_for_score,
    score_query_difficulty,
)
from zenbrain._algorithms import similarity
from zenbrain.errors import InvalidInputError


def test_routes_at_thresholds() -> None:
    assert route_for_score(0.45) == "fast_cache"
    assert route_for_score(0.5) == "hybrid"
    assert route_for_score(0.55) == "full_scan"


def test_simple_lookup_is_fast() -> None:
    result = score_query_difficulty("tea preferences")
    assert result.route == "fast_cache"
    assert result.score == pytest.approx(2 / 50)


def test_complex_queries_need_full_scan() -> None:
    english = score_query_difficulty(
        "Compare how many projects Anna finished before March and which ones did not ship"
    )
    assert english.route == "full_scan"
    assert english.features["comparison"] == 0.2
    assert english.features["counting"] == 0.2
    assert english.features["negation"] == 0.1
    german = score_query_difficulty(
        "Wie viele Projekte waren besser als geplant, und welche davon nicht?"
    )
    assert german.route == "full_scan"
    assert german.features["comparison"] == 0.2


def test_entities_runs_and_codes() -> None:
    result = score_query_difficulty("notes on the Kieler Förde and ISO9001 audit")
    assert result.features["entities"] == pytest.approx(0.1)


def test_non_text() -> None:
    with pytest.raises(InvalidInputError):
        score_query_difficulty(3)  # type: ignore[arg-type]


@given(st.text(max_size=300))
def test_score_in_range_and_consistent(query: str) -> None:
    result = score_query_difficulty(query)
    assert 0.0 <= result.score <= 1.0
    assert result.route == route_for_score(result.score)


@given(st.text(alphabet="abcdefghij ", max_size=100))
def test_adding_a_comparison_never_lowers_difficulty(query: str) -> None:
    base = score_query_difficulty(query).score
    assert score_query_difficulty(query + " versus").score >= base


def test_the_negation_cues_are_zenbrains() -> None:
    """research/ keeps its own copy (zenbrain's is internal); it must not drift."""
    assert NEGATION_CUES == similarity.NEGATION_CUES
