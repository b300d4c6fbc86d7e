"""Spaced review of semantic facts (FSRS) and success feedback on procedures."""

from __future__ import annotations

from datetime import datetime

from zenbrain import _validation as check
from zenbrain._memory.scope import MemoryScope
from zenbrain._storage.timestamps import from_db
from zenbrain.errors import InvalidInputError
from zenbrain.layers import _semantic as fsrs_review
from zenbrain.layers._procedural import update_success_rate
from zenbrain.types import ReviewItem

__all__ = ["procedure_feedback", "record_review", "review_queue"]


def review_queue(scope: MemoryScope, limit: int) -> list[ReviewItem]:
    """Facts due for review now, most overdue first."""
    limit = check.check_int(limit, "limit", 1, 10_000)
    with scope.lock, scope.repo.read() as conn:
        rows = scope.repo.due_facts(conn, scope.now(), limit)
    return [
        ReviewItem(
            id=row.id,
            content=row.content,
            confidence=float(row.confidence),
            due=from_db(row.due),
            stability=row.card.get("stability"),
            difficulty=row.card.get("difficulty"),
        )
        for row in rows
    ]


def record_review(scope: MemoryScope, fact_id: str, grade: int) -> ReviewItem:
    grade = check.check_int(grade, "grade", 1, 4)
    if not isinstance(fact_id, str) or not fact_id:
        raise InvalidInputError(f"fact_id must be the id of a semantic fact, got {fact_id!r}")
    check.check_storable(fact_id, "fact_id")
    with scope.lock:
        now = scope.now()
        with scope.repo.write() as conn:
            row = scope.repo.fact(conn, fact_id)
            if row is None:
                raise InvalidInputError(f"no semantic fact with id {fact_id!r} in this namespace")
            card = fsrs_review.review(row.card, grade, now)
            due = datetime.fromisoformat(card["due"])
            scope.repo.reschedule(conn, int(row.pk), card, due, now)
    return ReviewItem(
        id=row.id,
        content=row.content,
        confidence=float(row.confidence),
        due=due,
        stability=card.get("stability"),
        difficulty=card.get("difficulty"),
    )


def procedure_feedback(scope: MemoryScope, id: str, success: bool) -> float:
    """Record whether following a procedure worked; returns the new success rate."""
    if not isinstance(success, bool):
        raise InvalidInputError(f"success must be True or False, got {success!r}")
    if isinstance(id, str):
        check.check_storable(id, "id")
    with scope.lock, scope.repo.write() as conn:
        row = scope.repo.row(conn, id, "procedural") if isinstance(id, str) else None
        if row is None:
            raise InvalidInputError(f"no procedure with id {id!r} in this namespace")
        rate, count = update_success_rate(
            float(row.success_rate), int(row.execution_count), success
        )
        scope.repo.set_procedure_stats(conn, int(row.pk), rate, count)
    return rate
