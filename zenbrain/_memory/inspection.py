"""Looking into a store without changing it: where a memory came from, and what a forget
would take with it. The HTTP API's provenance and dry-run forget (:mod:`zenbrain.server`)
read them from here (why a result scored what it did: ``recall(..., explain=True)``).
"""

from __future__ import annotations

from typing import Any

from zenbrain._memory.scope import MemoryScope
from zenbrain._storage.timestamps import from_db
from zenbrain.layers._episodic import CONSOLIDATION_BATCH, CONSOLIDATION_WEIGHT

__all__ = [
    "consolidation_links_of",
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
