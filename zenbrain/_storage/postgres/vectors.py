"""PostgreSQL's vector index: pgvector's ``vector`` column with one HNSW index per searched
layer, written in bulk with binary ``COPY``."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from sqlalchemy import Connection, text

from zenbrain._storage.indexes import IndexedVector
from zenbrain._storage.postgres.hnsw import create_hnsw_indexes, layer_literal

__all__ = ["COPY_MIN_ROWS", "MAX_EF_SEARCH", "PostgresVectorIndex"]

COPY_MIN_ROWS = 64
"""From this many rows a batch of vectors goes in with one binary ``COPY``."""
MAX_EF_SEARCH = 1000


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
    :mod:`zenbrain._storage.postgres.hnsw`), filtered by namespace and context."""

    def __init__(self) -> None:
        self._ready = False

    def evict(self, namespace: str) -> None:
        """Nothing to drop: vectors are searched on the server, never held here."""

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
        # A zero vector (text with nothing to embed) has no direction: pgvector's cosine
        # distance to it is NaN, and it is similar to nothing, as SQLite's dot product says.
        found = [(int(pk), 0.0 if math.isnan(sim) else float(sim)) for pk, sim in rows]
        return sorted(found, key=lambda r: -r[1])

    def missing(self, conn: Connection, namespace: str, limit: int) -> list[int]:
        if not self._exists(conn):
            query = "SELECT pk FROM zb_memories WHERE namespace = :ns ORDER BY pk LIMIT :limit"
        else:
            query = (
                "SELECT m.pk FROM zb_memories m LEFT JOIN zb_pgvectors v ON v.memory_pk = m.pk "
                "WHERE m.namespace = :ns AND v.memory_pk IS NULL ORDER BY m.pk LIMIT :limit"
            )
        return [int(r[0]) for r in conn.execute(text(query), {"ns": namespace, "limit": limit})]
