"""What a word is: folding, stopwords and stemming (zenbrain/text.py), and that memories in
German are found as well as English ones (the seeds hold both)."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zenbrain import MemoryCoordinator
from zenbrain.text import fold, stem, tokenize, words

GERMAN = (
    "Am Wochenende segeln wir auf der Kieler Förde.",
    "Die Rechnung für die Heizung kommt im Januar.",
    "Meine Schwester wohnt seit zwei Jahren in München.",
    "Die Katze schläft den ganzen Tag auf dem Sofa.",
    "Der Kater jagt nachts die Mäuse im Garten.",
    "Wir haben das Haus am See besucht und sind gesegelt.",
)
# Each query with the memory it must bring back first: inflected forms, umlauts written
# out or folded, and near neighbours ("Katze" / "Kater") that must not be conflated.
GERMAN_QUERIES = (
    ("Segeln auf der Kieler Foerde", 0),
    ("Heizung Rechnung Januar", 1),
    ("Wo wohnt meine Schwester? MUENCHEN", 2),
    ("Katze auf dem Sofa", 3),
    ("Kater jagt Mäuse", 4),
    ("Hauses am See besuchte", 5),
)


def test_stemming_meets_inflections_and_leaves_short_and_foreign_words() -> None:
    assert stem("paintings") == stem("painting") == stem("painted")
    assert stem("besuchte") == stem("besucht")
    assert stem("hauses") == stem("haus")
    assert stem("cat") == "cat"
    assert stem("привет") == "привет"
    assert stem("katze") != stem("kater")


def test_tokens_fold_umlauts_and_drop_german_and_english_stopwords() -> None:
    assert tokenize("Für die Kieler Förde") == tokenize("fuer die KIELER FOERDE")
    assert tokenize("the and der die das") == []


@pytest.mark.parametrize(("query", "expected"), GERMAN_QUERIES)
def test_german_memories_are_found_by_inflected_queries(
    db_path: object, query: str, expected: int
) -> None:
    with MemoryCoordinator(str(db_path)) as memory:
        memory.store_many([{"content": text, "layer": "episodic"} for text in GERMAN])
        found = memory.recall(query, layers=["episodic"], limit=3, min_score=0.01)
    assert found and found[0].content == GERMAN[expected]


def _reference_fold(text: str) -> str:
    lowered = text.casefold().translate(
        str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "æ": "ae", "ø": "oe"})
    )
    decomposed = unicodedata.normalize("NFKD", lowered)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@settings(max_examples=400)
@given(st.one_of(st.text(max_size=80), st.text(st.characters(max_codepoint=127), max_size=80)))
def test_words_are_the_letter_and_digit_runs_of_the_folded_text(text: str) -> None:
    # words() and fold() take a shortcut on ASCII text; it must agree with the plain rule.
    assert fold(text) == _reference_fold(text)
    assert words(text) == re.findall(r"[^\W_]+", _reference_fold(text))
