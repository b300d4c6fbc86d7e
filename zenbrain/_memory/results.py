"""Stored rows as the :class:`~zenbrain.types.RecallResult` the public API returns."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Row

from zenbrain._storage.records import row_indexed_text
from zenbrain._storage.timestamps import from_db
from zenbrain.types import Procedure, RecallResult

__all__ = ["to_result"]


def to_result(row: Row[Any], score: float) -> RecallResult:
    """A row of :meth:`~zenbrain._storage.repository.Repository.memory_query` as a result:
    the caller's metadata as stored, zenbrain's fields beside it (a procedure's content is
    its rendered steps, its confidence its success rate)."""
    confidence = row.confidence
    content = row.content
    procedure = None
    if row.layer == "procedural":
        procedure = Procedure(
            steps=list(row.steps or []),
            tools=list(row.tools or []),
            outcome=row.outcome or "",
            success_rate=row.success_rate,
            execution_count=row.execution_count,
        )
        confidence = row.success_rate
        content = row_indexed_text(row)
    core = row.layer == "core"
    return RecallResult(
        id=row.id,
        layer=row.layer,
        content=content,
        score=round(float(score), 6),
        confidence=confidence,
        emotional_weight=row.emotional_weight,
        metadata=dict(row.metadata or {}),
        created_at=from_db(row.created_at),
        valid_from=from_db(row.valid_from or row.created_at),
        valid_to=None if row.valid_to is None else from_db(row.valid_to),
        superseded_by=row.superseded_by,
        context=row.context,
        conversation=row.conversation,
        namespace=row.namespace,
        source=row.source if row.layer == "semantic" else None,
        label=row.label if core else None,
        pinned=bool(row.pinned) if core else None,
        procedure=procedure,
    )
