"""The cross-context layer's rules: entity names in English and German text, their keys,
and the similarity that links two names of different contexts."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from zenbrain.layers._cross_context import (
    LINK_THRESHOLD,
    entity_key,
    extract_entities,
    key_similarity,
    key_words,
    name_similarity,
)


def names(text: str) -> list[str]:
    return [entity.name for entity in extract_entities(text)]


def test_extracts_multi_word_names_and_particles() -> None:
    text = "Anna Schmidt met Ludwig van Beethoven fans from Bank of America in New York City."
    assert names(text) == [
        "Anna Schmidt",
        "Ludwig van Beethoven",
        "Bank of America",
        "New York City",
    ]


def test_sentence_opening_words_need_a_second_sighting() -> None:
    assert names("Yesterday the weather was fine.") == []
    assert names("Maybe we should go.") == []
    # "Berlin" opens the first sentence but also appears inside the second.
    assert names("Berlin is big. I moved to Berlin last year.") == ["Berlin"]


def test_titles_possessives_weekdays_are_trimmed() -> None:
    assert names("I met Dr. Anna Schmidt's team on Monday in March.") == ["Anna Schmidt"]


def test_german_nouns_after_articles_are_not_names() -> None:
    assert names("Der Hund schläft im Garten, und die Katze jagt eine Maus.") == []
    assert names("Gestern war ich mit Anna an der Kieler Förde.") == ["Anna", "Kieler Förde"]
    assert names("Der Hund von Herrn Müller bellt die ganze Nacht.") == ["Müller"]
    assert names("Die Zeitung berichtet über die Wahl.") == []


def test_keys_fold_case_and_umlauts() -> None:
    assert entity_key("Kieler Förde") == entity_key("KIELER FOERDE") == "kieler foerde"
    assert name_similarity("Project Apollo Relaunch Team", "Project Apollo Relaunch") == 0.75
    assert name_similarity("Anna", "Berlin") == 0.0


def test_names_at_the_link_threshold_are_linked() -> None:
    assert name_similarity("Kieler Förde Projekt", "KIELER FOERDE") < LINK_THRESHOLD
    assert name_similarity("Apollo Relaunch Team", "apollo relaunch team") == 1.0
    assert key_similarity(key_words("a b c"), key_words("a b c d")) >= LINK_THRESHOLD
    assert key_similarity(frozenset(), key_words("a")) == 0.0


@given(st.text(max_size=300))
def test_extraction_never_fails_on_any_text(text: str) -> None:
    for entity in extract_entities(text):
        assert entity.key == entity_key(entity.name)
