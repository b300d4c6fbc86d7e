"""SQLite specifics: connection pragmas and FTS5 for words (vectors: :mod:`.sqlite_vectors`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, event, select, text

from zenbrain.storage.indexes import IndexedText
from zenbrain.storage.scopes import count_memories, scope_tokens, scoped_terms

__all__ = [
    "SqliteLexicalIndex",
    "configure_sqlite_engine",
]

BUSY_TIMEOUT_MS = 30_000


def configure_sqlite_engine(engine: Engine, *, wal: bool) -> None:
    """Pragmas on every connection; transactions that write start with BEGIN IMMEDIATE, so two
    processes never deadlock upgrading a read lock (they wait on the busy timeout instead)."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys = ON")
        if wal:
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        if conn.get_execution_options().get("zenbrain_write"):
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            conn.exec_driver_sql("BEGIN")


class SqliteLexicalIndex:
    """An FTS5 table of each memory's scoped terms (see :func:`scoped_terms`), plus its
    context token for searches limited to a context."""

    def install(self, conn: Connection) -> None:
        conn.exec_driver_sql(
            "CREATE VIRTUAL TABLE IF NOT EXISTS zb_fts USING fts5(ctx, terms, tokenize='ascii')"
        )
        # Per-term document counts straight from the index: with scoped terms these are the
        # document frequencies within a scope, and the bare scope token counts its rows.
        conn.exec_driver_sql(
            "CREATE VIRTUAL TABLE IF NOT EXISTS zb_fts_vocab USING fts5vocab(zb_fts, 'row')"
        )

    def add(self, conn: Connection, rows: Sequence[IndexedText]) -> None:
        if not rows:
            return
        params = []
        for row in rows:
            scope, ctx = scope_tokens(row.namespace, row.layer, row.context)
            terms = " ".join([scope, *scoped_terms(scope, row.terms)])
            params.append((row.pk, ctx or "", terms))
        # The DB-API directly: one executemany instead of SQLAlchemy's per-row processing.
        conn.connection.driver_connection.executemany(  # type: ignore[union-attr]
            "INSERT INTO zb_fts(rowid, ctx, terms) VALUES (?, ?, ?)", params
        )

    def remove(self, conn: Connection, pks: Sequence[int]) -> None:
        if pks:
            conn.execute(text("DELETE FROM zb_fts WHERE rowid = :pk"), [{"pk": pk} for pk in pks])

    @staticmethod
    def _match(namespace: str, layer: str, context: str | None, terms: Sequence[str]) -> str:
        scope, ctx = scope_tokens(namespace, layer, context)
        wanted = " OR ".join(f'"{t}"' for t in scoped_terms(scope, list(dict.fromkeys(terms))))
        match = f"terms : ({wanted})"
        return f"ctx : {ctx} AND {match}" if ctx else match

    def candidates(
        self,
        conn: Connection,
        namespace: str,
        layer: str,
        terms: Sequence[str],
        context: str | None,
        limit: int,
    ) -> list[int]:
        if not terms:
            return []
        rows = conn.execute(
            text(
                "SELECT rowid FROM zb_fts WHERE zb_fts MATCH :match "
                "ORDER BY bm25(zb_fts, 0.0, 1.0) LIMIT :limit"
            ),
            {"match": self._match(namespace, layer, context, terms), "limit": limit},
        )
        return [int(r[0]) for r in rows]

    def document_count(
        self, conn: Connection, namespace: str, layer: str, context: str | None
    ) -> int:
        if context is not None:
            return count_memories(conn, namespace, layer, context)
        scope, _ = scope_tokens(namespace, layer, None)
        found = conn.execute(
            text("SELECT doc FROM zb_fts_vocab WHERE term = :term"), {"term": scope}
        ).scalar()
        return int(found or 0)

    def document_frequencies(
        self,
        conn: Connection,
        namespace: str,
        layer: str,
        terms: Sequence[str],
        context: str | None,
    ) -> dict[str, int]:
        if context is None:
            scope, _ = scope_tokens(namespace, layer, None)
            wanted = {scope + term: term for term in dict.fromkeys(terms)}
            found = dict(
                conn.execute(
                    select(text("term"), text("doc"))
                    .select_from(text("zb_fts_vocab"))
                    .where(text("term IN :terms").bindparams(bindparam("terms", expanding=True))),
                    {"terms": list(wanted)},
                ).all()
            )
            return {term: int(found.get(key, 0)) for key, term in wanted.items()}
        return {
            term: int(
                conn.execute(
                    text("SELECT count(*) FROM zb_fts WHERE zb_fts MATCH :m"),
                    {"m": self._match(namespace, layer, context, [term])},
                ).scalar_one()
            )
            for term in dict.fromkeys(terms)
        }
