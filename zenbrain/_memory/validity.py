"""Recall knows what is current: the validity side of a recall, kept out of the ranking.

After the ranking (:mod:`zenbrain._memory.recall`) has scored its candidates, :func:`arrange`

1. keeps only what was valid at ``as_of`` (an aware datetime), or only what is current
   (``current_only``);
2. ranks every replaced memory below what replaced it: the replacement takes the replaced
   memory's score when that is higher (read from the store if the ranking did not find
   it: it answers the same question), and the replaced one drops just below it;
3. among results about the same thing, puts the newer first: it moves just above the older
   one and takes its score, when it scores at least :data:`NEWER_SHARE` of it. "The same
   thing": sharing most (:data:`SAME_THING_SHARE`) of the question's words the older one
   matches, a conversation turn's speaker not counted, or a third (:data:`CHANGE_SHARE`;
   two words at least) when the newer one says that something changed and gives a value
   ("has now reached 165").
   Not for a question asking for the earliest ("when did I first ...", "zuerst");
4. prefers memories from the time the question names ("last Tuesday", "im März": see
   :mod:`zenbrain.layers._time_expressions`) or the caller's ``time_range``: when some match
   lies in that span, the span's matches score in the upper half of 0..1 and the others in
   the lower half, each in the ranking's order.

Scores stay in 0..1 and keep their order within what each step compares: steps 2 and 3
only move a score between scores the ranking gave; step 4 maps them linearly.
"""

from __future__ import annotations

import re
from collections import ChainMap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import Connection

from zenbrain._memory.results import to_result
from zenbrain._memory.scope import MemoryScope
from zenbrain._storage import validity as storage
from zenbrain.layers._supersession import states_change
from zenbrain.layers._time_expressions import TimeRange, asks_about_the_past, time_range_in
from zenbrain.operations import RecallQuery
from zenbrain.text import content_tokens, tokenize, words
from zenbrain.types import RecallResult

__all__ = [
    "CHANGE_SHARE",
    "NEWER_SHARE",
    "SAME_THING_SHARE",
    "TIME_BOOST",
    "ValidityOptions",
    "arrange",
    "options_of",
]

#: A newer result about the same thing moves above an older one it scores this share of.
NEWER_SHARE = 0.5
#: "The same thing": at least this many question words shared, and this share of the words
#: the older result matches.
SAME_THING_WORDS = 2
SAME_THING_SHARE = 0.8
#: ... or this share, when the newer one says that something changed and gives a value
#: ("has now reached 165", "rescheduled to 4:30 PM": :func:`states_change`).
CHANGE_SHARE = 1 / 3
#: Layers whose results never move and are never passed by a newer one.
_FIXED = ("core", "working")
#: When the question names a time, its matches score from this up, the others below it.
TIME_BOOST = 0.5
#: A replaced memory ranks at this share of its replacement's score, at most.
DEMOTION = 0.9
#: How far recall reads past ``limit`` when results may be left out or pulled up.
WIDENING = 3
LOOKAHEAD = 1
_MAX_CHAIN = 20
# A question asking for the earliest ("when did I first ...", "zuerst") is not about what is
# current: the newer-first step leaves it alone.
_EARLIEST = frozenset(
    [
        "first",
        "earliest",
        "originally",
        "initially",
        "oldest",
        "previously",
        "zuerst",
        "erste",
        "ersten",
        "erstes",
        "erstmals",
        "anfangs",
        "urspruenglich",
        "frueher",
    ]
)
_SPEAKER = re.compile(r"^\s*([A-ZÄÖÜ][\w .'-]{0,40}?)\s*:\s")


@dataclass(frozen=True, slots=True)
class ValidityOptions:
    """One recall's validity arguments, checked."""

    current_only: bool = False
    as_of: datetime | None = None
    time_range: TimeRange | None = None
    terms: tuple[str, ...] = ()
    newer_first: bool = True  # False when the question asks for the earliest

    def search_limit(self, limit: int) -> int:
        """How many results per layer the ranking should keep for :func:`arrange`: more
        than ``limit`` when memories may be left out, so that they leave no gap. Otherwise
        ``limit``: reading past the cut for newer memories, or for memories of the time the
        question names, was measured and lowered recall@10 (docs/guide/knowledge-updates.md),
        so those steps only reorder what the ranking found."""
        filtering = self.current_only or self.as_of is not None
        return min(1000, limit * (WIDENING if filtering else LOOKAHEAD))


def options_of(q: RecallQuery, now: datetime) -> ValidityOptions:
    """A recall's validity options; without ``time_range`` the time named in the question
    (if any), resolved against ``as_of`` or ``now`` (the coordinator's clock), is used."""
    span = q.time_range or time_range_in(q.query, q.as_of or now)
    # A question about the earliest, or about what was said then (past tense, nothing
    # current named), is answered by the memory that says it, not by the newest.
    asks_earliest = not _EARLIEST.isdisjoint(words(q.query)) or asks_about_the_past(q.query)
    return ValidityOptions(
        q.current_only, q.as_of, span, tuple(tokenize(q.query)), not asks_earliest
    )


def _valid_at(result: RecallResult, moment: datetime) -> bool:
    start = result.valid_from or result.created_at
    if start is None:  # working memory: a copy made now, not part of the past
        return False
    return start <= moment and (result.valid_to is None or result.valid_to > moment)


def arrange(
    scope: MemoryScope,
    conn: Connection,
    results: Sequence[RecallResult],
    options: ValidityOptions,
) -> list[RecallResult]:
    """``results`` (best first) filtered and reordered as the module docstring says."""
    moment = options.as_of
    kept = list(results)
    if moment is not None:
        kept = [r for r in kept if _valid_at(r, moment)]
    elif options.current_only:
        kept = [r for r in kept if r.valid_to is None]
    kept = _below_replacements(scope, conn, kept, moment)
    if options.newer_first:
        kept = _newer_first(kept, set(options.terms))
    if options.time_range is not None:
        kept = _prefer_time(kept, options.time_range)
    # Stable: a moved result stays first. At equal scores (fill-ins score 0) what is
    # current comes before what was replaced.
    kept.sort(key=lambda r: (r.score, not _replaced(r, moment)), reverse=True)
    return kept


def _replaced(result: RecallResult, moment: datetime | None) -> bool:
    if result.superseded_by is None or result.valid_to is None:
        return False
    return moment is None or result.valid_to <= moment


def _below_replacements(
    scope: MemoryScope,
    conn: Connection,
    results: list[RecallResult],
    moment: datetime | None,
) -> list[RecallResult]:
    if not any(_replaced(r, moment) for r in results):
        return results
    by_id = {r.id: r for r in results}
    # Every chain's later versions, read at once (two statements, however long they are).
    chains = {
        memory_id: to_result(row, 0.0)
        for memory_id, row in storage.successors(
            conn,
            scope.namespace,
            [r.id for r in results if _replaced(r, moment) and r.score > 0],
            _MAX_CHAIN,
        ).items()
    }
    known = ChainMap(by_id, chains)  # the results as rescored so far, then their chains
    for position, result in enumerate(list(results)):
        if not _replaced(result, moment) or result.score <= 0:
            continue
        successor = _current_successor(result, known, moment)
        if successor is None:
            continue
        if successor.id not in by_id or by_id[successor.id].score < result.score:
            successor = replace(successor, score=max(successor.score, result.score))
            by_id[successor.id] = successor
        demoted = min(result.score, round(by_id[successor.id].score * DEMOTION, 6))
        by_id[result.id] = replace(results[position], score=demoted)
    return list(by_id.values())


def _current_successor(
    result: RecallResult, known: Mapping[str, RecallResult], moment: datetime | None
) -> RecallResult | None:
    """The memory that replaced ``result`` and was still valid (at ``moment``, or now),
    followed through ``known`` (the results and their chains' later versions)."""
    current = result
    for _ in range(_MAX_CHAIN):
        if not _replaced(current, moment) or current.superseded_by is None:
            return current if current is not result else None
        following = known.get(current.superseded_by)
        if following is None:
            return None
        current = following
    return None


def _same_thing(newer: frozenset[str], older: frozenset[str], share: float) -> bool:
    """The newer result answers the same part of the question as the older (higher-ranked)
    one: they share at least two of its words, and ``share`` of the words the older matches
    (a word only the older one has, like the "beta" of "beta batch item 140", says they are
    about different things)."""
    shared = len(newer & older)
    return shared >= SAME_THING_WORDS and shared >= share * len(older)


class _Moving:
    """A result that may move up: its matched question words, and (read when needed)
    whether it says that something changed."""

    __slots__ = ("_changes", "result", "words")

    def __init__(self, result: RecallResult, words: frozenset[str]) -> None:
        self.result = result
        self.words = words
        self._changes: bool | None = None

    def answers_same_as(self, older_words: frozenset[str]) -> bool:
        if _same_thing(self.words, older_words, SAME_THING_SHARE):
            return True
        if not _same_thing(self.words, older_words, CHANGE_SHARE):
            return False
        if self._changes is None:
            self._changes = states_change(self.result.content)
        return self._changes


def _matched_words(result: RecallResult, terms: set[str]) -> frozenset[str]:
    words = frozenset(terms.intersection(content_tokens(result.content)))
    speaker = _SPEAKER.match(result.content)
    if speaker:  # a conversation turn's speaker is in half the turns: no evidence
        words = words.difference(content_tokens(speaker.group(1)))
    return words


#: A newer result passes an older one only when it is at most this many times as long: in a
#: long chat about one project almost every long turn shares the question's words, and the
#: newest ones would push the best matches out (docs/benchmarks.md, "Recall on long
#: conversations": BEAM's session recall@5 0.387 -> 0.508, latest-first unchanged).
NEWER_LENGTH = 2


def _newer_first(results: list[RecallResult], terms: set[str]) -> list[RecallResult]:
    """A newer result about the same thing as an older one ranked above it (and scoring at
    least :data:`NEWER_SHARE` of its score) moves just above it, taking its score; the
    results in between keep theirs. Replaced memories, core blocks and working memory
    never move, and are never passed. Layers do not matter: they are one ranking."""
    ranked = sorted(results, key=lambda r: r.score, reverse=True)
    if not terms or len(ranked) < 2:
        return ranked
    placed: list[RecallResult] = []
    matched: list[frozenset[str]] = []
    for result in ranked:
        moving = _Moving(result, _matched_words(result, terms))
        spot = None
        if result.score > 0 and result.layer not in _FIXED and result.superseded_by is None:
            for position, (other, other_words) in enumerate(zip(placed, matched, strict=True)):
                if (
                    other.layer not in _FIXED
                    and other.score > 0
                    and result.score >= other.score * NEWER_SHARE
                    and _time(result) > _time(other)
                    and len(result.content) <= NEWER_LENGTH * len(other.content)
                    and moving.answers_same_as(other_words)
                ):
                    spot = position
                    break
        if spot is None:
            placed.append(result)
            matched.append(moving.words)
        else:
            placed.insert(spot, replace(result, score=placed[spot].score))
            matched.insert(spot, moving.words)
    return placed


def _time(result: RecallResult) -> datetime:
    return result.valid_from or result.created_at or datetime.min.replace(tzinfo=None)


def _prefer_time(results: list[RecallResult], span: TimeRange) -> list[RecallResult]:
    """Matches from the span first: their scores map onto the upper half of 0..1, the
    others' onto the lower half (each group keeps its order). Without a match in the span
    nothing changes."""
    start, end = span

    def inside(r: RecallResult) -> bool:
        return r.score > 0 and r.created_at is not None and start <= r.created_at < end

    if not any(inside(r) for r in results):
        return results
    return [
        replace(r, score=round(TIME_BOOST + (1 - TIME_BOOST) * r.score, 6))
        if inside(r)
        else replace(r, score=round(TIME_BOOST * r.score, 6))
        for r in results
    ]
