"""A memory on its way into the store, and the one rule for what text is indexed for a
memory: a procedure's words and vector are its rendered steps, a core block's are its label
and content, any other memory's are its content."""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import Row

from zenbrain.layers._procedural import render_procedure

__all__ = ["NewMemory", "content_hash", "indexed_text", "new_memory_id", "row_indexed_text"]


def content_hash(content: str) -> int:
    """A memory's content as a signed 64-bit integer (BLAKE2b), stored beside it and indexed
    in its place: looking up exact content then reads an index of 8-byte keys instead of an
    index holding every memory's text a second time. Callers compare the content itself
    too, so a collision can never match the wrong memory."""
    digest = hashlib.blake2b(content.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def new_memory_id() -> str:
    """A fresh memory id: a UUID of version 7 (RFC 9562) as 32 hex digits. Its leading 48
    bits are the time in milliseconds, so ids made one after another sort together and a
    batch's inserts land on the same few pages of the id index instead of one random page
    each (UUID4 ids made every insert of a 100k store touch a new page)."""
    value = (time.time_ns() // 1_000_000) << 80 | int.from_bytes(os.urandom(10), "big")
    value = value & ~(0xF << 76) | 0x7 << 76  # version 7
    value = value & ~(0x3 << 62) | 0x2 << 62  # the RFC variant
    return f"{value:032x}"


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
    conversation: str | None = None
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
    # A fact's first review card (FSRS), decided by the store pipeline; storage writes it.
    schedule: dict[str, Any] | None = None
    valid_from: datetime | None = None  # None: from created_at
    supersedes: list[str] = field(default_factory=list)  # ids this memory closes
    # Ids a resolver said this memory replaces, asked before the write (None: the rules
    # decide, as they do when no resolver is configured or its answer was unusable).
    resolved: list[str] | None = None
    folded: list[str] | None = None  # words(content), kept from preparing it
    id: str = field(default_factory=new_memory_id)

    @property
    def indexed_text(self) -> str:
        return indexed_text(
            self.layer, self.content, steps=self.steps, outcome=self.outcome, label=self.label
        )
