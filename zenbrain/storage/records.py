"""A memory on its way into the store, and the one rule for what text is indexed for a
memory: a procedure's words and vector are its rendered steps, a core block's are its label
and content, any other memory's are its content."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import Row

from zenbrain.layers.procedural import render_procedure

__all__ = ["NewMemory", "indexed_text", "row_indexed_text"]


def indexed_text(
    layer: str,
    content: str,
    *,
    steps: Sequence[str] = (),
    outcome: str = "",
    label: str | None = None,
) -> str:
    """The text whose words and vector stand for a memory in the indexes."""
    if layer == "procedural":
        return render_procedure(content, list(steps), outcome)
    if layer == "core" and label:
        return f"{label} {content}"
    return content


def row_indexed_text(row: Row[Any]) -> str:
    """:func:`indexed_text` of a row of :meth:`Repository.memory_query`."""
    return indexed_text(
        row.layer,
        str(row.content),
        steps=list(row.steps or []),
        outcome=row.outcome or "",
        label=row.label,
    )


@dataclass(slots=True)
class NewMemory:
    """One validated memory on its way into the store."""

    content: str
    layer: str
    context: str | None = None
    emotional_weight: float | None = None
    confidence: float | None = None
    source: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: datetime | None = None
    steps: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    outcome: str = ""
    label: str | None = None
    vector: np.ndarray | None = None
    terms: list[str] | None = None  # tokenize(indexed_text), when worked out before the write
    id: str = field(default_factory=lambda: uuid.uuid4().hex)

    @property
    def indexed_text(self) -> str:
        return indexed_text(
            self.layer, self.content, steps=self.steps, outcome=self.outcome, label=self.label
        )
