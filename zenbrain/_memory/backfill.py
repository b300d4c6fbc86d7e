"""Backfill: vectors for memories stored before an embedder was configured."""

from __future__ import annotations

from zenbrain import _validation as check
from zenbrain._memory.embedding import Progress
from zenbrain._memory.scope import MemoryScope
from zenbrain._storage.records import row_indexed_text
from zenbrain.errors import InvalidInputError

__all__ = ["embed_missing"]


def embed_missing(scope: MemoryScope, batch_size: int, progress: Progress | None) -> int:
    """Embed the memories of the namespace that have no vector; returns how many got one.
    Each batch is read, embedded outside the lock, then written in its own transaction."""
    check.check_int(batch_size, "batch_size", 1, 10_000)
    if progress is not None and not callable(progress):
        raise InvalidInputError(f"progress must be a callable(done, total), got {progress!r}")
    embedding = scope.embedding
    if embedding is None:
        raise InvalidInputError("embed_missing() needs an embedder: pass embedder= when opening")
    repo = scope.repo
    with scope.lock, repo.read() as conn:
        pending = repo.missing_vectors(conn, 2**62)
    total, done = len(pending), 0
    for start in range(0, total, batch_size):
        with scope.lock, repo.read() as conn:
            rows = list(repo.rows_by_pk(conn, pending[start : start + batch_size]).values())
        if rows:
            matrix = embedding.documents([row_indexed_text(row) for row in rows])
            with scope.lock, repo.write() as conn:
                # Skip what was deleted or embedded by someone else since the read. Keys only
                # grow, so this batch's unembedded rows are the first ones still missing.
                still = set(repo.missing_vectors(conn, len(rows))) & {int(r.pk) for r in rows}
                repo.add_vectors(
                    conn,
                    [
                        (int(row.pk), row.layer, row.context, matrix[i])
                        for i, row in enumerate(rows)
                        if int(row.pk) in still
                    ],
                )
            done += len(still)
        if progress is not None:
            progress(min(start + batch_size, total), total)
    return done
