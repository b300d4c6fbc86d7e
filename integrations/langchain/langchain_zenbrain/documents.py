"""Turning zenbrain recall results into LangChain ``Document`` objects."""

from __future__ import annotations

from typing import Any

from langchain_core.documents import Document

from zenbrain.types import RecallResult

__all__ = ["ZENBRAIN_METADATA_KEYS", "recall_result_to_document"]

#: Metadata keys the retriever sets from the recall result itself. They take precedence over
#: keys of the same name in the memory's own metadata, because they describe this recall.
ZENBRAIN_METADATA_KEYS = (
    "id",
    "layer",
    "score",
    "confidence",
    "emotional_weight",
    "created_at",
    "valid_from",
    "valid_to",
    "superseded_by",
)


def recall_result_to_document(result: RecallResult) -> Document:
    """One recalled memory as a ``Document``: content as page content, the memory id as the
    document id, zenbrain's fields (and the memory's own metadata) as metadata."""
    metadata: dict[str, Any] = dict(result.metadata)
    metadata.update(
        id=result.id,
        layer=result.layer,
        score=result.score,
        confidence=result.confidence,
        emotional_weight=result.emotional_weight,
        created_at=result.created_at.isoformat() if result.created_at is not None else None,
        valid_from=result.valid_from.isoformat() if result.valid_from is not None else None,
        valid_to=result.valid_to.isoformat() if result.valid_to is not None else None,
        superseded_by=result.superseded_by,
    )
    return Document(id=result.id, page_content=result.content, metadata=metadata)
