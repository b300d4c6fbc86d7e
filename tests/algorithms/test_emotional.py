"""Emotional tagging: golden values, the core's routing examples, and properties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zenbrain._algorithms.emotional import (
    AROUSAL_WORDS,
    NEGATIVE_WORDS,
    POSITIVE_WORDS,
    SIGNIFICANCE_WORDS,
    contextual_valence,
    decay_multiplier,
    emotional_weight,
    is_emotionally_significant,
    tag_emotion,
)
from zenbrain.errors import InvalidInputError
from zenbrain.text import fold, words


def test_lexicons_are_at_least_as_large_as_the_originals() -> None:
    assert len(POSITIVE_WORDS) >= 49
    assert len(NEGATIVE_WORDS) >= 50
    assert len(AROUSAL_WORDS) >= 26
    assert len(SIGNIFICANCE_WORDS) >= 45


@pytest.mark.parametrize(
    "lexicon", [POSITIVE_WORDS, NEGATIVE_WORDS, AROUSAL_WORDS, SIGNIFICANCE_WORDS]
)
def test_lexicon_entries_are_folded_and_in_range(lexicon: dict[str, float]) -> None:
    for word, intensity in lexicon.items():
        assert fold(word) == word, word
        assert 0.0 < intensity <= 1.0, word


def test_neutral_text_scores_the_base_arousal_share() -> None:
    weight = emotional_weight("The meeting is on Tuesday at the office")
    assert weight == pytest.approx(0.08)
    assert weight < 0.1


@pytest.mark.parametrize(
    "text",
    [
        "I am absolutely thrilled — I got the promotion!",
        "Ich bin so glücklich, ich habe die Prüfung bestanden!",
        "Ich bin so gluecklich, ich habe die Pruefung bestanden!",
        "My father died last night, I am devastated.",
    ],
)
def test_emotional_events_weigh_more_than_half(text: str) -> None:
    assert emotional_weight(text) > 0.5


def test_golden_tag_for_promotion_sentence() -> None:
    tag = tag_emotion("I am absolutely thrilled — I got the promotion!")
    # words (len >= 2): am absolutely thrilled got the promotion -> 6, one positive hit 0.9
    assert tag.sentiment == pytest.approx(0.9 * (0.5 + 1 / 6))
    # arousal hits: absolutely 0.4, thrilled 0.9, one "!" 0.15
    assert tag.arousal == pytest.approx(0.2 + (0.4 + 0.9 + 0.15) / 3)
    assert tag.significance == pytest.approx(0.8)
    assert tag.valence == pytest.approx((tag.sentiment + 1) / 2)
    assert tag.consolidation_weight == pytest.approx(0.4 * tag.arousal + 0.6 * 0.8)


def test_umlaut_spelling_variants_tag_identically() -> None:
    assert tag_emotion("Ich bin glücklich") == tag_emotion("Ich bin gluecklich")
    assert tag_emotion("Prüfung bestanden") == tag_emotion("Pruefung bestanden")


def test_punctuation_and_shouting_raise_arousal_with_caps() -> None:
    calm = tag_emotion("the server is down")
    assert calm.arousal == pytest.approx(0.2)
    one = tag_emotion("the server is down!")
    assert one.arousal == pytest.approx(0.2 + 0.15)
    many = tag_emotion("the server is down!!!!!!!!")
    assert many.arousal == pytest.approx(0.2 + 0.5)  # capped at 0.5
    question = tag_emotion("is the server down?")
    assert question.arousal == pytest.approx(0.25)
    shout = tag_emotion("the SERVER is DOWN")
    assert shout.arousal == pytest.approx(0.2 + 0.2)


def test_short_acronyms_are_not_shouting() -> None:
    assert tag_emotion("the AI in the EU").arousal == pytest.approx(0.2)


def test_affect_without_arousal_words_adds_a_little_arousal() -> None:
    assert tag_emotion("a sad day").arousal == pytest.approx(0.3)


def test_strong_affect_raises_significance() -> None:
    tag = tag_emotion("heartbroken")
    assert tag.significance == pytest.approx(0.6 * 0.95)


def test_negative_text_has_negative_sentiment() -> None:
    assert tag_emotion("a terrible, awful day").sentiment < 0
    assert tag_emotion("ein schrecklicher Tag, ich bin traurig").sentiment < 0


def test_decay_multiplier_and_significance_threshold() -> None:
    assert decay_multiplier("The meeting is on Tuesday") == pytest.approx(1.4)
    assert decay_multiplier("My father died last night, I am devastated.") == pytest.approx(3.0)
    assert is_emotionally_significant("We got married today!")
    assert not is_emotionally_significant("The meeting is on Tuesday")
    with pytest.raises(InvalidInputError):
        is_emotionally_significant("x", threshold=1.5)


def test_contextual_valence_pulls_down_under_pressure() -> None:
    text = "The deadline is urgent and the problem is difficult"
    base = tag_emotion(text).valence
    assert contextual_valence(text, "work") == pytest.approx(base - 0.1)
    assert contextual_valence(text, "learning") == pytest.approx(base - 0.05)
    assert contextual_valence("a quiet walk", "personal") == pytest.approx(0.5)
    with pytest.raises(InvalidInputError):
        contextual_valence(text, "  ")


def test_non_string_input_is_rejected() -> None:
    with pytest.raises(InvalidInputError):
        tag_emotion(42)  # type: ignore[arg-type]


def test_lexicon_words_meet_folded_text() -> None:
    assert words("Kieler Förde, café — GRÜẞE!") == ["kieler", "foerde", "cafe", "gruesse"]
    assert tag_emotion("GLÜCKLICH").sentiment == tag_emotion("gluecklich").sentiment > 0


@given(st.text(max_size=300))
def test_tag_ranges_hold_for_any_text(text: str) -> None:
    tag = tag_emotion(text)
    assert -1.0 <= tag.sentiment <= 1.0
    assert 0.2 <= tag.arousal <= 1.0
    assert 0.0 <= tag.valence <= 1.0
    assert 0.0 <= tag.significance <= 1.0
    assert 0.08 - 1e-9 <= emotional_weight(text) <= 1.0
    assert 1.0 <= decay_multiplier(text) <= 3.0


@given(st.text(alphabet="abcdefghij klm", max_size=80), st.integers(min_value=1, max_value=10))
def test_exclamations_never_lower_arousal_of_neutral_text(text: str, count: int) -> None:
    assert tag_emotion(text + "!" * count).arousal >= tag_emotion(text).arousal


def test_a_weight_carries_no_float_noise() -> None:
    # 0.4 * 0.2 came back as 0.08000000000000002 through the API, the CLI and exports.
    from zenbrain import MemoryCoordinator

    assert tag_emotion("The meeting is at 3pm.").consolidation_weight == 0.08
    with MemoryCoordinator(":memory:") as memory:
        stored = memory.get(memory.store("The meeting is at 3pm."))
        assert stored is not None and repr(stored.emotional_weight) == "0.08"
