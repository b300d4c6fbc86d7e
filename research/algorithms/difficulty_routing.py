"""Query difficulty routing: cheap lookups for easy queries, full scans for hard ones.

Source: adaptive retrieval by estimated query complexity (Jeong et al. 2024, "Adaptive-RAG:
Learning to Adapt Retrieval-Augmented Large Language Models through Question
Complexity"), with the cue weights of the TypeScript original (inventory §4.2
"dopamine-routing"). The score (0..1) adds up surface cues found in English or German:

- length: ``min(0.2, words / 50)``;
- clauses: 0.1 per subordinating/coordinating cue (and, but, because, which, und, aber,
  weil, dass, ...), at most 0.2;
- comparison (versus, difference between, better than, Unterschied, besser als, ...) 0.2;
- counting or listing (how many, list all, wie viele, alle, ...) 0.2;
- named entities (capitalised words not starting a sentence, German nouns excluded by
  requiring a following capitalised word or a digit): 0.05 each, at most 0.15;
- temporal cue 0.1, negation 0.1, question form 0.05.

Route: score >= 0.55 -> ``full_scan``, <= 0.45 -> ``fast_cache``, otherwise ``hybrid``.

Difference from the original: cues are matched on folded text (case, umlauts, accents)
and German cues are included; German capitalises every noun, so a single capitalised word
is not taken as an entity — only runs of two or more (e.g. "Kieler Förde") or
words with digits (e.g. "ISO9001").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

from zenbrain.errors import InvalidInputError
from zenbrain.text import fold
from zenbrain.text import words as folded_words

__all__ = [
    "FAST_CACHE_MAX",
    "FULL_SCAN_MIN",
    "QueryDifficulty",
    "Route",
    "route_for_score",
    "score_query_difficulty",
]

# The negation cues of zenbrain's own negation detection (zenbrain/_algorithms/similarity.py,
# internal); tests/research/test_difficulty_routing.py checks the two lists stay equal.
_ENGLISH_CUES = "not no never none nobody nothing neither nor without cannot nowhere"
_GERMAN_CUES = (
    "nicht nichts nie niemals niemand kein keine keinen keinem keiner keines weder ohne nirgends"
)
NEGATION_CUES: Final = frozenset(folded_words(f"{_ENGLISH_CUES} {_GERMAN_CUES}"))

Route = Literal["fast_cache", "hybrid", "full_scan"]
FULL_SCAN_MIN: Final = 0.55
FAST_CACHE_MAX: Final = 0.45

_CLAUSE_CUES: Final = frozenset(
    folded_words(
        "and but because which while although whereas that und aber weil dass waehrend "
        "obwohl sondern denn"
    )
)
_COMPARISON = re.compile(
    r"\b(?:compare[ds]?|comparison|versus|vs|difference between|differ|better than|"
    r"worse than|more than|less than|vergleich\w*|unterschied\w*|besser als|"
    r"schlechter als|mehr als|weniger als)\b"
)
_COUNTING = re.compile(
    r"\b(?:how many|how much|list|all|every|count|enumerate|wie viele|wie viel|"
    r"alle|liste|auflisten|jede[rsnm]?|aufzaehlen)\b"
)
_TEMPORAL = re.compile(
    r"\b(?:when|before|after|since|until|ago|yesterday|today|last|first|"
    r"wann|bevor|nachdem|seit|bis|gestern|heute|zuletzt|zuerst|letzte[rsnm]?|erste[rsnm]?)\b"
)
_QUESTION_START: Final = frozenset(
    folded_words(
        "who what when where why how which did does do is are wer was wann wo warum wie "
        "welche welcher welches"
    )
)
_ENTITY_RUN = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-ZÄÖÜ][\w-]+(?:\s+[A-ZÄÖÜ][\w-]+)+")
_CODED_ENTITY = re.compile(r"\b(?=\w*[A-Za-z])(?=\w*\d)\w{3,}\b")


@dataclass(frozen=True, slots=True)
class QueryDifficulty:
    score: float
    route: Route
    features: dict[str, float]


def route_for_score(score: float) -> Route:
    """``full_scan`` at >= 0.55, ``fast_cache`` at <= 0.45, ``hybrid`` in between."""
    if score >= FULL_SCAN_MIN:
        return "full_scan"
    if score <= FAST_CACHE_MAX:
        return "fast_cache"
    return "hybrid"


def score_query_difficulty(query: str) -> QueryDifficulty:
    """Difficulty of ``query`` (0..1), the route it gets and each cue's contribution."""
    if not isinstance(query, str):
        raise InvalidInputError(f"query must be a str, got {type(query).__name__}")
    folded = fold(query)
    words = folded_words(query)
    entities = len(_ENTITY_RUN.findall(query.strip())) + len(_CODED_ENTITY.findall(query))
    features = {
        "length": min(0.2, len(words) / 50),
        "clauses": min(0.2, 0.1 * sum(1 for w in words if w in _CLAUSE_CUES)),
        "comparison": 0.2 if _COMPARISON.search(folded) else 0.0,
        "counting": 0.2 if _COUNTING.search(folded) else 0.0,
        "entities": min(0.15, 0.05 * entities),
        "temporal": 0.1 if _TEMPORAL.search(folded) else 0.0,
        "negation": 0.1 if any(w in NEGATION_CUES for w in words) or "n't" in folded else 0.0,
        "question": 0.05
        if query.rstrip().endswith("?") or (words and words[0] in _QUESTION_START)
        else 0.0,
    }
    score = min(1.0, sum(features.values()))
    return QueryDifficulty(score=score, route=route_for_score(score), features=features)
