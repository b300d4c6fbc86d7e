"""The text rules storing runs on every memory (entity extraction, emotion tagging, index
terms, procedure markers) were sped up for ``store_many``; each fast version must give
exactly what the plain version gives. The plain versions are kept here as references (as
they were before the speed-up) and compared on generated text and, when the LoCoMo file is
present, on thousands of real conversation turns."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.common.locomo_corpus import load_turns
from benchmarks.common.paths import default_locomo_path
from zenbrain import _validation as check
from zenbrain._algorithms import emotional
from zenbrain._memory.store import prepare
from zenbrain.errors import InvalidInputError
from zenbrain.layers import _cross_context as rules
from zenbrain.layers import _routing as routing
from zenbrain.layers._routing import extract_steps
from zenbrain.layers._semantic import DEFAULT_FACT_CONFIDENCE
from zenbrain.operations import StoreItem
from zenbrain.text import STOPWORDS, stem, terms_of_words, tokenize, words

# ---------------------------------------------------------------- reference: entity names


def _reference_runs(sentence: str) -> list[tuple[list[str], int, str | None]]:
    parts = rules._WORD_SPLIT.split(sentence)
    found = parts[1::2]
    gaps = parts[2::2]
    capitalised = [w[0].isupper() for w in found]
    runs: list[tuple[list[str], int, str | None]] = []
    i = 0
    while i < len(found):
        if not capitalised[i]:
            i += 1
            continue
        start, run, j = i, [found[i]], i + 1
        while j < len(found):
            if gaps[j - 1].strip():
                break
            if capitalised[j]:
                run.append(found[j])
                j += 1
                continue
            k = j
            while (
                k + 1 < len(found) and found[k].lower() in rules._PARTICLES and not gaps[k].strip()
            ):
                k += 1
            if k > j and capitalised[k]:
                run.extend(found[j : k + 1])
                j = k + 1
                continue
            break
        runs.append((run, start, found[start - 1] if start > 0 else None))
        i = j
    return runs


def _reference_trim(run: list[str]) -> list[str]:
    cleaned = [rules._clean(w) for w in run]
    while cleaned and (
        rules.fold(cleaned[0]) in rules._NOT_NAMES
        or rules.fold(cleaned[0]) in rules._TITLES
        or cleaned[0].lower() in rules._PARTICLES
    ):
        cleaned.pop(0)
    while cleaned and (
        rules.fold(cleaned[-1]) in rules._NOT_NAMES or cleaned[-1].lower() in rules._PARTICLES
    ):
        cleaned.pop()
    return [w for w in cleaned if w]


def _reference_entities(text: str) -> list[tuple[str, str]]:
    """Every candidate run judged by the full rules, with no shortcut."""
    sentences = [s for s in rules._SENTENCE_BREAK.split(text) if s and s.strip()]
    candidates: list[tuple[list[str], bool, str | None]] = []
    inner: set[str] = set()
    for sentence in sentences:
        for run, start, previous in _reference_runs(sentence):
            candidates.append((run, start == 0, previous))
            if start != 0:
                inner.update(rules.fold(rules._clean(w)) for w in run)
    german = rules._looks_german(text)
    found: dict[str, str] = {}
    for run, opening, previous in candidates:
        if len(run) > 1 and rules.fold(run[0]) in rules._GERMAN_DETERMINERS and german:
            previous, run, opening = run[0], run[1:], False
        if previous is not None and rules.fold(previous) in rules._GERMAN_DETERMINERS and german:
            particles = [i for i, w in enumerate(run) if w.lower() in rules._PARTICLES]
            if particles:
                previous, run, opening = run[particles[-1]], run[particles[-1] + 1 :], False
        kept = _reference_trim(run)
        if not kept:
            continue
        if len(kept) == 1:
            word = kept[0]
            if len(word) < 2:
                continue
            position = next(
                i for i, w in enumerate(run) if rules.fold(rules._clean(w)) == rules.fold(word)
            )
            before = rules._clean(run[position - 1]) if position > 0 else previous
            if opening and position == 0 and rules.fold(word) not in inner:
                continue
            if german and rules._german_noun(word, before):
                continue
        name = " ".join(kept)[: rules.MAX_NAME_LENGTH]
        key = rules.entity_key(name)
        if key and key not in found:
            found[key] = name
            if len(found) >= rules.MAX_ENTITIES_PER_TEXT:
                break
    return [(name, key) for key, name in found.items()]


# ---------------------------------------------------------------- reference: emotion


def _reference_tag(text: str) -> tuple[float, float, float, float]:
    long_words = [w for w in words(text) if len(w) >= 2]
    pos = neg = arousal_sum = 0.0
    affect = arousal_hits = 0
    significance_values: list[float] = []
    for word in long_words:
        if word in emotional.POSITIVE_WORDS:
            pos += emotional.POSITIVE_WORDS[word]
            affect += 1
        if word in emotional.NEGATIVE_WORDS:
            neg += emotional.NEGATIVE_WORDS[word]
            affect += 1
        if word in emotional.AROUSAL_WORDS:
            arousal_sum += emotional.AROUSAL_WORDS[word]
            arousal_hits += 1
        if word in emotional.SIGNIFICANCE_WORDS:
            significance_values.append(emotional.SIGNIFICANCE_WORDS[word])
    for count, step, cap in ((text.count("!"), 0.15, 0.5), (text.count("?"), 0.05, 0.2)):
        if count:
            arousal_sum += min(count * step, cap)
            arousal_hits += 1
    shouted = sum(1 for w in re.findall(r"[^\W\d_]{3,}", text) if w.isupper())
    if shouted:
        arousal_sum += min(shouted * 0.1, 0.3)
        arousal_hits += 1
    sentiment = (pos - neg) / affect * (0.5 + min(affect / len(long_words), 0.5)) if affect else 0.0
    if arousal_hits:
        arousal = min(emotional.BASE_AROUSAL + arousal_sum / arousal_hits, 1.0)
    else:
        arousal = emotional.BASE_AROUSAL + (0.1 if affect else 0.0)
    significance = (
        sum(significance_values) / len(significance_values) if significance_values else 0.0
    )
    if affect and (pos + neg) / affect > 0.7:
        significance = max(significance, 0.6 * ((pos + neg) / affect))
    sentiment = max(-1.0, min(1.0, sentiment))
    return sentiment, arousal, (sentiment + 1.0) / 2.0, min(significance, 1.0)


def _tag(tag: emotional.EmotionalTag) -> tuple[float, float, float, float]:
    return tag.sentiment, tag.arousal, tag.valence, tag.significance


# ---------------------------------------------------------------- the comparisons

# Text that exercises the rules: names, particles, titles, German articles and noun
# endings, possessives, shouting, lexicon words, procedure markers, odd case twins.
_PIECES = [
    "Anna", "Schmidt", "von", "der", "Leyen", "Bank", "of", "America", "Dr.", "Herr",
    "Müller's", "Kieler", "Förde", "die", "Zeitung", "einen", "schönen", "Tag", "Berlin",
    "happy", "GLÜCKLICH", "died", "wedding", "WOW", "AI", "EU", "LGBTQ", "ABC1", "_DEF",
    "Steps:", "how to", "ſtep", "ınstructions:", "workflow :", "Heute", "Monday", "I'm",
    "und", "ist", "the", "and", "is", "a", "1.", "-", "•", "Step 2:", "Schritte:",
    # ASCII word starts and gaps the ASCII-only shortcuts must read alike
    "3D", "x-Ray", "'Tim'", "-Bob-", "e.g.Foo", "42", "_", "\nhow to", "\n  Step 3",
]  # fmt: skip
_GLUE = [
    " ", " ", " ", ", ", ". ", "! ", "? ", ": ", "\n", " (", ") ", '"', "; ", "…", "\t", ".\t",
    "\x1c", " 3 ", "-", "'", "",
]  # fmt: skip
_texts = st.lists(st.tuples(st.sampled_from(_PIECES), st.sampled_from(_GLUE)), max_size=40).map(
    lambda parts: "".join(piece + glue for piece, glue in parts)
)
_any_text = st.one_of(_texts, st.text(max_size=200))


@settings(max_examples=400)
@given(_any_text)
def test_entity_extraction_matches_the_full_rules(text: str) -> None:
    found = [(entity.name, entity.key) for entity in rules.extract_entities(text)]
    assert found == _reference_entities(text)


@settings(max_examples=400)
@given(_any_text)
def test_emotion_tags_match_the_plain_lexicon_scan(text: str) -> None:
    expected = _reference_tag(text)
    assert _tag(emotional.tag_emotion(text)) == expected
    assert _tag(emotional.tag_folded(text, words(text))) == expected


@settings(max_examples=400)
@given(_any_text)
def test_index_terms_and_procedure_markers_match_the_plain_rules(text: str) -> None:
    expected = [stem(t) for t in words(text) if len(t) >= 2 and t not in STOPWORDS]
    assert tokenize(text) == expected
    assert terms_of_words(words(text)) == expected
    assert routing._has_marker(text) == _reference_marker(text)


def _reference_marker(text: str) -> bool:
    """A procedure marker in the first non-blank line, by the plain patterns."""
    first = text.lstrip().split("\n", 1)[0]
    names_steps = re.search(r"\b(?:steps?|instructions|anleitung|schritte)\b", first, re.I)
    return bool(routing._PROCEDURE_MARKERS.search(first)) or (
        first.rstrip().endswith(":") and names_steps is not None
    )


def _locomo_turns(limit: int) -> list[str]:
    path = default_locomo_path()
    if not path.exists():
        pytest.skip(f"LoCoMo not found at {path} (set ZENBRAIN_LOCOMO)")
    return load_turns(path)[0][:limit]


def test_the_fast_rules_agree_with_the_plain_ones_on_real_conversations() -> None:
    for text in _locomo_turns(3000):
        found = [(entity.name, entity.key) for entity in rules.extract_entities(text)]
        assert found == _reference_entities(text), text
        assert _tag(emotional.tag_folded(text, words(text))) == _reference_tag(text), text
        assert terms_of_words(words(text)) == tokenize(text), text


@settings(max_examples=400)
@given(_any_text)
def test_the_stored_weight_is_the_tags_consolidation_weight(text: str) -> None:
    _, arousal, _, significance = _reference_tag(text)
    assert emotional.weight_folded(text, words(text)) == round(
        0.4 * arousal + 0.6 * significance, 9
    )


_NOW = datetime(2026, 1, 2, tzinfo=UTC)


def test_arguments_not_given_are_stored_as_their_checks_leave_none() -> None:
    # A StoreItem skips the checks of fields left at None; what prepare() stores must be what
    # the checks make of None.
    for text, layer in [("Anna met Bob in Berlin.", "semantic"), ("Step 1: boil", "procedural")]:
        item = prepare(StoreItem(text), _NOW)
        assert item.layer == layer
        assert item.context == check.check_optional_text(None, "context")
        source = check.check_optional_text(None, "source")
        assert item.source == (source or "user" if layer == "semantic" else source)
        assert item.metadata == check.check_metadata(None)
        assert item.created_at == (check.check_created_at(None) or _NOW)
        if layer == "procedural":
            assert item.tools == (check.check_strings(None, "tools") or [])
            assert item.steps == extract_steps(text)
        else:
            assert item.confidence == DEFAULT_FACT_CONFIDENCE
        assert item.emotional_weight == emotional.tag_emotion(text).consolidation_weight


@pytest.mark.parametrize(
    ("argument", "value"),
    [
        ("context", ""), ("source", 5), ("emotional_weight", 1.5), ("confidence", True),
        ("steps", "abc"), ("tools", [None]), ("metadata", [1]), ("created_at", "bad"),
    ],
)  # fmt: skip
def test_arguments_given_are_still_checked(argument: str, value: object) -> None:
    with pytest.raises(InvalidInputError, match=argument):
        StoreItem("Anna met Bob.", **{argument: value})  # type: ignore[arg-type]
