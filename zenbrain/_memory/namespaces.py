"""Namespaces of a store: listing them by prefix, and dropping one with everything in it."""

from __future__ import annotations

from zenbrain._memory.scope import MemoryScope
from zenbrain._validation import check_prefix
from zenbrain.stages import drop_stage_rows

__all__ = ["drop_namespace", "namespaces"]

CHUNK = 2_000  # keys per statement, well under SQLite's bound-parameter limit


def namespaces(scope: MemoryScope, prefix: str) -> list[str]:
    """Every namespace of the store that holds memories or interactions and starts with
    ``prefix``, sorted."""
    check_prefix(prefix)
    with scope.lock, scope.repo.read() as conn:
        return scope.repo.namespaces(conn, prefix)


def drop_namespace(scope: MemoryScope) -> int:
    """Delete every memory, session, interaction and stage row of the namespace, in one
    transaction; returns how many memories went."""
    repo = scope.repo
    with scope.lock:
        with repo.write() as conn:
            pks = repo.all_pks(conn)
            drop_stage_rows(conn, scope.namespace)
            for start in range(0, len(pks), CHUNK):
                repo.delete(conn, pks[start : start + CHUNK])
            repo.delete_namespace_rows(conn)
        scope.working.clear()
        scope.session_id = None
        repo.database.purge(scope.namespace)
    return len(pks)
