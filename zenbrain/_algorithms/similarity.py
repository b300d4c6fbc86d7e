"""Negation-aware string similarity for English and German.

Source: the similarity helpers of the TypeScript original (inventory §4.1 "similarity");
negation-cue detection in the manner of NegEx (Chapman et al. 2001, "A simple algorithm
for identifying negated findings"), reduced to a cue list plus a look-ahead window.

- :func:`detect_negation` finds negation cues (English: not, no, never, n't, without, ...;
  German: nicht, kein*, nie, niemals, nichts, niemand, weder, ohne). Two or more cues are
  ambiguous (double negation) -> confidence 0.3; a cue followed within four words by the
  given target -> 0.85; a cue alone -> 0.6.
- :func:`string_similarity` is the Jaccard index of the sets of folded words longer than two
  characters (case, umlaut spelling and accents do not matter).
- :func:`strip_negation` removes the cues, so "I do not like tea" compares with "I like tea".
- :func:`compare_statements` combines both: high similarity after stripping, with exactly
  one side negated, flags a likely contradiction.

Difference from the original: text is folded (umlauts, accents) before comparison, and
contractions ("don't", "can't", "won't") count as negations in every spelling (straight or
typographic apostrophe).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from zenbrain._validation import check_text
from zenbrain.errors import InvalidInputError
from zenbrain.text import fold
from zenbrain.text import words as folded_words

__all__ = [
    "NEGATION_CUES",
    "NegationResult",
    "StatementComparison",
    "compare_statements",
    "detect_negation",
    "string_similarity",
    "strip_negation",
]

NEGATION_CUES: Final = frozenset(
    {
        # English
        "not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without",
        "cannot", "nowhere",
        # German
        "nicht", "nichts", "nie", "niemals", "niemand", "kein", "keine", "keinen", "keinem",
        "keiner", "keines", "weder", "ohne", "nirgends",
    }
)  # fmt: skip
_CONTRACTION = re.compile(r"\b(\w+?)n['’]t\b", re.IGNORECASE)
_IRREGULAR_STEMS: Final = {"ca": "can", "wo": "will", "sha": "shall"}
_STRIP_CUES = re.compile(
    r"\b(?:" + "|".join(sorted(NEGATION_CUES, key=len, reverse=True)) + r")\b",
    re.IGNORECASE,
)
_TARGET_WINDOW: Final = 4
_DOUBLE_NEGATION_CONFIDENCE: Final = 0.3
_TARGET_CONFIDENCE: Final = 0.85
_CUE_CONFIDENCE: Final = 0.6
_MIN_SIMILARITY_WORD: Final = 3
_CONTRADICTION_SIMILARITY: Final = 0.5


@dataclass(frozen=True, slots=True)
class NegationResult:
    negated: bool
    confidence: float
    cues: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class StatementComparison:
    similarity: float
    likely_contradiction: bool


def _expand_contractions(text: str, negation: str) -> str:
    """Rewrite "don't"/"can't"/"won't" as the verb followed by ``negation``."""
    if not isinstance(text, str):
        raise InvalidInputError(f"text must be a str, got {type(text).__name__}")

    def expand(match: re.Match[str]) -> str:
        stem = match.group(1)
        verb = _IRREGULAR_STEMS.get(stem.lower(), stem)
        return f"{verb} {negation}" if negation else verb

    return _CONTRACTION.sub(expand, text)


def _words_with_expanded_contractions(text: str) -> list[str]:
    return folded_words(_expand_contractions(check_text(text, "text"), "not"))


def detect_negation(text: str, target: str | None = None) -> NegationResult:
    """Whether ``text`` is negated (optionally: negates ``target``), with a confidence."""
    words = _words_with_expanded_contractions(text)
    cue_positions = [i for i, word in enumerate(words) if word in NEGATION_CUES]
    cues = tuple(words[i] for i in cue_positions)
    if not cue_positions:
        return NegationResult(False, 0.0, ())
    if len(cue_positions) >= 2:
        return NegationResult(True, _DOUBLE_NEGATION_CONFIDENCE, cues)
    if target is not None:
        target_words = set(folded_words(check_text(target, "target")))
        start = cue_positions[0] + 1
        if target_words & set(words[start : start + _TARGET_WINDOW]):
            return NegationResult(True, _TARGET_CONFIDENCE, cues)
    return NegationResult(True, _CUE_CONFIDENCE, cues)


def strip_negation(text: str) -> str:
    """``text`` without negation cues, whitespace collapsed ("can't" becomes "can")."""
    without = _STRIP_CUES.sub(" ", _expand_contractions(text, ""))
    return " ".join(without.split())


def _content_words(text: str) -> set[str]:
    return {w for w in folded_words(check_text(text, "text")) if len(w) >= _MIN_SIMILARITY_WORD}


def string_similarity(a: str, b: str) -> float:
    """Jaccard similarity of the folded words (longer than two characters) of ``a`` and ``b``.

    Two texts without such words are 1.0 when they fold to the same text, else 0.0.
    """
    left, right = _content_words(a), _content_words(b)
    if not left and not right:
        return 1.0 if fold(a).strip() == fold(b).strip() else 0.0
    return len(left & right) / len(left | right)


def compare_statements(a: str, b: str) -> StatementComparison:
    """Similarity of ``a`` and ``b`` ignoring negation, and whether they likely contradict."""
    similarity = string_similarity(strip_negation(a), strip_negation(b))
    one_negated = detect_negation(a).negated != detect_negation(b).negated
    return StatementComparison(
        similarity=similarity,
        likely_contradiction=one_negated and similarity >= _CONTRADICTION_SIMILARITY,
    )
