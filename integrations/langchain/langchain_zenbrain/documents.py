"""Turning zenbrain recall results into LangChain ``Document`` objects."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from langchain_core.documents import Document

from zenbrain.types import RecallResult

__all__ = ["ZENBRAIN_METADATA_KEYS", "recall_result_to_document"]

#: Keys the retriever adds to a document's metadata from the recall result itself. The
#: memory's own metadata comes first and is never overwritten: a key it already uses keeps
#: the caller's value (read zenbrain's from ``coordinator.get(document.id)``).
ZENBRAIN_METADATA_KEYS = (
    "id",
    "layer",
    "score",
    "confidence",
    "emotional_weight",
    "context",
    "conversation",
    "source",
    "created_at",
    "valid_from",
    "valid_to",
    "superseded_by",
)


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def recall_result_to_document(result: RecallResult) -> Document:
    """One recalled memory as a ``Document``: content as page content, the memory id as the
    document id, the memory's own metadata as given, and zenbrain's fields beside it."""
    fields = {
        "id": result.id,
        "layer": result.layer,
        "score": result.score,
        "confidence": result.confidence,
        "emotional_weight": result.emotional_weight,
        "context": result.context,
        "conversation": result.conversation,
        "source": result.source,
        "created_at": _iso(result.created_at),
        "valid_from": _iso(result.valid_from),
        "valid_to": _iso(result.valid_to),
        "superseded_by": result.superseded_by,
    }
    metadata: dict[str, Any] = {**fields, **result.metadata}
    return Document(id=result.id, page_content=result.content, metadata=metadata)
