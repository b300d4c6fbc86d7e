"""SQLite specifics: connection pragmas and FTS5 for words (vectors: :mod:`.sqlite_vectors`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, event, text

from zenbrain.storage.indexes import IndexedText, ScopeStatistics
from zenbrain.storage.scopes import count_memories, scope_statistics, scope_tokens, scoped_terms

__all__ = [
    "SqliteLexicalIndex",
    "configure_sqlite_engine",
]

BUSY_TIMEOUT_MS = 30_000
PAGE_CACHE_KIB = 16_384
"""Page cache per connection (SQLite's default is 2 MiB): at 100k memories the indexes of a
bulk write no longer fit in 2 MiB, and each insert then re-reads pages from the OS."""
_SQL_IN_CHUNK = 900  # below SQLite's default limit of bound parameters
# One scope's best keys by FTS5's BM25 (the context column weighs nothing).
_CANDIDATES = (
    "SELECT rowid FROM zb_fts WHERE zb_fts MATCH ? ORDER BY bm25(zb_fts, 0.0, 1.0) LIMIT ?"
)


def configure_sqlite_engine(engine: Engine, *, wal: bool) -> None:
    """Pragmas on every connection; transactions that write start with BEGIN IMMEDIATE, so two
    processes never deadlock upgrading a read lock (they wait on the busy timeout instead)."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute(f"PRAGMA cache_size = -{PAGE_CACHE_KIB}")  # negative: KiB, not pages
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
    context token for searches limited to a context.

    Beside it, ``zb_lexical_lengths`` keeps each scope's number of memories and their total
    length in index terms (BM25's average length), updated with every add and remove; the
    per-term document counts come straight from the index through ``fts5vocab``."""

    def install(self, conn: Connection) -> None:
        conn.exec_driver_sql(
            "CREATE VIRTUAL TABLE IF NOT EXISTS zb_fts USING fts5(ctx, terms, tokenize='ascii')"
        )
        # Per-term document counts straight from the index: with scoped terms these are the
        # document frequencies within a scope, and the bare scope token counts its rows.
        conn.exec_driver_sql(
            "CREATE VIRTUAL TABLE IF NOT EXISTS zb_fts_vocab USING fts5vocab(zb_fts, 'row')"
        )
        existed = conn.exec_driver_sql(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'zb_lexical_lengths'"
        ).scalar()
        if existed:
            return
        # Additive: stores made before it get the table filled from the index once.
        conn.exec_driver_sql(
            "CREATE TABLE zb_lexical_lengths ("
            " scope TEXT PRIMARY KEY, documents INTEGER NOT NULL, length INTEGER NOT NULL)"
        )
        conn.exec_driver_sql(
            "INSERT INTO zb_lexical_lengths (scope, documents, length) "
            "SELECT scope, count(*), sum(spaces) FROM ("
            " SELECT CASE WHEN instr(terms, ' ') > 0 THEN substr(terms, 1, instr(terms, ' ') - 1)"
            " ELSE terms END AS scope,"
            " length(terms) - length(replace(terms, ' ', '')) AS spaces FROM zb_fts"
            ") GROUP BY scope"
        )

    @staticmethod
    def _count_lengths(conn: Connection, changes: dict[str, tuple[int, int]]) -> None:
        if not changes:
            return
        conn.connection.driver_connection.executemany(  # type: ignore[union-attr]
            "INSERT INTO zb_lexical_lengths (scope, documents, length) VALUES (?, ?, ?) "
            "ON CONFLICT (scope) DO UPDATE SET documents = documents + excluded.documents, "
            "length = length + excluded.length",
            [(scope, docs, length) for scope, (docs, length) in sorted(changes.items())],
        )

    def add(self, conn: Connection, rows: Sequence[IndexedText]) -> None:
        if not rows:
            return
        params = []
        changes: dict[str, tuple[int, int]] = {}
        tokens: dict[tuple[str, str, str | None], tuple[str, str | None]] = {}
        for row in rows:
            where = (row.namespace, row.layer, row.context)
            if where not in tokens:  # a batch has few scopes: hash each once
                tokens[where] = scope_tokens(*where)
            scope, ctx = tokens[where]
            # The scope token, then each term prefixed with it (scoped_terms), in one join.
            glue = " " + scope
            terms = scope + glue + glue.join(row.terms) if row.terms else scope
            params.append((row.pk, ctx or "", terms))
            docs, length = changes.get(scope, (0, 0))
            changes[scope] = (docs + 1, length + len(row.terms))
        # The DB-API directly: one executemany instead of SQLAlchemy's per-row processing.
        conn.connection.driver_connection.executemany(  # type: ignore[union-attr]
            "INSERT INTO zb_fts(rowid, ctx, terms) VALUES (?, ?, ?)", params
        )
        self._count_lengths(conn, changes)

    def remove(self, conn: Connection, pks: Sequence[int]) -> None:
        if not pks:
            return
        found = conn.execute(
            text("SELECT terms FROM zb_fts WHERE rowid IN :pks").bindparams(
                bindparam("pks", expanding=True)
            ),
            {"pks": list(pks)},
        ).all()
        changes: dict[str, tuple[int, int]] = {}
        for (stored,) in found:
            tokens = str(stored).split(" ")
            docs, length = changes.get(tokens[0], (0, 0))
            changes[tokens[0]] = (docs - 1, length - (len(tokens) - 1))
        conn.execute(text("DELETE FROM zb_fts WHERE rowid = :pk"), [{"pk": pk} for pk in pks])
        self._count_lengths(conn, changes)

    @staticmethod
    def _match(namespace: str, layer: str, context: str | None, terms: Sequence[str]) -> str:
        scope, ctx = scope_tokens(namespace, layer, context)
        wanted = " OR ".join(f'"{t}"' for t in scoped_terms(scope, list(dict.fromkeys(terms))))
        # No column filter on the terms: scoped terms occur in no other column, and
        # checking each hit's column costs FTS5 a pass over its positions.
        return f"ctx : {ctx} AND ({wanted})" if ctx else f"({wanted})"

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
        rows = conn.exec_driver_sql(
            _CANDIDATES, (self._match(namespace, layer, context, terms), limit)
        )
        return [int(r[0]) for r in rows]

    def candidates_by_layer(
        self,
        conn: Connection,
        namespace: str,
        terms_by_layer: Mapping[str, Sequence[str]],
        context: str | None,
        limit: int,
    ) -> dict[str, list[int]]:
        found: dict[str, list[int]] = {layer: [] for layer in terms_by_layer}
        layers = [layer for layer, terms in terms_by_layer.items() if terms]
        if not layers:
            return found
        # Each layer's query is the one :meth:`candidates` runs, as a subquery: UNION ALL
        # returns them one after the other, each in its own order.
        statement = " UNION ALL ".join(
            f"SELECT {position}, rowid FROM ({_CANDIDATES})" for position in range(len(layers))
        )
        params: list[Any] = []
        for layer in layers:
            params += [self._match(namespace, layer, context, terms_by_layer[layer]), limit]
        for position, pk in conn.exec_driver_sql(statement, tuple(params)):
            found[layers[position]].append(int(pk))
        return found

    def indexed_terms(
        self, conn: Connection, pks: Sequence[int]
    ) -> dict[int, tuple[str, ...]] | None:
        found: dict[int, tuple[str, ...]] = {}
        for begin in range(0, len(pks), _SQL_IN_CHUNK):
            part = tuple(int(pk) for pk in pks[begin : begin + _SQL_IN_CHUNK])
            marks = ",".join("?" * len(part))
            statement = f"SELECT rowid, terms FROM zb_fts WHERE rowid IN ({marks})"
            for pk, stored in conn.exec_driver_sql(statement, part):
                # The scope token, then each term behind that same token (see :meth:`add`):
                # "S Sa Sb" holds the terms "a" and "b".
                stored = str(stored)
                width = stored.find(" ")
                if width < 0:
                    found[int(pk)] = ()
                    continue
                found[int(pk)] = tuple(stored[2 * width + 1 :].split(" " + stored[:width]))
        return found

    def document_count(
        self, conn: Connection, namespace: str, layer: str, context: str | None
    ) -> int:
        if context is not None:
            return count_memories(conn, namespace, layer, context)
        scope, _ = scope_tokens(namespace, layer, None)
        found = conn.execute(
            text("SELECT documents FROM zb_lexical_lengths WHERE scope = :scope"),
            {"scope": scope},
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
            return dict(self.statistics(conn, namespace, [layer], terms, None)[layer].frequencies)
        return {
            term: int(
                conn.execute(
                    text("SELECT count(*) FROM zb_fts WHERE zb_fts MATCH :m"),
                    {"m": self._match(namespace, layer, context, [term])},
                ).scalar_one()
            )
            for term in dict.fromkeys(terms)
        }

    def statistics(
        self,
        conn: Connection,
        namespace: str,
        layers: Sequence[str],
        terms: Sequence[str],
        context: str | None,
    ) -> dict[str, ScopeStatistics]:
        wanted = list(dict.fromkeys(terms))
        scopes = {layer: scope_tokens(namespace, layer, None)[0] for layer in layers}
        keys = [scope + term for scope in scopes.values() for term in wanted]
        if context is not None:
            keys = []  # counted within the context, below
        # One statement: the scopes' sizes, then the scoped terms' document counts (from
        # the index's vocabulary; their length column is NULL).
        statement = (
            "SELECT scope, documents, length FROM zb_lexical_lengths "
            f"WHERE scope IN ({','.join('?' * len(scopes))})"
        )
        if keys:
            statement += (
                " UNION ALL SELECT term, doc, NULL FROM zb_fts_vocab "
                f"WHERE term IN ({','.join('?' * len(keys))})"
            )
        sizes: dict[str, tuple[int, int]] = {}
        found: dict[str, int] = {}
        for key, count, length in conn.exec_driver_sql(statement, (*scopes.values(), *keys)):
            if length is None:
                found[str(key)] = int(count)
            else:
                sizes[str(key)] = (int(count), int(length))
        return scope_statistics(
            conn,
            namespace,
            scopes,
            {layer: sizes.get(scope, (0, 0)) for layer, scope in scopes.items()},
            found,
            wanted,
            context,
            lambda layer: self.document_frequencies(conn, namespace, layer, wanted, context),
        )
