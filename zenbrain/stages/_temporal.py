"""Temporal routing: "before / after / first / last" questions ordered by the memories' time.

The query's temporal cues are detected by
:func:`zenbrain._algorithms.temporal_routing.detect_temporal_routes` and
:func:`~zenbrain._algorithms.temporal_routing.relative_direction` (English and German).
Only the *relative* route changes recall, using each memory's ``created_at``:

- "before X" / "after X" (bevor, nachdem, vorher, danach, zuvor): the anchor is the match
  that best covers the words after the cue (the event X). The memories stored right before
  (or after) the anchor, in the searched layers and context, join the results: the n-th
  nearest in time scores ``weight * route confidence * anchor score / n`` and carries
  ``notes["temporal"] = "before"`` or ``"after"``; matches already present on the asked
  side of the anchor get the same amount added (capped at 1).
- "first / earliest / erste / zuerst" and "last / latest / letzte / zuletzt": each match's
  score is multiplied by ``1 - w + w * f`` with ``w = weight * route confidence`` and ``f``
  running from 1 (the oldest, or the newest) to 0 along the matches in time.

"When" and "how long" questions (the absolute and duration routes) keep the ordinary
ranking: what they ask for is each result's ``created_at``, which every result carries.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from sqlalchemy import select

from zenbrain._algorithms.temporal_routing import (
    RelativeDirection,
    detect_temporal_routes,
    relative_direction,
)
from zenbrain._ranking import lexical_score
from zenbrain._storage.schema import memories
from zenbrain._storage.timestamps import to_db
from zenbrain._validation import check_int, check_positive_fraction
from zenbrain.stages._base import (
    RecallRequest,
    Stage,
    StageConnection,
    StageScope,
    pks_of,
    with_notes,
)
from zenbrain.text import content_tokens, tokenize
from zenbrain.types import SEARCHED_LAYERS, RecallResult

__all__ = ["TemporalStage"]


def _aware(moment: datetime | None) -> datetime:
    if moment is None:
        return datetime.min.replace(tzinfo=UTC)
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


class TemporalStage(Stage):
    """Reorders and extends recall along time for relative temporal questions."""

    name = "temporal"

    def __init__(self, *, weight: float = 0.5, neighbours: int = 3) -> None:
        self.weight = check_positive_fraction(weight, "weight")
        self.neighbours = check_int(neighbours, "neighbours", 0, 1_000)

    def __repr__(self) -> str:
        return f"TemporalStage(weight={self.weight}, neighbours={self.neighbours})"

    def rerank(
        self,
        conn: StageConnection,
        scope: StageScope,
        request: RecallRequest,
        results: list[RecallResult],
    ) -> list[RecallResult]:
        confidence = detect_temporal_routes(request.query).routes.get("relative")
        cue = relative_direction(request.query)
        if not confidence or cue is None or not results:
            return results
        direction, rest = cue
        strength = self.weight * confidence
        if direction in ("earliest", "latest"):
            return self._by_age(results, direction == "earliest", strength)
        return self._around_anchor(conn, scope, request, results, direction, rest, strength)

    @staticmethod
    def _by_age(
        results: list[RecallResult], oldest_first: bool, strength: float
    ) -> list[RecallResult]:
        timed = sorted(results, key=lambda r: _aware(r.created_at), reverse=not oldest_first)
        if len(timed) < 2:
            return results
        fit = {r.id: 1.0 - i / (len(timed) - 1) for i, r in enumerate(timed)}
        rescored = [
            with_notes(
                _rescored(r, r.score * (1.0 - strength + strength * fit[r.id])),
                temporal="earliest" if oldest_first else "latest",
            )
            for r in results
        ]
        rescored.sort(key=lambda r: r.score, reverse=True)
        return rescored

    def _around_anchor(
        self,
        conn: StageConnection,
        scope: StageScope,
        request: RecallRequest,
        results: list[RecallResult],
        direction: RelativeDirection,
        event: str,
        strength: float,
    ) -> list[RecallResult]:
        event_terms = tokenize(event)
        if not event_terms:
            return results
        weights = dict.fromkeys(event_terms, 1.0)
        coverage = [
            (lexical_score(event_terms, content_tokens(r.content), weights), r) for r in results
        ]
        best, anchor = max(coverage, key=lambda item: (item[0], item[1].score))
        if best <= 0 or anchor.layer not in SEARCHED_LAYERS or anchor.created_at is None:
            return results
        layers = [layer for layer in request.layers if layer in SEARCHED_LAYERS]
        anchor_pk = pks_of(conn, scope.namespace, [anchor.id]).get(anchor.id)
        if anchor_pk is None or not layers:
            return results
        moment = to_db(anchor.created_at)
        query = select(memories.c.pk).where(
            memories.c.namespace == scope.namespace,
            memories.c.layer.in_(layers),
            memories.c.pk != anchor_pk,
        )
        if request.context is not None:
            query = query.where(memories.c.context == request.context)
        if direction == "after":
            query = query.where(
                (memories.c.created_at > moment)
                | ((memories.c.created_at == moment) & (memories.c.pk > anchor_pk))
            ).order_by(memories.c.created_at, memories.c.pk)
        else:
            query = query.where(
                (memories.c.created_at < moment)
                | ((memories.c.created_at == moment) & (memories.c.pk < anchor_pk))
            ).order_by(memories.c.created_at.desc(), memories.c.pk.desc())
        nearest = list(conn.execute(query.limit(self.neighbours)).scalars())
        bonus = {int(pk): strength * anchor.score / (rank + 1) for rank, pk in enumerate(nearest)}
        loaded = scope.load_results(conn, bonus)
        by_id = {result.id: result for result in loaded.values()}
        updated: list[RecallResult] = []
        for result in results:
            extra = by_id.pop(result.id, None)
            if extra is None:
                updated.append(result)
            else:
                raised = _rescored(result, min(1.0, result.score + extra.score))
                updated.append(with_notes(raised, temporal=direction))
        updated.extend(
            with_notes(result, temporal=direction) for result in by_id.values() if result.score > 0
        )
        updated.sort(key=lambda r: r.score, reverse=True)
        return updated


def _rescored(result: RecallResult, score: float) -> RecallResult:
    return replace(result, score=round(float(score), 6))
