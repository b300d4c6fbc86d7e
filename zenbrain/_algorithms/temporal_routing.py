"""Temporal multi-route retrieval: detect what a time question asks, fuse per-route results.

Source: temporal query understanding for conversational memory benchmarks (LongMemEval,
Wu et al. 2024; LoCoMo, Maharana et al. 2024, both report temporal questions as the
hardest), fused with Reciprocal Rank Fusion (Cormack, Clarke & Büttcher 2009). Cues and
constants of the TypeScript original (inventory §4.2 "temporal-multi-route"), extended to
German:

- absolute route (a point in time): "when did/was ..." / "wann" 0.95, "ago" / "vor drei
  Tagen" / "... her" 0.5;
- relative route (order of events): "before/after" / "bevor/nachdem/vorher/danach" 0.9,
  "first/last/earliest/latest" / "erste/letzte/zuerst/zuletzt" 0.85;
- duration route: "how long" / "wie lange" 0.95.

:func:`relative_direction` names the relative cue of a question and the event after it
("after the concert" -> ``("after", "the concert")``), for ordering memories in time.

A route's confidence is ``1 - Π(1 - c)`` over its matched cues. :func:`fuse_routes` scores
each item ``Σ confidence_route / (60 + rank + 1)`` (rank from 0) and multiplies by 1.2 when
two or more routes returned it.

Difference from the original: German cues; cues are matched on folded text, so "Wann war
das?" and "WHEN DID" match; German "vor" counts as "ago" only before a time span
("vor drei Wochen"), not in its other senses.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from zenbrain._validation import check_positive, check_text, check_unit
from zenbrain.errors import InvalidInputError
from zenbrain.text import fold

__all__ = [
    "MULTI_ROUTE_BONUS",
    "RRF_K",
    "FusedItem",
    "RelativeDirection",
    "TemporalCue",
    "TemporalQuery",
    "TemporalRoute",
    "detect_temporal_routes",
    "fuse_routes",
    "relative_direction",
    "run_temporal_multi_route",
]

TemporalRoute = Literal["absolute", "relative", "duration"]
RRF_K: Final = 60
MULTI_ROUTE_BONUS: Final = 1.2

_NUMBER = (
    r"(?:\d+|ein|eine|einem|einer|zwei|drei|vier|fuenf|sechs|sieben|acht|neun|zehn|"
    r"paar|wenigen)"
)
_SPAN = r"(?:sekunden?|minuten?|stunden?|tag(?:en|e)?|wochen?|monat(?:en|e)?|jahr(?:en|e)?)"
_CUES: Final[tuple[tuple[re.Pattern[str], TemporalRoute, float], ...]] = (
    (re.compile(r"\bwhen (?:did|was|were|is|are|do|does|have|has|had|will)\b"), "absolute", 0.95),
    (re.compile(r"\bwann\b"), "absolute", 0.95),
    (re.compile(r"\bago\b"), "absolute", 0.5),
    (re.compile(rf"\bvor (?:{_NUMBER} )?{_SPAN}\b"), "absolute", 0.5),
    (re.compile(rf"\b{_NUMBER} {_SPAN} her\b"), "absolute", 0.5),
    (re.compile(r"\b(?:before|after)\b"), "relative", 0.9),
    (re.compile(r"\b(?:bevor|nachdem|vorher|danach|zuvor)\b"), "relative", 0.9),
    (re.compile(r"\b(?:first|last|earliest|latest)\b"), "relative", 0.85),
    (re.compile(r"\b(?:erste[rsnm]?|letzte[rsnm]?|zuerst|zuletzt)\b"), "relative", 0.85),
    (re.compile(r"\bhow long\b"), "duration", 0.95),
    (re.compile(r"\bwie lange?\b"), "duration", 0.95),
)


@dataclass(frozen=True, slots=True)
class TemporalCue:
    text: str
    route: TemporalRoute
    confidence: float


@dataclass(frozen=True, slots=True)
class TemporalQuery:
    routes: dict[TemporalRoute, float]
    cues: list[TemporalCue]

    @property
    def is_temporal(self) -> bool:
        return bool(self.routes)


@dataclass(frozen=True, slots=True)
class FusedItem:
    item_id: str
    score: float
    routes: tuple[str, ...] = field(default_factory=tuple)


def detect_temporal_routes(query: str) -> TemporalQuery:
    """Temporal cues in ``query`` (English or German) and each route's confidence."""
    if not isinstance(query, str):
        raise InvalidInputError(f"query must be a str, got {type(query).__name__}")
    folded = " ".join(fold(query).split())
    cues: list[TemporalCue] = []
    remaining: dict[TemporalRoute, float] = {}
    for pattern, route, confidence in _CUES:
        for match in pattern.finditer(folded):
            cues.append(TemporalCue(match.group(0), route, confidence))
            remaining[route] = remaining.get(route, 1.0) * (1.0 - confidence)
    routes = {route: 1.0 - miss for route, miss in remaining.items()}
    return TemporalQuery(routes=routes, cues=cues)


def fuse_routes(
    route_results: Mapping[str, Sequence[str]],
    route_confidences: Mapping[str, float],
    k: int = RRF_K,
    multi_route_bonus: float = MULTI_ROUTE_BONUS,
) -> list[FusedItem]:
    """Reciprocal-rank fusion weighted by route confidence, best first."""
    check_positive(k, "k")
    bonus = check_positive(multi_route_bonus, "multi_route_bonus")
    scores: dict[str, float] = {}
    seen_in: dict[str, list[str]] = {}
    for route, items in route_results.items():
        if route not in route_confidences:
            raise InvalidInputError(f"no confidence given for route {route!r}")
        confidence = check_unit(route_confidences[route], f"confidence of {route!r}")
        for rank, item in enumerate(dict.fromkeys(items)):
            scores[item] = scores.get(item, 0.0) + confidence / (k + rank + 1)
            seen_in.setdefault(item, []).append(route)
    fused = [
        FusedItem(item, score * (bonus if len(seen_in[item]) >= 2 else 1.0), tuple(seen_in[item]))
        for item, score in scores.items()
    ]
    fused.sort(key=lambda entry: -entry.score)
    return fused


def run_temporal_multi_route(
    query: str, retrievers: Mapping[str, Callable[[str], Sequence[str]]]
) -> list[FusedItem]:
    """Detect routes, call the retriever of each detected route, fuse the rankings.

    ``retrievers`` maps a route name to a function returning ranked item ids. Routes without
    a retriever are skipped; a query without temporal cues returns an empty list, so the
    caller can fall back to its ordinary retrieval.
    """
    analysis = detect_temporal_routes(query)
    results: dict[str, list[str]] = {}
    confidences: dict[str, float] = {}
    for route, confidence in analysis.routes.items():
        if route in retrievers:
            results[route] = list(retrievers[route](query))
            confidences[route] = confidence
    return fuse_routes(results, confidences)


_BEFORE: Final = frozenset({"before", "bevor", "vorher", "zuvor"})
_AFTER: Final = frozenset({"after", "nachdem", "danach"})
_EARLIEST: Final = frozenset(
    {"first", "earliest", "erste", "erster", "ersten", "erstes", "erstem", "zuerst"}
)
_LATEST: Final = frozenset(
    {"last", "latest", "letzte", "letzter", "letzten", "letztes", "letztem", "zuletzt"}
)

RelativeDirection = Literal["before", "after", "earliest", "latest"]


def relative_direction(query: str) -> tuple[RelativeDirection, str] | None:
    """The relative cue of ``query`` and the text after it ("after the concert" ->
    ("after", "the concert")), or None."""
    words = fold(check_text(query, "query")).split()
    for position, raw in enumerate(words):
        word = raw.strip(".,;:!?\"'()")
        direction: RelativeDirection | None = None
        if word in _BEFORE:
            direction = "before"
        elif word in _AFTER:
            direction = "after"
        elif word in _EARLIEST:
            direction = "earliest"
        elif word in _LATEST:
            direction = "latest"
        if direction is not None:
            return direction, " ".join(words[position + 1 :])
    return None
