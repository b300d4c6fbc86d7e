"""SQLite's lexical index: each memory's index terms in a plain table, with postings held in
memory for words (:mod:`zenbrain._storage.postings.scope`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, bindparam, text

from zenbrain._storage.indexes import IndexedText
from zenbrain._storage.postings.held import HeldPostingsIndex
from zenbrain._storage.postings.scope import ScopePostings
from zenbrain._storage.postings.scopes import scope_tokens
from zenbrain._storage.sqlite import removal_log

__all__ = ["SqliteLexicalIndex"]

_SQL_IN_CHUNK = 900  # below SQLite's default limit of bound parameters
REMOVAL_LOG_KEPT = 10_000
"""Entries of ``zb_lexical_removed`` kept; a process further behind reloads its postings."""
_READ_CHUNK = 4096
# What the postings in memory are filled from: each row's key, context token, terms and time.
_ROWS = (
    # The time as whole microseconds since the epoch, worked out by SQLite: the stored text
    # is "YYYY-MM-DD HH:MM:SS.ffffff" (SQLAlchemy's DateTime), seconds then the fraction.
    "SELECT f.memory_pk, f.ctx, f.terms, "
    "CAST(strftime('%s', m.created_at) AS INTEGER) * 1000000"
    " + CAST(substr(m.created_at, 21, 6) AS INTEGER), m.conversation FROM zb_lexical f "
    "LEFT JOIN zb_memories m ON m.pk = f.memory_pk"
)


def _stored_terms(stored: str) -> tuple[str, ...]:
    """The index terms of a ``zb_lexical`` row, stored in order and joined by spaces."""
    return tuple(stored.split(" ")) if stored else ()


class SqliteLexicalIndex(HeldPostingsIndex):
    """``zb_lexical``: each memory's index terms in order, its scope token (namespace and
    layer, see :func:`scope_tokens`) and its context token, with an index on scope and key.

    A plain table, not FTS5: every search runs on the postings held in memory, so the only
    lookup the table needs is "this scope's rows", and an FTS5 inverted index of every term
    cost each write more than the rest of the row did.

    Beside it, ``zb_lexical_lengths`` keeps each scope's number of memories, their total
    length in index terms (BM25's average length) and a count of changes, updated with every
    add and remove.

    Candidates, per-term document counts and each candidate's terms come from each scope's
    postings held in memory (:class:`ScopePostings`),
    loaded from ``zb_lexical`` on the first search and kept in step with every writer: a search
    reads the scope's change count, and when it moved, the rows added since (keys only grow)
    and the removals logged in ``zb_lexical_removed`` since. Changes those do not account
    for exactly (a log pruned past this copy, a re-indexed store) reload the scope."""

    def install(self, conn: Connection) -> None:
        conn.exec_driver_sql(
            "CREATE TABLE IF NOT EXISTS zb_lexical (memory_pk INTEGER PRIMARY KEY,"
            " scope TEXT NOT NULL, ctx TEXT NOT NULL, terms TEXT NOT NULL)"
        )
        conn.exec_driver_sql(
            "CREATE INDEX IF NOT EXISTS zb_lexical_scope ON zb_lexical (scope, memory_pk)"
        )
        conn.exec_driver_sql(
            "CREATE TABLE IF NOT EXISTS zb_lexical_removed ("
            " seq INTEGER PRIMARY KEY AUTOINCREMENT, scope TEXT NOT NULL, pk INTEGER NOT NULL)"
        )
        existed = conn.exec_driver_sql(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'zb_lexical_lengths'"
        ).scalar()
        if existed:  # its column "changes" came later: migration step "sqlite_lexical_changes"
            return
        # Additive: stores made before it get the table filled from the index once.
        conn.exec_driver_sql(
            "CREATE TABLE zb_lexical_lengths (scope TEXT PRIMARY KEY, documents INTEGER NOT NULL,"
            " length INTEGER NOT NULL, changes INTEGER NOT NULL DEFAULT 0)"
        )
        conn.exec_driver_sql(
            "INSERT INTO zb_lexical_lengths (scope, documents, length) "
            "SELECT scope, count(*), sum(CASE WHEN terms = '' THEN 0"
            " ELSE length(terms) - length(replace(terms, ' ', '')) + 1 END)"
            " FROM zb_lexical GROUP BY scope"
        )

    @staticmethod
    def _count_lengths(conn: Connection, changes: dict[str, tuple[int, int, int]]) -> None:
        if not changes:
            return
        conn.connection.driver_connection.executemany(  # type: ignore[union-attr]
            "INSERT INTO zb_lexical_lengths (scope, documents, length, changes) "
            "VALUES (?, ?, ?, ?) ON CONFLICT (scope) DO UPDATE SET "
            "documents = documents + excluded.documents, length = length + excluded.length, "
            "changes = changes + excluded.changes",
            [(scope, *counts) for scope, counts in sorted(changes.items())],
        )

    def add(self, conn: Connection, rows: Sequence[IndexedText]) -> None:
        if not rows:
            return
        params = []
        changes: dict[str, tuple[int, int, int]] = {}
        tokens: dict[tuple[str, str, str | None], tuple[str, str | None]] = {}
        for row in rows:
            where = (row.namespace, row.layer, row.context)
            if where not in tokens:  # a batch has few scopes: hash each once
                tokens[where] = scope_tokens(*where)
            scope, ctx = tokens[where]
            params.append((row.pk, scope, ctx or "", " ".join(row.terms)))
            docs, length, changed = changes.get(scope, (0, 0, 0))
            changes[scope] = (docs + 1, length + len(row.terms), changed + 1)
        # The DB-API directly: one executemany instead of SQLAlchemy's per-row processing.
        conn.connection.driver_connection.executemany(  # type: ignore[union-attr]
            "INSERT INTO zb_lexical (memory_pk, scope, ctx, terms) VALUES (?, ?, ?, ?)", params
        )
        self._count_lengths(conn, changes)

    def remove(self, conn: Connection, pks: Sequence[int]) -> None:
        if not pks:
            return
        found = conn.execute(
            text(
                "SELECT memory_pk, scope, terms FROM zb_lexical WHERE memory_pk IN :pks"
            ).bindparams(bindparam("pks", expanding=True)),
            {"pks": list(pks)},
        ).all()
        changes: dict[str, tuple[int, int, int]] = {}
        removed: list[tuple[str, int]] = []
        for pk, scope, stored in found:
            docs, length, changed = changes.get(scope, (0, 0, 0))
            changes[scope] = (docs - 1, length - len(_stored_terms(stored)), changed + 1)
            removed.append((scope, int(pk)))
        if not removed:
            return
        driver = conn.connection.driver_connection
        driver.executemany(  # type: ignore[union-attr]
            "DELETE FROM zb_lexical WHERE memory_pk = ?", [(pk,) for _, pk in removed]
        )
        # Logged for the postings other processes hold (see the class docstring).
        removal_log.append(driver, "zb_lexical_removed", ("scope", "pk"), removed, REMOVAL_LOG_KEPT)
        self._count_lengths(conn, changes)

    # ------------------------------------------------------------------ postings in memory
    @staticmethod
    def _read(conn: Connection, statement: str, params: Sequence[Any]) -> Iterable[Any]:
        cursor = conn.connection.driver_connection.execute(statement, params)  # type: ignore[union-attr]
        try:
            while chunk := cursor.fetchmany(_READ_CHUNK):
                yield from chunk
        finally:
            cursor.close()

    def _add_rows(self, postings: ScopePostings, rows: Iterable[Any]) -> int:
        """Index rows of :data:`_ROWS` into ``postings``; returns how many."""
        return self._fill(
            postings,
            (
                (pk, ctx or None, _stored_terms(stored), stored_at or 0, conversation)
                for pk, ctx, stored, stored_at, conversation in rows
            ),
        )

    def _load(self, conn: Connection, scope: str, changes: int) -> ScopePostings:
        postings = ScopePostings(changes)
        postings.removals_seen = removal_log.newest(
            conn.connection.driver_connection, "zb_lexical_removed"
        )
        self._add_rows(
            postings,
            self._read(
                conn,
                f"{_ROWS} WHERE f.scope = ? ORDER BY f.memory_pk",
                (scope,),
            ),
        )
        return postings

    def _catch_up(
        self, conn: Connection, scope: str, postings: ScopePostings, documents: int, changes: int
    ) -> bool:
        """Apply what writers changed since ``postings`` was last in step; False when that
        does not account for every change counted (the caller then reloads the scope)."""
        logged = removal_log.removed_since(
            conn.connection.driver_connection,
            "zb_lexical_removed",
            "pk",
            postings.removals_seen,
            "scope = ?",
            (scope,),
        )
        if logged is None:
            return False  # entries this copy never saw were pruned
        removed, postings.removals_seen = logged
        known = postings.max_pk
        explained = 0
        gone: dict[int, None] = {}
        for pk in removed:
            explained += 1
            if pk > known:
                explained += 1  # added after this copy was in step, then removed
            elif postings.discard(pk):
                gone[pk] = None
        # Memories re-indexed in place (removed, then added again under their key).
        keys = list(gone)
        for begin in range(0, len(keys), _SQL_IN_CHUNK):
            part = keys[begin : begin + _SQL_IN_CHUNK]
            again = self._read(
                conn,
                f"{_ROWS} WHERE f.scope = ? AND f.memory_pk IN ({','.join('?' * len(part))})",
                (scope, *part),
            )
            explained += self._add_rows(postings, again)
        explained += self._add_rows(
            postings,
            self._read(
                conn,
                f"{_ROWS} WHERE f.scope = ? AND f.memory_pk > ? ORDER BY f.memory_pk",
                (scope, known),
            ),
        )
        return explained == changes - postings.changes and len(postings) == documents

    def _postings(
        self, conn: Connection, scopes: Mapping[str, tuple[str, str]]
    ) -> dict[str, ScopePostings]:
        marks = ",".join("?" * len(scopes))
        state = {
            str(scope): (int(documents), int(changes))
            for scope, documents, changes in self._read(
                conn,
                "SELECT scope, documents, changes FROM zb_lexical_lengths "
                f"WHERE scope IN ({marks})",
                tuple(scopes),
            )
        }
        found: dict[str, ScopePostings] = {}
        for scope in scopes:
            documents, changes = state.get(scope, (0, 0))
            postings = self._cache.get(scope)
            if (
                postings is None
                or (
                    postings.changes != changes
                    and not self._catch_up(conn, scope, postings, documents, changes)
                )
                or self._needs_compacting(postings)
            ):
                postings = self._load(conn, scope, changes)
            postings.changes = changes
            self._cache[scope] = postings
            found[scope] = postings
        return found
