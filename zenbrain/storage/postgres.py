"""PostgreSQL specifics: a tsvector/GIN index for words and pgvector with HNSW for vectors.

Needs ``pip install 'zenbrain[postgres]'`` (psycopg 3 and pgvector) and a server where the
``vector`` extension is available (the library runs ``CREATE EXTENSION IF NOT EXISTS vector``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from sqlalchemy import URL, Connection, Engine, create_engine, event, make_url, text

from zenbrain.errors import InvalidInputError, MissingDependencyError, StorageError
from zenbrain.storage.dialect import POSTGRES_MIGRATION_LOCK
from zenbrain.storage.indexes import IndexedTerms, IndexedText, IndexedVector, ScopeStatistics
from zenbrain.storage.pgvector_indexes import create_hnsw_indexes, layer_literal
from zenbrain.storage.scopes import count_memories, scope_statistics, scope_tokens, scoped_terms

__all__ = ["POOL_DEFAULTS", "PostgresLexicalIndex", "PostgresVectorIndex", "open_postgres"]

COPY_MIN_ROWS = 64
"""From this many rows a batch of vectors goes in with one binary ``COPY``."""
MAX_EF_SEARCH = 1000
POOL_DEFAULTS = {"pool_size": 8, "max_overflow": 8}
"""Connections per engine: kept open, and opened on top under load (URL parameters)."""
_POOL_MAX = 1000


def open_postgres(url: str) -> tuple[Engine, PostgresLexicalIndex, PostgresVectorIndex]:
    try:
        import pgvector.psycopg  # noqa: F401
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise MissingDependencyError(
            "PostgreSQL support needs psycopg and pgvector, which are not installed. "
            "Install them with: pip install 'zenbrain[postgres]'"
        ) from exc
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
    target, pool = _pool_settings(url)
    engine = create_engine(target, pool_pre_ping=True, **pool)
    _send_vectors_in_binary(engine)
    try:
        if not _has_pgvector(engine):  # present: nothing to write (a replica can open)
            with engine.begin() as conn:
                # Concurrent CREATE EXTENSION IF NOT EXISTS can still collide: serialise
                # it with the migrations' lock, and look again under the lock.
                conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({POSTGRES_MIGRATION_LOCK})")
                present = conn.exec_driver_sql(
                    "SELECT 1 FROM pg_extension WHERE extname = 'vector'"
                ).scalar()
                if not present:
                    conn.exec_driver_sql("CREATE EXTENSION IF NOT EXISTS vector")
    except Exception as exc:
        engine.dispose()
        raise StorageError(
            f"cannot prepare PostgreSQL at {engine.url.render_as_string(hide_password=True)}: "
            f"{exc}. The server needs the pgvector extension, and the user the right to "
            "CREATE EXTENSION (or ask an administrator to run CREATE EXTENSION vector once)."
        ) from exc
    return engine, PostgresLexicalIndex(), PostgresVectorIndex()


def _pool_settings(url: str) -> tuple[URL, dict[str, int]]:
    """The URL without zenbrain's own query parameters (``pool_size``, ``max_overflow``:
    the connection pool's size), and those settings (defaults 8 and 8)."""
    try:
        parsed = make_url(url)
    except Exception as exc:  # SQLAlchemy's ArgumentError, or a malformed port
        raise StorageError(f"cannot parse the PostgreSQL URL: {exc}") from exc
    pool = dict(POOL_DEFAULTS)
    for name, smallest in (("pool_size", 1), ("max_overflow", 0)):
        raw = parsed.query.get(name)
        if raw is None:
            continue
        value = raw[-1] if isinstance(raw, tuple) else raw
        if not value.isdigit() or not smallest <= int(value) <= _POOL_MAX:
            raise InvalidInputError(
                f"{name} in the PostgreSQL URL must be a whole number from {smallest} to "
                f"{_POOL_MAX}, got {value!r}"
            )
        pool[name] = int(value)
    return parsed.difference_update_query(POOL_DEFAULTS), pool


def _has_pgvector(engine: Engine) -> bool:
    with engine.connect() as conn:
        return bool(
            conn.exec_driver_sql("SELECT 1 FROM pg_extension WHERE extname = 'vector'").scalar()
        )


def _send_vectors_in_binary(engine: Engine) -> None:
    """Pass numpy arrays as pgvector values in binary: formatting 384 floats as text per row
    costs more than the insert itself."""
    from pgvector.psycopg import register_vector

    registered: set[int] = set()

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        try:
            register_vector(dbapi_connection)
            registered.add(id(dbapi_connection))
        except Exception:  # the extension is created after the first connection
            dbapi_connection.rollback()

    @event.listens_for(engine, "checkout")
    def _on_checkout(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        if id(dbapi_connection) not in registered:
            try:
                register_vector(dbapi_connection)
            except Exception:  # the first open creates the extension on this connection
                dbapi_connection.rollback()
                return
            dbapi_connection.commit()
            registered.add(id(dbapi_connection))


def _scoped_query(
    namespace: str, layer: str, context: str | None, terms: Sequence[str]
) -> dict[str, Any]:
    scope, ctx = scope_tokens(namespace, layer, context)
    return {"query": " | ".join(scoped_terms(scope, list(dict.fromkeys(terms)))), "ctx": ctx}


def _column_exists(conn: Connection, table: str, column: str) -> bool:
    return bool(
        conn.execute(
            text(
                "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()"
                " AND table_name = :table AND column_name = :column"
            ),
            {"table": table, "column": column},
        ).scalar()
    )


class PostgresLexicalIndex:
    """Scoped terms (see :func:`zenbrain.storage.scopes.scoped_terms`) in a ``tsvector`` (the
    'simple' configuration: zenbrain folds, stems and drops stopwords itself) with a GIN
    index, so a lookup reads only its own namespace and layer; a b-tree serves contexts.

    Counts are kept beside the index, in step with every add and remove, so recall never
    walks postings to count: ``zb_lexical_counts`` holds each scope's memories and their
    total length in terms (BM25's average length), ``zb_lexical_terms`` each scoped term's
    document frequency, and ``zb_lexical.length`` each memory's length (read back when it is
    removed)."""

    def install(self, conn: Connection) -> None:
        conn.exec_driver_sql(
            "CREATE TABLE IF NOT EXISTS zb_lexical ("
            " memory_pk BIGINT PRIMARY KEY REFERENCES zb_memories(pk) ON DELETE CASCADE,"
            " ctx TEXT, terms TSVECTOR NOT NULL, length INTEGER)"
        )
        conn.exec_driver_sql(
            "CREATE INDEX IF NOT EXISTS zb_lexical_terms ON zb_lexical USING GIN (terms)"
        )
        conn.exec_driver_sql("CREATE INDEX IF NOT EXISTS zb_lexical_ctx ON zb_lexical (ctx)")
        # Rows per scope, kept in step with the index: count(*) over a large namespace
        # costs tens of milliseconds, and every lexical recall needs the count.
        conn.exec_driver_sql(
            "CREATE TABLE IF NOT EXISTS zb_lexical_counts ("
            " namespace TEXT NOT NULL, layer TEXT NOT NULL, count BIGINT NOT NULL,"
            " length BIGINT NOT NULL DEFAULT 0, PRIMARY KEY (namespace, layer))"
        )
        # Additive steps for stores made before lengths and term counts were kept: the new
        # columns and table are filled from the index once.
        if not _column_exists(conn, "zb_lexical", "length"):
            conn.exec_driver_sql("ALTER TABLE zb_lexical ADD COLUMN length INTEGER")
            conn.exec_driver_sql(
                "UPDATE zb_lexical SET length = (SELECT coalesce(sum(cardinality(positions)), 0)"
                " FROM unnest(terms))"
            )
        if not _column_exists(conn, "zb_lexical_counts", "length"):
            conn.exec_driver_sql(
                "ALTER TABLE zb_lexical_counts ADD COLUMN length BIGINT NOT NULL DEFAULT 0"
            )
            conn.exec_driver_sql(
                "UPDATE zb_lexical_counts c SET length = s.length FROM ("
                " SELECT m.namespace, m.layer, sum(l.length) AS length FROM zb_lexical l"
                " JOIN zb_memories m ON m.pk = l.memory_pk GROUP BY m.namespace, m.layer) s"
                " WHERE c.namespace = s.namespace AND c.layer = s.layer"
            )
        if not conn.exec_driver_sql("SELECT to_regclass('zb_lexical_terms_df')").scalar():
            conn.exec_driver_sql(
                "CREATE TABLE zb_lexical_terms_df ("
                " term TEXT PRIMARY KEY, documents BIGINT NOT NULL)"
            )
            conn.exec_driver_sql(
                "INSERT INTO zb_lexical_terms_df (term, documents)"
                " SELECT lexeme, count(*) FROM zb_lexical, unnest(terms) GROUP BY lexeme"
            )

    def add(self, conn: Connection, rows: Sequence[IndexedText]) -> None:
        if not rows:
            return
        # One statement for the batch (executemany would run one per row).
        values = [self._row(r) for r in rows]
        conn.execute(
            text(
                "INSERT INTO zb_lexical (memory_pk, ctx, terms, length) "
                "SELECT pk, ctx, to_tsvector('simple', terms), length FROM unnest("
                "CAST(:pks AS BIGINT[]), CAST(:ctxs AS TEXT[]), CAST(:terms AS TEXT[]),"
                " CAST(:lengths AS INTEGER[])) AS u(pk, ctx, terms, length)"
            ),
            {
                "pks": [v["pk"] for v in values],
                "ctxs": [v["ctx"] for v in values],
                "terms": [v["terms"] for v in values],
                "lengths": [v["length"] for v in values],
            },
        )
        added: dict[tuple[str, str], tuple[int, int]] = {}
        frequencies: Counter[str] = Counter()
        for r in rows:
            docs, length = added.get((r.namespace, r.layer), (0, 0))
            added[(r.namespace, r.layer)] = (docs + 1, length + len(r.terms))
            scope, _ = scope_tokens(r.namespace, r.layer, None)
            frequencies.update(scoped_terms(scope, list(set(r.terms))))
        self._count(conn, added)
        self._count_terms(conn, frequencies)

    @staticmethod
    def _count(conn: Connection, changes: dict[tuple[str, str], tuple[int, int]]) -> None:
        if not changes:
            return
        ordered = sorted(changes.items())  # one lock order for concurrent writers
        conn.execute(
            text(
                "INSERT INTO zb_lexical_counts (namespace, layer, count, length) "
                "SELECT * FROM unnest(CAST(:namespaces AS TEXT[]), CAST(:layers AS TEXT[]),"
                " CAST(:deltas AS BIGINT[]), CAST(:lengths AS BIGINT[])) "
                "ON CONFLICT (namespace, layer) DO UPDATE SET "
                "count = zb_lexical_counts.count + EXCLUDED.count, "
                "length = zb_lexical_counts.length + EXCLUDED.length"
            ),
            {
                "namespaces": [namespace for (namespace, _), _ in ordered],
                "layers": [layer for (_, layer), _ in ordered],
                "deltas": [delta for _, (delta, _) in ordered],
                "lengths": [length for _, (_, length) in ordered],
            },
        )

    @staticmethod
    def _count_terms(conn: Connection, changes: Counter[str]) -> None:
        if not changes:
            return
        ordered = sorted(changes)  # one lock order for concurrent writers
        conn.execute(
            text(
                "INSERT INTO zb_lexical_terms_df (term, documents) "
                "SELECT * FROM unnest(CAST(:terms AS TEXT[]), CAST(:counts AS BIGINT[])) "
                "ON CONFLICT (term) DO UPDATE SET "
                "documents = zb_lexical_terms_df.documents + EXCLUDED.documents"
            ),
            {"terms": ordered, "counts": [changes[t] for t in ordered]},
        )

    @staticmethod
    def _row(row: IndexedText) -> dict[str, Any]:
        scope, ctx = scope_tokens(row.namespace, row.layer, row.context)
        return {
            "pk": row.pk,
            "ctx": ctx,
            "terms": " ".join(scoped_terms(scope, row.terms)),
            "length": len(row.terms),
        }

    def remove(self, conn: Connection, pks: Sequence[int]) -> None:
        if not pks:
            return
        removed = conn.execute(
            text(
                "SELECT m.namespace, m.layer, count(*), coalesce(sum(l.length), 0) "
                "FROM zb_lexical l JOIN zb_memories m ON m.pk = l.memory_pk "
                "WHERE l.memory_pk = ANY(:pks) GROUP BY m.namespace, m.layer"
            ),
            {"pks": list(pks)},
        ).all()
        terms = conn.execute(
            text(
                "SELECT lexeme, count(*) FROM zb_lexical, unnest(terms) "
                "WHERE memory_pk = ANY(:pks) GROUP BY lexeme"
            ),
            {"pks": list(pks)},
        ).all()
        conn.execute(text("DELETE FROM zb_lexical WHERE memory_pk = ANY(:pks)"), {"pks": list(pks)})
        self._count(conn, {(ns, layer): (-int(n), -int(ln)) for ns, layer, n, ln in removed})
        self._count_terms(conn, Counter({str(t): -int(n) for t, n in terms}))

    @staticmethod
    def _where(context: str | None) -> str:
        return "terms @@ q" + (" AND ctx = :ctx" if context is not None else "")

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
        # ts_rank (term frequency, length-normalised), not ts_rank_cd: the candidates are
        # re-scored by BM25 anyway, and cover density costs twice as much per row while
        # agreeing less with that score (docs/postgres.md).
        rows = conn.execute(
            text(
                "SELECT memory_pk FROM zb_lexical, to_tsquery('simple', :query) q "
                f"WHERE {self._where(context)} "
                "ORDER BY ts_rank(terms, q, 1) DESC, memory_pk DESC LIMIT :limit"
            ),
            {"limit": limit, **_scoped_query(namespace, layer, context, terms)},
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
        parts = []
        params: dict[str, Any] = {"limit": limit}
        for position, layer in enumerate(layers):
            scoped = _scoped_query(namespace, layer, context, terms_by_layer[layer])
            params[f"q{position}"], params[f"ctx{position}"] = scoped["query"], scoped["ctx"]
            in_context = f" AND ctx = :ctx{position}" if context is not None else ""
            parts.append(
                f"(SELECT {position} AS layer, memory_pk, ts_rank(terms, q, 1) AS rank "
                f"FROM zb_lexical, to_tsquery('simple', :q{position}) q "
                f"WHERE terms @@ q{in_context} "
                "ORDER BY ts_rank(terms, q, 1) DESC, memory_pk DESC LIMIT :limit)"
            )
        rows = list(conn.execute(text(" UNION ALL ".join(parts)), params).all())
        # The order of :meth:`candidates` (rank, then key, both descending), per layer,
        # whatever order the server returns the subqueries' rows in.
        rows.sort(key=lambda r: (int(r[0]), -float(r[2]), -int(r[1])))
        for position, pk, _ in rows:
            found[layers[int(position)]].append(int(pk))
        return found

    def indexed_terms(
        self, conn: Connection, namespace: str, pks_by_layer: Mapping[str, Sequence[int]]
    ) -> dict[int, IndexedTerms] | None:
        """None: a ``tsvector`` keeps each term once, in no order."""
        return None

    def document_count(
        self, conn: Connection, namespace: str, layer: str, context: str | None
    ) -> int:
        if context is not None:
            return count_memories(conn, namespace, layer, context)
        found = conn.execute(
            text("SELECT count FROM zb_lexical_counts WHERE namespace = :ns AND layer = :layer"),
            {"ns": namespace, "layer": layer},
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
                    text(
                        "SELECT count(*) FROM zb_lexical, to_tsquery('simple', :query) q "
                        f"WHERE {self._where(context)}"
                    ),
                    _scoped_query(namespace, layer, context, [term]),
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
        # One round trip: the scopes' sizes and the terms' document counts together.
        rows = conn.execute(
            text(
                "SELECT layer, count, length, NULL FROM zb_lexical_counts "
                "WHERE namespace = :ns AND layer = ANY(:layers) "
                "UNION ALL SELECT term, documents, NULL, 1 FROM zb_lexical_terms_df "
                "WHERE term = ANY(:keys)"
            ),
            {"ns": namespace, "layers": list(layers), "keys": keys},
        ).all()
        sizes = {str(r[0]): (int(r[1]), int(r[2])) for r in rows if r[3] is None}
        found = {str(r[0]): int(r[1]) for r in rows if r[3] is not None}
        return scope_statistics(
            conn,
            namespace,
            scopes,
            sizes,
            found,
            wanted,
            context,
            lambda layer: self.document_frequencies(conn, namespace, layer, wanted, context),
        )


def _search_settings(conn: Connection, ef_search: int) -> None:
    """Iterative HNSW scans (pgvector >= 0.8: a filtered scan would otherwise stop early)
    and ``ef_search``, for this transaction, in one statement, and once per transaction:
    a recall searches several layers in one transaction."""
    transaction = conn.get_transaction()
    if transaction is not None and conn.info.get("zb_hnsw_settings") == (transaction, ef_search):
        return
    conn.exec_driver_sql(
        "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), "
        f"set_config('hnsw.ef_search', '{int(ef_search)}', true)"
    )
    conn.info["zb_hnsw_settings"] = (transaction, ef_search)


class PostgresVectorIndex:
    """A ``vector(dimension)`` column with one HNSW index (cosine) per searched layer (see
    :mod:`zenbrain.storage.pgvector_indexes`), filtered by namespace and context."""

    def __init__(self) -> None:
        self._ready = False

    def _exists(self, conn: Connection) -> bool:
        if not self._ready:
            self._ready = bool(
                conn.exec_driver_sql("SELECT to_regclass('zb_pgvectors') IS NOT NULL").scalar()
            )
        return self._ready

    def install(self, conn: Connection, dimension: int) -> None:
        conn.exec_driver_sql(
            "CREATE TABLE IF NOT EXISTS zb_pgvectors ("
            " memory_pk BIGINT PRIMARY KEY REFERENCES zb_memories(pk) ON DELETE CASCADE,"
            " namespace TEXT NOT NULL, layer TEXT NOT NULL, context TEXT,"
            f" embedding vector({int(dimension)}) NOT NULL)"
        )
        create_hnsw_indexes(conn)
        conn.exec_driver_sql(
            "CREATE INDEX IF NOT EXISTS zb_pgvectors_scope ON zb_pgvectors (namespace, layer)"
        )
        self._ready = True

    def add(self, conn: Connection, rows: Sequence[IndexedVector]) -> None:
        if not rows:
            return
        if len(rows) >= COPY_MIN_ROWS:
            self._copy(conn, rows)
            return
        conn.execute(
            text(
                "INSERT INTO zb_pgvectors (memory_pk, namespace, layer, context, embedding) "
                "VALUES (:pk, :namespace, :layer, :context, :embedding)"
            ),
            [
                {
                    "pk": r.pk,
                    "namespace": r.namespace,
                    "layer": r.layer,
                    "context": r.context,
                    "embedding": np.asarray(r.vector, dtype=np.float32),
                }
                for r in rows
            ],
        )

    @staticmethod
    def _copy(conn: Connection, rows: Sequence[IndexedVector]) -> None:
        """One binary ``COPY`` for a batch: no per-row statement, vectors sent as pgvector's
        binary format, in the caller's transaction."""
        raw = conn.connection.driver_connection
        with (
            raw.cursor() as cursor,  # type: ignore[union-attr]
            cursor.copy(
                "COPY zb_pgvectors (memory_pk, namespace, layer, context, embedding) "
                "FROM STDIN WITH (FORMAT BINARY)"
            ) as copy,
        ):
            copy.set_types(["int8", "text", "text", "text", "vector"])
            for r in rows:
                copy.write_row(
                    (r.pk, r.namespace, r.layer, r.context, np.asarray(r.vector, np.float32))
                )

    def remove(self, conn: Connection, pks: Sequence[int]) -> None:
        if pks and self._exists(conn):
            conn.execute(
                text("DELETE FROM zb_pgvectors WHERE memory_pk = ANY(:pks)"), {"pks": list(pks)}
            )

    def nearest(
        self,
        conn: Connection,
        namespace: str,
        layer: str,
        query: np.ndarray,
        context: str | None,
        limit: int,
    ) -> list[tuple[int, float]]:
        if not self._exists(conn):
            return []
        # pgvector accepts ef_search up to 1,000; an iterative scan goes on past it.
        _search_settings(conn, min(MAX_EF_SEARCH, max(40, int(limit))))
        # The layer as a literal, so that even a generic (prepared) plan uses its own index.
        literal = layer_literal(layer)
        where = f"namespace = :namespace AND layer = {literal or ':layer'}"
        if context is not None:
            where += " AND context = :context"
        rows = conn.execute(
            text(
                "SELECT memory_pk, 1 - (embedding <=> :q) AS similarity "
                f"FROM zb_pgvectors WHERE {where} "
                "ORDER BY embedding <=> :q LIMIT :limit"
            ),
            {
                "q": np.asarray(query, dtype=np.float32),
                "namespace": namespace,
                "layer": layer,
                "context": context,
                "limit": limit,
            },
        ).all()
        ranked = sorted(((int(pk), float(sim)) for pk, sim in rows), key=lambda r: -r[1])
        return ranked

    def missing(self, conn: Connection, namespace: str, limit: int) -> list[int]:
        if not self._exists(conn):
            query = "SELECT pk FROM zb_memories WHERE namespace = :ns ORDER BY pk LIMIT :limit"
        else:
            query = (
                "SELECT m.pk FROM zb_memories m LEFT JOIN zb_pgvectors v ON v.memory_pk = m.pk "
                "WHERE m.namespace = :ns AND v.memory_pk IS NULL ORDER BY m.pk LIMIT :limit"
            )
        return [int(r[0]) for r in conn.execute(text(query), {"ns": namespace, "limit": limit})]
