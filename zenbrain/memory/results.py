"""Stored rows as the :class:`~zenbrain.types.RecallResult` the public API returns."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Row

from zenbrain.storage.records import row_indexed_text
from zenbrain.storage.timestamps import from_db
from zenbrain.types import RecallResult

__all__ = ["to_result"]


def to_result(row: Row[Any], score: float, *, subtree: bool = False) -> RecallResult:
    """A row of :meth:`~zenbrain.storage.repository.Repository.memory_query` as a result:
    layer fields go into ``metadata`` (a procedure's content is its rendered steps); a
    result of a subtree read also names its ``namespace`` there."""
    meta: dict[str, Any] = dict(row.metadata or {})
    if subtree:
        meta.setdefault("namespace", row.namespace)
    if row.context is not None:
        meta.setdefault("context", row.context)
    confidence = row.confidence
    content = row.content
    if row.layer == "semantic":
        meta.setdefault("source", row.source)
    elif row.layer == "procedural":
        meta.update(
            steps=list(row.steps or []),
            tools=list(row.tools or []),
            outcome=row.outcome,
            success_rate=row.success_rate,
            execution_count=row.execution_count,
        )
        confidence = row.success_rate
        content = row_indexed_text(row)
    elif row.layer == "core":
        meta.update(label=row.label, pinned=bool(row.pinned))
    return RecallResult(
        id=row.id,
        layer=row.layer,
        content=content,
        score=round(float(score), 6),
        confidence=confidence,
        emotional_weight=row.emotional_weight,
        metadata=meta,
        created_at=from_db(row.created_at),
        valid_from=from_db(row.valid_from or row.created_at),
        valid_to=None if row.valid_to is None else from_db(row.valid_to),
        superseded_by=row.superseded_by,
    )
