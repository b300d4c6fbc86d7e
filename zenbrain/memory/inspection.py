"""Looking into a store without changing it: where a memory came from, and what a forget
would take with it. The HTTP API's provenance and dry-run forget (:mod:`zenbrain.server`)
read them from here (why a result scored what it did: ``recall(..., explain=True)``).
"""

from __future__ import annotations

from typing import Any

from zenbrain import _validation as check
from zenbrain.layers.episodic import CONSOLIDATION_BATCH, CONSOLIDATION_WEIGHT
from zenbrain.memory.scope import MemoryScope
from zenbrain.storage.timestamps import from_db
from zenbrain.types import FORGETTABLE_LAYERS, ForgetResult

__all__ = [
    "consolidation_links_of",
    "forget_preview",
    "promotable_episodes",
    "provenance",
]


def consolidation_links_of(scope: MemoryScope, memory_id: str) -> dict[str, list[str]]:
    """``consolidated_from``: the episodes a fact was made from; ``consolidated_into``: the
    facts made from an episode."""
    with scope.lock, scope.repo.read() as conn:
        return {
            "consolidated_from": scope.repo.linked_ids(conn, memory_id, of_episode=False),
            "consolidated_into": scope.repo.linked_ids(conn, memory_id, of_episode=True),
        }


def promotable_episodes(scope: MemoryScope) -> list[str]:
    """The ids of the episodes the next :meth:`~zenbrain.MemoryCoordinator.consolidate`
    would promote, newest first."""
    with scope.lock, scope.repo.read() as conn:
        rows = scope.repo.unpromoted_episodes(conn, CONSOLIDATION_WEIGHT, CONSOLIDATION_BATCH)
    return [str(row.id) for row in rows]


def provenance(scope: MemoryScope, memory_id: str) -> dict[str, Any] | None:
    """Where a long-term memory came from and what became of it: its source, the
    consolidation links both ways, and (for a fact) its FSRS card and due date. None when
    this namespace has no such memory."""
    if not isinstance(memory_id, str) or not memory_id or len(memory_id) > 200:
        return None
    with scope.lock, scope.repo.read() as conn:
        row = scope.repo.row(conn, memory_id)
        if row is None:
            return None
        fact = scope.repo.fact(conn, memory_id) if row.layer == "semantic" else None
        links = {
            "consolidated_from": scope.repo.linked_ids(conn, memory_id, of_episode=False),
            "consolidated_into": scope.repo.linked_ids(conn, memory_id, of_episode=True),
        }
    card = None
    if fact is not None:
        card = {"due": from_db(fact.due).isoformat(), "card": dict(fact.card or {})}
    return {
        "id": memory_id,
        "layer": str(row.layer),
        "source": row.source if row.layer == "semantic" else None,
        **links,
        "review": card,
    }


def forget_preview(scope: MemoryScope, memory_id: str, layer: str) -> ForgetResult:
    """What :meth:`~zenbrain.MemoryCoordinator.forget` would delete, without deleting:
    ``forgotten`` says whether the memory exists."""
    layer = check.check_layer(layer, FORGETTABLE_LAYERS, aliases=True)
    if not isinstance(memory_id, str) or not memory_id:
        return ForgetResult(forgotten=False)
    with scope.lock:
        if layer == "working":
            present = any(slot.id == memory_id for slot in scope.working.slots())
            return ForgetResult(forgotten=present)
        repo = scope.repo
        with repo.read() as conn:
            target = repo.row(conn, memory_id, layer)
            if target is None:
                return ForgetResult(forgotten=False)
            linked: list[Any] = []
            if layer in ("episodic", "semantic"):
                other = "semantic" if layer == "episodic" else "episodic"
                ids = repo.linked_ids(conn, memory_id, of_episode=layer == "episodic")
                linked = [row for i in ids if (row := repo.row(conn, i, other))]
            doomed = [target, *linked]
            doomed_ids = {str(row.id) for row in doomed}
            contents = {str(row.content) for row in doomed}
            duplicates = repo.same_content(conn, contents, list(doomed_ids))
        copies = [
            slot
            for slot in scope.working.slots()
            if slot.source_id in doomed_ids or slot.content in contents
        ]
    also = [{"id": str(row.id), "layer": str(row.layer)} for row in linked]
    also += [{"id": slot.id, "layer": "working"} for slot in copies]
    return ForgetResult(
        forgotten=True,
        also_forgotten=also,
        duplicates=[{"id": str(r.id), "layer": str(r.layer)} for r in duplicates],
    )
