"""Recall knows what is current: the validity side of a recall, kept out of the ranking.

After the ranking (:mod:`zenbrain.memory.recall`) has scored its candidates, :func:`arrange`

1. keeps only what was valid at ``as_of`` (an aware datetime), or only what is current
   (``current_only``);
2. ranks every replaced memory below what replaced it: the replacement takes the replaced
   memory's score when that is higher (read from the store if the ranking did not find
   it: it answers the same question), and the replaced one drops just below it;
3. among near-duplicates (results matching the same query words, with scores within
   :data:`NEAR_TIE` of each other) puts the newer first, by giving the group's scores to its
   members newest first;
4. prefers memories from the time the question names ("last Tuesday", "im März": see
   :mod:`zenbrain.layers.time_expressions`) or the caller's ``time_range``: their scores
   are raised by :data:`TIME_BOOST` of the distance to 1.

Scores stay in 0..1 and keep their meaning: every step only moves a score between scores
the ranking gave, or towards 1 by a fixed share.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import Connection

from zenbrain.errors import InvalidInputError
from zenbrain.layers.time_expressions import TimeRange, time_range_in
from zenbrain.memory.results import to_result
from zenbrain.memory.scope import MemoryScope
from zenbrain.storage import validity as storage
from zenbrain.text import content_tokens, tokenize
from zenbrain.types import RecallResult

__all__ = ["NEAR_TIE", "TIME_BOOST", "ValidityOptions", "arrange", "check_options"]

#: Two results whose scores differ by less than this share of the higher are near-equal.
NEAR_TIE = 0.15
#: A memory of the time the question names gains this share of its distance to score 1.
TIME_BOOST = 0.5
#: A replaced memory ranks at this share of its replacement's score, at most.
DEMOTION = 0.9
#: How far recall reads past ``limit`` when results may be left out or pulled up.
WIDENING = 3
_MAX_CHAIN = 20


@dataclass(frozen=True, slots=True)
class ValidityOptions:
    """One recall's validity arguments, checked."""

    current_only: bool = False
    as_of: datetime | None = None
    time_range: TimeRange | None = None
    terms: tuple[str, ...] = ()

    def search_limit(self, limit: int) -> int:
        """How many results per layer the ranking should keep for :func:`arrange`."""
        filtering = self.current_only or self.as_of is not None or self.time_range is not None
        return min(1000, limit * WIDENING) if filtering else limit


def _aware(value: object, name: str) -> datetime:
    if not isinstance(value, datetime) or value.tzinfo is None:
        raise InvalidInputError(
            f"{name} must be an aware datetime (with a time zone, e.g. "
            f"datetime(2025, 3, 1, tzinfo=UTC)), got {value!r:.60}"
        )
    return value


def check_options(
    query: str,
    now: datetime,
    *,
    current_only: object = False,
    as_of: object = None,
    time_range: object = None,
) -> ValidityOptions:
    """Check ``recall``'s validity arguments; without ``time_range`` the time named in the
    question (if any), resolved against ``now`` (the coordinator's clock), is used."""
    if not isinstance(current_only, bool):
        raise InvalidInputError(f"current_only must be True or False, got {current_only!r:.40}")
    moment = None if as_of is None else _aware(as_of, "as_of")
    span: TimeRange | None
    if time_range is not None:
        if not isinstance(time_range, tuple | list) or len(time_range) != 2:
            raise InvalidInputError(
                f"time_range must be a (start, end) pair of aware datetimes, got {time_range!r:.80}"
            )
        start, end = (_aware(value, "time_range") for value in time_range)
        if end <= start:
            raise InvalidInputError(f"time_range must end after it starts, got {start} .. {end}")
        span = (start, end)
    else:
        span = time_range_in(query, moment or now)
    return ValidityOptions(current_only, moment, span, tuple(tokenize(query)))


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
    kept = _newer_first(kept, set(options.terms))
    if options.time_range is not None:
        kept = _prefer_time(kept, options.time_range)
    kept.sort(key=lambda r: r.score, reverse=True)
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
    for position, result in enumerate(list(results)):
        if not _replaced(result, moment) or result.score <= 0:
            continue
        successor = _current_successor(scope, conn, result, by_id, moment)
        if successor is None:
            continue
        if successor.id not in by_id or by_id[successor.id].score < result.score:
            successor = replace(successor, score=max(successor.score, result.score))
            by_id[successor.id] = successor
        demoted = min(result.score, round(by_id[successor.id].score * DEMOTION, 6))
        by_id[result.id] = replace(results[position], score=demoted)
    return list(by_id.values())


def _current_successor(
    scope: MemoryScope,
    conn: Connection,
    result: RecallResult,
    known: dict[str, RecallResult],
    moment: datetime | None,
) -> RecallResult | None:
    """The memory that replaced ``result`` and was still valid (at ``moment``, or now)."""
    current = result
    for _ in range(_MAX_CHAIN):
        if not _replaced(current, moment) or current.superseded_by is None:
            return current if current is not result else None
        following = current.superseded_by
        if following in known:
            current = known[following]
            continue
        row = storage.rows_by_id(conn, scope.namespace, [following]).get(following)
        if row is None:
            return None
        current = to_result(row, 0.0)
    return None


def _newer_first(results: list[RecallResult], terms: set[str]) -> list[RecallResult]:
    """Near-duplicates for this query (the same query words matched, near-equal scores):
    their scores go to them newest first."""
    ranked = sorted(results, key=lambda r: r.score, reverse=True)
    groups: list[list[RecallResult]] = []
    keys: list[frozenset[str]] = []
    for result in ranked:
        if result.score <= 0 or result.layer in ("core", "working") or not terms:
            groups.append([result])
            keys.append(frozenset())
            continue
        matched = frozenset(terms.intersection(content_tokens(result.content)))
        for group, key in zip(groups, keys, strict=True):
            head = group[0]
            if (
                key == matched
                and key
                and head.layer == result.layer
                and result.score >= head.score * (1 - NEAR_TIE)
            ):
                group.append(result)
                break
        else:
            groups.append([result])
            keys.append(matched)
    arranged: list[RecallResult] = []
    for group in groups:
        if len(group) == 1:
            arranged.extend(group)
            continue
        scores = sorted((r.score for r in group), reverse=True)
        newest = sorted(group, key=_time, reverse=True)
        arranged.extend(replace(r, score=s) for r, s in zip(newest, scores, strict=True))
    return arranged


def _time(result: RecallResult) -> datetime:
    return result.valid_from or result.created_at or datetime.min.replace(tzinfo=None)


def _prefer_time(results: list[RecallResult], span: TimeRange) -> list[RecallResult]:
    start, end = span
    return [
        replace(r, score=round(r.score + (1 - r.score) * TIME_BOOST, 6))
        if r.score > 0 and (when := r.created_at) is not None and start <= when < end
        else r
        for r in results
    ]
