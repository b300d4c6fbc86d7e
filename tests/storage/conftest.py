"""Fixtures for the storage tests that write index rows directly."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime

import pytest
from sqlalchemy import Connection

from zenbrain._storage.indexes import IndexedText
from zenbrain._storage.records import content_hash
from zenbrain._storage.schema import memories

InsertMemories = Callable[[Connection, Sequence[IndexedText]], None]


def _insert_memories(conn: Connection, rows: Sequence[IndexedText]) -> None:
    now = datetime.now(UTC).replace(tzinfo=None)
    conn.execute(
        memories.insert(),
        [
            {
                "pk": row.pk,
                "id": f"m{row.pk}",
                "namespace": row.namespace,
                "layer": row.layer,
                "context": row.context,
                "content": " ".join(row.terms),
                "content_hash": content_hash(" ".join(row.terms)),
                "metadata": {},
                "created_at": now,
                "updated_at": now,
            }
            for row in rows
        ],
    )


@pytest.fixture
def insert_memories() -> InsertMemories:
    """Writes the parent rows of index rows a test adds itself (PostgreSQL's lexical index
    references zb_memories): ``insert_memories(conn, rows)``."""
    return _insert_memories
