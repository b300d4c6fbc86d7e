"""Negation detection (EN/DE), Jaccard similarity and statement comparison."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zenbrain._algorithms.similarity import (
    compare_statements,
    detect_negation,
    string_similarity,
    strip_negation,
)
from zenbrain.errors import InvalidInputError


@pytest.mark.parametrize(
    ("text", "target", "confidence"),
    [
        ("I do not like coffee", "coffee", 0.85),
        ("I don't like coffee", "coffee", 0.85),
        ("I don’t like coffee", None, 0.6),
        ("Ich trinke keinen Kaffee", "Kaffee", 0.85),
        ("Ich trinke nicht gern Tee", "Kaffee", 0.6),
        ("It is not untrue that I never lie", None, 0.3),
        ("Das ist weder gut noch nicht schlecht", None, 0.3),
    ],
)
def test_negation_detection(text: str, target: str | None, confidence: float) -> None:
    result = detect_negation(text, target)
    assert result.negated
    assert result.confidence == confidence


def test_no_negation() -> None:
    assert detect_negation("I like coffee").negated is False
    assert detect_negation("Knowledge is nothing without practice").cues == ("nothing", "without")


def test_strip_negation() -> None:
    assert strip_negation("I can't and won't NOT go") == "I can and will go"
    assert strip_negation("Ich mag keinen Kaffee") == "Ich mag Kaffee"


def test_jaccard_golden_and_folding() -> None:
    assert string_similarity("the red apple pie", "the green apple pie") == pytest.approx(3 / 5)
    assert string_similarity("Kieler Förde", "kieler foerde") == 1.0
    assert string_similarity("a b", "a b") == 1.0
    assert string_similarity("a b", "c d") == 0.0


def test_compare_statements_flags_contradiction() -> None:
    verdict = compare_statements("Anna likes green tea", "Anna does not like green tea")
    assert verdict.likely_contradiction
    same = compare_statements("Anna likes green tea", "Anna likes green tea")
    assert not same.likely_contradiction and same.similarity == 1.0
    assert not compare_statements("Anna likes tea", "Bob never flies").likely_contradiction


def test_non_text_is_rejected() -> None:
    with pytest.raises(InvalidInputError):
        detect_negation(None)  # type: ignore[arg-type]


@given(st.text(max_size=80), st.text(max_size=80))
def test_similarity_is_symmetric_and_bounded(a: str, b: str) -> None:
    value = string_similarity(a, b)
    assert 0.0 <= value <= 1.0
    assert value == string_similarity(b, a)


@given(st.text(alphabet="abcdefg nto'", max_size=60))
def test_stripped_text_has_no_negation(text: str) -> None:
    assert not detect_negation(strip_negation(text)).negated
