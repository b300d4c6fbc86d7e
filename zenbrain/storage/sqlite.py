"""SQLite specifics: connection pragmas, FTS5 for words, numpy over cached matrices for vectors."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import Connection, Engine, event, func, select, text

from zenbrain.storage.indexes import IndexedText, IndexedVector
from zenbrain.storage.schema import memories, vectors

__all__ = ["SqliteLexicalIndex", "SqliteVectorIndex", "configure_sqlite_engine", "scope_tokens"]

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


def _hash_token(prefix: str, *parts: str) -> str:
    digest = hashlib.blake2b("\x00".join(parts).encode("utf-8"), digest_size=6).hexdigest()
    return prefix + digest


def scope_tokens(namespace: str, layer: str, context: str | None) -> tuple[str, str | None]:
    """Opaque, fixed-length tokens for a namespace and layer (and a context in it)."""
    scope = _hash_token("s", namespace, layer)
    ctx = _hash_token("c", namespace, layer, context) if context is not None else None
    return scope, ctx


def scoped_terms(scope: str, terms: Sequence[str]) -> list[str]:
    """Index terms prefixed with their scope token. A search then reads only the postings
    of its own namespace and layer, and a term's document frequency is counted within the
    scope without intersecting a posting list as long as the scope itself."""
    return [scope + term for term in terms]


class SqliteLexicalIndex:
    """An FTS5 table of each memory's scoped terms (see :func:`scoped_terms`), plus its
    context token for searches limited to a context."""

    def install(self, conn: Connection) -> None:
        conn.exec_driver_sql(
            "CREATE VIRTUAL TABLE IF NOT EXISTS zb_fts USING fts5(ctx, terms, tokenize='ascii')"
        )

    def add(self, conn: Connection, rows: Sequence[IndexedText]) -> None:
        if not rows:
            return
        params = []
        for row in rows:
            scope, ctx = scope_tokens(row.namespace, row.layer, row.context)
            params.append((row.pk, ctx or "", " ".join(scoped_terms(scope, row.terms))))
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

    def document_frequencies(
        self,
        conn: Connection,
        namespace: str,
        layer: str,
        terms: Sequence[str],
        context: str | None,
    ) -> dict[str, int]:
        return {
            term: int(
                conn.execute(
                    text("SELECT count(*) FROM zb_fts WHERE zb_fts MATCH :m"),
                    {"m": self._match(namespace, layer, context, [term])},
                ).scalar_one()
            )
            for term in dict.fromkeys(terms)
        }


class _Matrix:
    __slots__ = ("contexts", "count", "matrix", "max_pk", "pks")

    def __init__(self, pks: np.ndarray, matrix: np.ndarray, contexts: np.ndarray) -> None:
        self.pks = pks
        self.matrix = matrix
        self.contexts = contexts
        self.count = len(pks)
        self.max_pk = int(pks.max()) if len(pks) else 0


class SqliteVectorIndex:
    """Float32 blobs in ``zb_vectors``, searched by a numpy dot product over a per-scope
    matrix cached in memory. The cache is checked against the table's row count and highest
    key before each search, so writes from other processes are picked up."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str], _Matrix] = {}
        self._lock = threading.Lock()

    def install(self, conn: Connection, dimension: int) -> None:
        """Nothing to create: ``zb_vectors`` is part of the shared schema."""

    def add(self, conn: Connection, rows: Sequence[IndexedVector]) -> None:
        if not rows:
            return
        conn.execute(
            vectors.insert(),
            [
                {
                    "memory_pk": r.pk,
                    "namespace": r.namespace,
                    "layer": r.layer,
                    "vector": np.asarray(r.vector, dtype=np.float32).tobytes(),
                }
                for r in rows
            ],
        )
        with self._lock:
            for key in {(r.namespace, r.layer) for r in rows}:
                self._cache.pop(key, None)

    def remove(self, conn: Connection, pks: Sequence[int]) -> None:
        if pks:
            conn.execute(vectors.delete().where(vectors.c.memory_pk.in_(list(pks))))
            with self._lock:
                self._cache.clear()

    def _load(self, conn: Connection, namespace: str, layer: str) -> _Matrix:
        key = (namespace, layer)
        count, max_pk = conn.execute(
            select(func.count(), func.coalesce(func.max(vectors.c.memory_pk), 0)).where(
                vectors.c.namespace == namespace, vectors.c.layer == layer
            )
        ).one()
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None and cached.count == count and cached.max_pk == max_pk:
                return cached
        rows = conn.execute(
            select(vectors.c.memory_pk, vectors.c.vector, memories.c.context)
            .join(memories, memories.c.pk == vectors.c.memory_pk)
            .where(vectors.c.namespace == namespace, vectors.c.layer == layer)
            .order_by(vectors.c.memory_pk)
        ).all()
        if rows:
            matrix = np.vstack([np.frombuffer(r[1], dtype=np.float32) for r in rows])
            pks = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            contexts = np.array([r[2] for r in rows], dtype=object)
        else:
            matrix = np.zeros((0, 0), dtype=np.float32)
            pks = np.zeros(0, dtype=np.int64)
            contexts = np.zeros(0, dtype=object)
        loaded = _Matrix(pks, matrix, contexts)
        with self._lock:
            self._cache[key] = loaded
        return loaded

    def nearest(
        self,
        conn: Connection,
        namespace: str,
        layer: str,
        query: np.ndarray,
        context: str | None,
        limit: int,
    ) -> list[tuple[int, float]]:
        loaded = self._load(conn, namespace, layer)
        if loaded.count == 0 or limit <= 0:
            return []
        sims = loaded.matrix @ np.asarray(query, dtype=np.float32)
        if context is not None:
            sims = np.where(loaded.contexts == context, sims, -np.inf)
        k = min(limit, loaded.count)
        top = np.argpartition(-sims, k - 1)[:k] if k < loaded.count else np.arange(loaded.count)
        top = top[np.argsort(-sims[top], kind="stable")]
        return [(int(loaded.pks[i]), float(sims[i])) for i in top if np.isfinite(sims[i])]

    def missing(self, conn: Connection, namespace: str, limit: int) -> list[int]:
        rows = conn.execute(
            select(memories.c.pk)
            .outerjoin(vectors, vectors.c.memory_pk == memories.c.pk)
            .where(memories.c.namespace == namespace, vectors.c.memory_pk.is_(None))
            .order_by(memories.c.pk)
            .limit(limit)
        )
        return [int(r[0]) for r in rows]
