"""Core memory: labelled blocks, always recalled, upserted by label with the database's
own INSERT .. ON CONFLICT (see :meth:`~zenbrain._storage.repository.Repository.upsert_core`)."""

from __future__ import annotations

from zenbrain import _validation as check
from zenbrain._memory import store as store_pipeline
from zenbrain._memory.scope import MemoryScope
from zenbrain._storage.records import NewMemory
from zenbrain._storage.timestamps import from_db
from zenbrain.layers import validate_label
from zenbrain.stages import forget_stage_rows
from zenbrain.types import CoreBlock

__all__ = ["core_blocks", "core_context", "delete_core_block", "set_core_block"]


def set_core_block(scope: MemoryScope, label: str, content: str) -> CoreBlock:
    label = validate_label(label)
    text = check.check_content(content)
    now = scope.now()
    item = NewMemory(content=text, layer="core", confidence=1.0, created_at=now, label=label)
    store_pipeline.embed(scope, [item])
    with scope.lock, scope.repo.write() as conn:
        block_id = store_pipeline.write(scope, conn, [item], now)[0]
    return CoreBlock(id=block_id, label=label, content=text, pinned=True, updated_at=now)


def core_blocks(scope: MemoryScope) -> list[CoreBlock]:
    """Every core block, by label."""
    with scope.lock, scope.repo.read() as conn:
        rows = scope.repo.core_rows(conn)
    return [
        CoreBlock(
            id=row.id,
            label=row.label,
            content=row.content,
            pinned=bool(row.pinned),
            updated_at=from_db(row.updated_at),
        )
        for row in rows
    ]


def delete_core_block(scope: MemoryScope, label: str) -> bool:
    """Delete the block ``label``; False when there is none."""
    label = validate_label(label)
    with scope.lock:
        with scope.repo.write() as conn:
            rows = scope.repo.core_rows(conn, label)
            if not rows:
                return False
            forget_stage_rows(conn, scope.namespace, [int(rows[0].pk)])
            scope.repo.delete(conn, [int(rows[0].pk)])
        scope.working.remove_copies_of({str(rows[0].id)}, set())
    return True


def core_context(scope: MemoryScope) -> str:
    """The core blocks as ``[label]: content`` lines, ready for a system prompt."""
    return "\n".join(f"[{block.label}]: {block.content}" for block in core_blocks(scope))
