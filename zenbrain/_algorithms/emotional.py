"""Lexicon-based emotional tagging (English and German) and the consolidation weight.

Source: the emotional-tagging module of the TypeScript original (inventory §4.1
"emotional"), itself a small valence/arousal lexicon approach in the spirit of
Russell's circumplex model of affect (Russell 1980) and of the finding that emotionally
arousing, personally significant events are consolidated better (McGaugh 2004,
"The amygdala modulates the consolidation of memories of emotionally arousing
experiences"). The word lists below are our own.

Scoring (per text, after folding: lower-case, umlauts transliterated, accents stripped,
split on non-alphanumerics, tokens shorter than two characters ignored):

- ``sentiment = ((pos - neg) / hits) * (0.5 + min(hits / words, 0.5))`` where ``pos``/``neg``
  are the summed intensities of positive/negative words and ``hits`` their count; 0 without
  hits. Range -1..1.
- ``arousal = min(0.2 + arousal_score / arousal_hits, 1)``; punctuation and shouting add to
  the score: each ``!`` +0.15 (at most 0.5), each ``?`` +0.05 (at most 0.2), each ALL-CAPS
  word +0.1 (at most 0.3); each kind present counts as one hit. Without any arousal hit,
  arousal is the base 0.2, plus 0.1 when the text has any positive or negative word.
- ``valence = (sentiment + 1) / 2``.
- ``significance`` = mean intensity of the significance words, raised to
  ``0.6 * mean positive/negative intensity`` when that mean exceeds 0.7.
- consolidation weight (:func:`emotional_weight`) = ``0.4 * arousal + 0.6 * significance``;
  neutral text scores 0.4 * 0.2 = 0.08.
- ``decay_multiplier = clamp(1 + 2 * max(|sentiment|, arousal, significance), 1, 3)``.

Deliberate differences from the original:

- Tokens are split on every non-alphanumeric character (the original split on whitespace
  and stripped punctuation, so "happy/sad" was one unknown word).
- ALL-CAPS needs at least three letters, so short acronyms such as "AI" or "EU" do not
  count as shouting.
- Accent stripping in addition to umlaut transliteration, so "glücklich", "gluecklich"
  and "GLÜCKLICH" all match. Words whose meaning differs between the two languages
  (German "die", "Gift", "toll") are left out of the lexicons; English "bad" and German
  "gut" stay, accepting that German "Bad" (bath) reads as mildly negative.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, NamedTuple

from zenbrain._validation import check_text
from zenbrain.errors import InvalidInputError
from zenbrain.text import words as folded_words

__all__ = [
    "AROUSAL_WORDS",
    "BASE_AROUSAL",
    "CONTEXT_VALENCE_RANGES",
    "NEGATIVE_WORDS",
    "NEUTRAL_TAG",
    "POSITIVE_WORDS",
    "SIGNIFICANCE_WORDS",
    "EmotionalTag",
    "contextual_valence",
    "decay_multiplier",
    "emotional_weight",
    "is_emotionally_significant",
    "tag_emotion",
    "tag_folded",
]

BASE_AROUSAL: Final = 0.2
_AFFECT_AROUSAL_BONUS: Final = 0.1
_EXCLAMATION_STEP, _EXCLAMATION_CAP = 0.15, 0.5
_QUESTION_STEP, _QUESTION_CAP = 0.05, 0.2
_CAPS_STEP, _CAPS_CAP = 0.1, 0.3
_STRONG_AFFECT_THRESHOLD: Final = 0.7
_STRONG_AFFECT_SIGNIFICANCE: Final = 0.6
_AROUSAL_SHARE, _SIGNIFICANCE_SHARE = 0.4, 0.6
_MIN_WORD_LENGTH: Final = 2

# Lexicons are written already folded (ü -> ue, ß -> ss): lookups run on folded tokens.
# fmt: off
POSITIVE_WORDS: Final = MappingProxyType(
    {
        # English
        "happy": 0.7, "joy": 0.8, "joyful": 0.8, "love": 0.85, "loved": 0.8,
        "wonderful": 0.8, "great": 0.6, "good": 0.4, "excellent": 0.75, "amazing": 0.8,
        "fantastic": 0.8, "thrilled": 0.9, "excited": 0.75, "delighted": 0.85,
        "grateful": 0.7, "thankful": 0.65, "proud": 0.75, "success": 0.7,
        "successful": 0.7, "won": 0.75, "celebrate": 0.75, "celebrated": 0.75,
        "beautiful": 0.65, "glad": 0.6, "pleased": 0.55, "relieved": 0.6, "hopeful": 0.55,
        "awesome": 0.75, "perfect": 0.7, "brilliant": 0.75, "enjoy": 0.6, "enjoyed": 0.6,
        "ecstatic": 0.95, "overjoyed": 0.95, "blessed": 0.7, "accomplished": 0.7,
        "achieved": 0.7, "inspired": 0.65, "passed": 0.5,
        # German
        "gluecklich": 0.85, "uebergluecklich": 0.95, "froh": 0.7, "freude": 0.8,
        "freue": 0.7, "freuen": 0.7, "liebe": 0.85, "wunderbar": 0.8, "super": 0.65,
        "gut": 0.4, "grossartig": 0.8, "fantastisch": 0.8, "begeistert": 0.85,
        "dankbar": 0.7, "stolz": 0.75, "erfolg": 0.7, "erfolgreich": 0.7,
        "gewonnen": 0.75, "bestanden": 0.7, "feiern": 0.7, "schoen": 0.6,
        "erleichtert": 0.6, "perfekt": 0.7, "genial": 0.75, "spass": 0.55,
        "zufrieden": 0.55, "geschafft": 0.7,
    }
)

NEGATIVE_WORDS: Final = MappingProxyType(
    {
        # English
        "sad": 0.7, "angry": 0.75, "furious": 0.9, "hate": 0.85, "terrible": 0.8,
        "awful": 0.8, "horrible": 0.85, "bad": 0.45, "fear": 0.7, "afraid": 0.7,
        "scared": 0.7, "terrified": 0.9, "worried": 0.6, "anxious": 0.65, "stressed": 0.6,
        "depressed": 0.85, "devastated": 0.95, "heartbroken": 0.95, "grief": 0.9,
        "died": 0.95, "death": 0.9, "dead": 0.85, "failed": 0.7, "failure": 0.7,
        "disappointed": 0.65, "frustrated": 0.65, "upset": 0.65, "hurt": 0.7,
        "painful": 0.7, "lonely": 0.7, "miserable": 0.85, "disaster": 0.85, "crisis": 0.8,
        "fired": 0.8, "accident": 0.8, "shocked": 0.75, "ashamed": 0.7,
        # German
        "traurig": 0.7, "wuetend": 0.8, "hass": 0.85, "schrecklich": 0.85,
        "furchtbar": 0.8, "schlecht": 0.45, "angst": 0.75, "sorgen": 0.6, "besorgt": 0.6,
        "gestresst": 0.6, "deprimiert": 0.85, "verzweifelt": 0.9, "trauer": 0.9,
        "gestorben": 0.95, "tod": 0.9, "tot": 0.85, "gescheitert": 0.7,
        "durchgefallen": 0.75, "enttaeuscht": 0.65, "frustriert": 0.65, "verletzt": 0.7,
        "schmerz": 0.7, "einsam": 0.7, "katastrophe": 0.85, "krise": 0.8,
        "gekuendigt": 0.8, "unfall": 0.8, "schockiert": 0.75, "aerger": 0.6,
    }
)

AROUSAL_WORDS: Final = MappingProxyType(
    {
        # English
        "thrilled": 0.9, "excited": 0.8, "furious": 0.9, "ecstatic": 0.95,
        "terrified": 0.9, "panic": 0.9, "shocked": 0.85, "urgent": 0.7, "emergency": 0.9,
        "devastated": 0.8, "outraged": 0.85, "absolutely": 0.4, "incredible": 0.6,
        "screaming": 0.8, "rage": 0.9, "wow": 0.6, "immediately": 0.5, "overjoyed": 0.85,
        # German
        "begeistert": 0.8, "aufgeregt": 0.8, "wuetend": 0.85, "panik": 0.9,
        "schockiert": 0.85, "dringend": 0.7, "notfall": 0.9, "sofort": 0.5,
        "unglaublich": 0.6, "wahnsinn": 0.7, "entsetzt": 0.85, "verzweifelt": 0.8,
        "uebergluecklich": 0.85, "absolut": 0.4,
    }
)

SIGNIFICANCE_WORDS: Final = MappingProxyType(
    {
        # English
        "died": 0.95, "death": 0.9, "funeral": 0.9, "born": 0.85, "birth": 0.85,
        "wedding": 0.85, "married": 0.85, "divorce": 0.85, "engaged": 0.7,
        "promotion": 0.8, "promoted": 0.8, "fired": 0.8, "graduated": 0.8,
        "graduation": 0.8, "diagnosis": 0.85, "diagnosed": 0.85, "cancer": 0.9,
        "hospital": 0.75, "surgery": 0.8, "pregnant": 0.85, "accident": 0.8, "exam": 0.7,
        "anniversary": 0.7, "milestone": 0.75, "breakthrough": 0.75, "award": 0.75,
        "retired": 0.75, "retirement": 0.75, "breakup": 0.8, "bankrupt": 0.85,
        # German
        "gestorben": 0.95, "tod": 0.9, "beerdigung": 0.9, "geboren": 0.85, "geburt": 0.85,
        "hochzeit": 0.85, "geheiratet": 0.85, "scheidung": 0.85, "verlobt": 0.7,
        "befoerderung": 0.8, "befoerdert": 0.8, "gekuendigt": 0.8, "abschluss": 0.7,
        "pruefung": 0.75, "bestanden": 0.7, "diagnose": 0.85, "krebs": 0.9,
        "krankenhaus": 0.75, "schwanger": 0.85, "unfall": 0.8, "jubilaeum": 0.7,
        "meilenstein": 0.75, "durchbruch": 0.75, "auszeichnung": 0.75, "ruhestand": 0.75,
        "trennung": 0.8, "insolvenz": 0.85,
    }
)

# fmt: on


class _Entry(NamedTuple):
    positive: float
    negative: float
    arousal: float
    significance: float


def _merge_lexicons() -> dict[str, _Entry]:
    # One dict lookup per token: tagging runs on every store.
    words = POSITIVE_WORDS.keys() | NEGATIVE_WORDS.keys() | AROUSAL_WORDS.keys()
    words |= SIGNIFICANCE_WORDS.keys()
    return {
        word: _Entry(
            POSITIVE_WORDS.get(word, 0.0),
            NEGATIVE_WORDS.get(word, 0.0),
            AROUSAL_WORDS.get(word, 0.0),
            SIGNIFICANCE_WORDS.get(word, 0.0),
        )
        for word in words
    }


_LEXICON: Final = _merge_lexicons()
# tag_folded looks words up unfiltered: every lexicon word has _MIN_WORD_LENGTH letters or more.
_CAPS_WORD = re.compile(r"[^\W\d_]{3,}")
# In ASCII text: the runs of _CAPS_WORD that are all upper case. It opens with a letter, not
# the look-behind, so the regex engine can skip ahead to the capitals.
_SHOUTED_ASCII = re.compile(r"[A-Z](?<![A-Za-z][A-Z])[A-Z]{2,}(?![A-Za-z])")


@dataclass(frozen=True, slots=True)
class EmotionalTag:
    """Affect of a text: sentiment -1..1, arousal 0..1, valence 0..1, significance 0..1."""

    sentiment: float
    arousal: float
    valence: float
    significance: float

    @property
    def consolidation_weight(self) -> float:
        """``0.4 * arousal + 0.6 * significance``, the weight used for routing/consolidation."""
        return _weight(self.arousal, self.significance)


NEUTRAL_TAG: Final = EmotionalTag(0.0, BASE_AROUSAL, 0.5, 0.0)


def _long_words(text: str) -> list[str]:
    """Folded words (stopwords kept: the lexicons contain some) of at least three letters."""
    return [w for w in folded_words(check_text(text, "text")) if len(w) >= _MIN_WORD_LENGTH]


def tag_emotion(text: str) -> EmotionalTag:
    """Score the affect of ``text`` (English or German); see the module docstring."""
    return tag_folded(text, folded_words(check_text(text, "text")))


def tag_folded(text: str, folded: Sequence[str]) -> EmotionalTag:
    """:func:`tag_emotion` of ``text`` whose folded words (:func:`zenbrain.text.words`)
    the caller has already: storing tokenises a text once for tagging and indexing."""
    sentiment, arousal, significance = _affect(text, folded)
    return EmotionalTag(
        sentiment=sentiment,
        arousal=arousal,
        valence=(sentiment + 1.0) / 2.0,
        significance=significance,
    )


def weight_folded(text: str, folded: Sequence[str]) -> float:
    """``tag_folded(text, folded).consolidation_weight`` without building the tag: storing
    needs only the weight. Storing's helper, not re-exported by :mod:`zenbrain._algorithms`."""
    _, arousal, significance = _affect(text, folded)
    return _weight(arousal, significance)


def _weight(arousal: float, significance: float) -> float:
    # Rounded: the sum's float noise (0.08000000000000002) would reach every surface.
    return round(_AROUSAL_SHARE * arousal + _SIGNIFICANCE_SHARE * significance, 9)


def _affect(text: str, folded: Sequence[str]) -> tuple[float, float, float]:
    """Sentiment, arousal and significance of ``text`` with these folded words."""
    pos_sum = neg_sum = arousal_sum = 0.0
    affect_hits = arousal_hits = 0
    significance_values: list[float] = []
    # Most texts have no lexicon word: a set-style test finds that without a call per word.
    # Lexicon words are all long enough: look every word up, count the long ones if needed.
    hits = () if _LEXICON.keys().isdisjoint(folded) else filter(None, map(_LEXICON.get, folded))
    for entry in hits:  # the entries are non-empty tuples
        if entry.positive:
            pos_sum += entry.positive
            affect_hits += 1
        if entry.negative:
            neg_sum += entry.negative
            affect_hits += 1
        if entry.arousal:
            arousal_sum += entry.arousal
            arousal_hits += 1
        if entry.significance:
            significance_values.append(entry.significance)

    exclamations = text.count("!")
    if exclamations:
        arousal_sum += min(exclamations * _EXCLAMATION_STEP, _EXCLAMATION_CAP)
        arousal_hits += 1
    questions = text.count("?")
    if questions:
        arousal_sum += min(questions * _QUESTION_STEP, _QUESTION_CAP)
        arousal_hits += 1
    # A text without an upper-case letter has no shouted word: skip the scan.
    if text.islower():
        shouted = 0
    elif text.isascii():  # the same count, without listing every word
        shouted = len(_SHOUTED_ASCII.findall(text))
    else:
        shouted = sum(1 for w in _CAPS_WORD.findall(text) if w.isupper())
    if shouted:
        arousal_sum += min(shouted * _CAPS_STEP, _CAPS_CAP)
        arousal_hits += 1

    if affect_hits:
        # Words are never empty: the long ones are all but those of a single letter.
        words = len(folded) - list(map(len, folded)).count(1)
        coverage = min(affect_hits / words, 0.5)
        sentiment = ((pos_sum - neg_sum) / affect_hits) * (0.5 + coverage)
    else:
        sentiment = 0.0

    if arousal_hits:
        arousal = min(BASE_AROUSAL + arousal_sum / arousal_hits, 1.0)
    else:
        arousal = BASE_AROUSAL + (_AFFECT_AROUSAL_BONUS if affect_hits else 0.0)

    significance = (
        sum(significance_values) / len(significance_values) if significance_values else 0.0
    )
    if affect_hits:
        mean_affect = (pos_sum + neg_sum) / affect_hits
        if mean_affect > _STRONG_AFFECT_THRESHOLD:
            significance = max(significance, _STRONG_AFFECT_SIGNIFICANCE * mean_affect)

    return max(-1.0, min(1.0, sentiment)), arousal, min(significance, 1.0)


def emotional_weight(text: str) -> float:
    """Consolidation weight of ``text``: ``0.4 * arousal + 0.6 * significance`` (0..1)."""
    return tag_emotion(text).consolidation_weight


def decay_multiplier(text: str) -> float:
    """How much slower an emotional memory should decay: 1 (neutral) .. 3 (intense)."""
    tag = tag_emotion(text)
    strongest = max(abs(tag.sentiment), tag.arousal, tag.significance)
    return max(1.0, min(3.0, 1.0 + 2.0 * strongest))


def is_emotionally_significant(text: str, threshold: float = 0.3) -> bool:
    """True when the consolidation weight of ``text`` is at least ``threshold``."""
    if not 0.0 <= threshold <= 1.0:
        raise InvalidInputError(f"threshold must be within 0..1, got {threshold}")
    return emotional_weight(text) >= threshold


# How far the life domain may pull valence when a text is about pressure or difficulty.
# The four default domains of ZENBRAIN_CONTEXTS; other configured names use the default.
CONTEXT_VALENCE_RANGES: Final = MappingProxyType(
    {"work": 0.1, "personal": 0.2, "learning": 0.05, "creative": 0.15}
)
_DEFAULT_CONTEXT_RANGE: Final = 0.1
# fmt: off
_PRESSURE_WORDS: Final = frozenset(
    {
        "urgent", "deadline", "asap", "overdue", "pressure", "difficult", "hard",
        "struggle", "struggling", "problem", "problems", "stuck", "blocked", "complicated",
        "dringend", "frist", "termindruck", "druck", "schwierig", "schwer", "probleme",
        "kompliziert", "blockiert", "ueberfordert", "verspaetet",
    }
)
# fmt: on


def contextual_valence(text: str, domain: str) -> float:
    """Valence of ``text`` shifted down by the domain's range when it speaks of pressure.

    Each urgency/difficulty cue moves valence by half the domain's range, at most the full
    range (work 0.1, personal 0.2, learning 0.05 — difficulty is expected while learning —,
    creative 0.15; any other domain 0.1). Result clamped to 0..1.
    """
    if not isinstance(domain, str) or not domain.strip():
        raise InvalidInputError("domain must be a non-empty string, e.g. 'work'")
    span = CONTEXT_VALENCE_RANGES.get(domain.strip().lower(), _DEFAULT_CONTEXT_RANGE)
    cues = sum(1 for word in _long_words(text) if word in _PRESSURE_WORDS)
    shift = min(cues * span / 2.0, span)
    return max(0.0, min(1.0, tag_emotion(text).valence - shift))
