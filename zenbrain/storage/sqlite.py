"""SQLite specifics: connection pragmas, FTS5 for words, numpy over cached matrices for vectors."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import Connection, Engine, bindparam, event, func, select, text

from zenbrain.storage.indexes import IndexedText, IndexedVector, ScopeStatistics
from zenbrain.storage.schema import memories, vector_versions, vectors

__all__ = [
    "SqliteLexicalIndex",
    "SqliteVectorIndex",
    "configure_sqlite_engine",
    "count_memories",
    "scope_tokens",
    "scoped_terms",
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


def count_memories(conn: Connection, namespace: str, layer: str, context: str | None) -> int:
    """Memories in a namespace and layer (and context), counted from the table."""
    conditions = [memories.c.namespace == namespace, memories.c.layer == layer]
    if context is not None:
        conditions.append(memories.c.context == context)
    return int(
        conn.execute(select(func.count()).select_from(memories).where(*conditions)).scalar_one()
    )


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
        for row in rows:
            scope, ctx = scope_tokens(row.namespace, row.layer, row.context)
            terms = " ".join([scope, *scoped_terms(scope, row.terms)])
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
        sizes = {
            str(scope): (int(docs), int(length))
            for scope, docs, length in conn.execute(
                text(
                    "SELECT scope, documents, length FROM zb_lexical_lengths WHERE scope IN :s"
                ).bindparams(bindparam("s", expanding=True)),
                {"s": list(scopes.values())},
            )
        }
        found: dict[str, int] = {}
        if wanted and context is None:
            keys = [scope + term for scope in scopes.values() for term in wanted]
            found = {
                str(key): int(doc)
                for key, doc in conn.execute(
                    select(text("term"), text("doc"))
                    .select_from(text("zb_fts_vocab"))
                    .where(text("term IN :terms").bindparams(bindparam("terms", expanding=True))),
                    {"terms": keys},
                )
            }
        result = {}
        for layer, scope in scopes.items():
            docs, length = sizes.get(scope, (0, 0))
            average = length / docs if docs > 0 else 0.0
            if context is None:
                frequencies = {term: found.get(scope + term, 0) for term in wanted}
            else:
                frequencies = self.document_frequencies(conn, namespace, layer, wanted, context)
                docs = count_memories(conn, namespace, layer, context)
            result[layer] = ScopeStatistics(docs, average, frequencies)
        return result


class _Matrix:
    """One scope's vectors: rows in key order, grown in place with spare capacity so that
    appending a few rows does not copy the whole matrix."""

    __slots__ = ("_contexts", "_matrix", "_pks", "size", "version")

    def __init__(self, version: int, dimension: int) -> None:
        self.version = version
        self.size = 0
        self._pks = np.zeros(0, dtype=np.int64)
        self._matrix = np.zeros((0, dimension), dtype=np.float32)
        self._contexts = np.zeros(0, dtype=object)

    @property
    def max_pk(self) -> int:
        return int(self._pks[self.size - 1]) if self.size else 0

    @property
    def pks(self) -> np.ndarray:
        return self._pks[: self.size]

    @property
    def matrix(self) -> np.ndarray:
        return self._matrix[: self.size]

    @property
    def contexts(self) -> np.ndarray:
        return self._contexts[: self.size]

    def append(self, pks: Sequence[int], rows: np.ndarray, contexts: Sequence[str | None]) -> None:
        needed = self.size + len(pks)
        if rows.shape[1] != self._matrix.shape[1] and self.size == 0:
            self._matrix = np.zeros((0, rows.shape[1]), dtype=np.float32)
        if needed > len(self._pks):
            capacity = max(needed, 2 * len(self._pks), 64)
            self._pks = np.resize(self._pks, capacity)
            grown = np.zeros((capacity, self._matrix.shape[1]), dtype=np.float32)
            grown[: self.size] = self._matrix[: self.size]
            self._matrix = grown
            self._contexts = np.resize(self._contexts, capacity)
        end = self.size + len(pks)
        self._pks[self.size : end] = pks
        self._matrix[self.size : end] = rows
        self._contexts[self.size : end] = list(contexts)
        self.size = end


class SqliteVectorIndex:
    """Float32 blobs in ``zb_vectors``, searched by a numpy dot product over a per-scope
    matrix cached in memory.

    Every write bumps the scope's row in ``zb_vector_versions``. A search compares that
    version with the cache's: equal means current; otherwise only the rows added since are
    read (or, after deletions, the scope is read again). Writes in this process append to
    the cache directly, so a recall after a store does not reload the matrix.
    """

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str], _Matrix] = {}
        self._lock = threading.Lock()

    def install(self, conn: Connection, dimension: int) -> None:
        """Nothing to create: ``zb_vectors`` is part of the shared schema."""

    def _bump(self, conn: Connection, namespace: str, layer: str, delta: int) -> tuple[int, int]:
        """Raise the scope's version; return ``(previous version, new version)``."""
        where = (vector_versions.c.namespace == namespace) & (vector_versions.c.layer == layer)
        previous = conn.execute(select(vector_versions.c.version).where(where)).scalar()
        if previous is None:
            conn.execute(
                vector_versions.insert().values(
                    namespace=namespace, layer=layer, version=1, count=max(delta, 0)
                )
            )
            return 0, 1
        conn.execute(
            vector_versions.update()
            .where(where)
            .values(version=previous + 1, count=vector_versions.c.count + delta)
        )
        return int(previous), int(previous) + 1

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
        by_scope: dict[tuple[str, str], list[IndexedVector]] = {}
        for r in rows:
            by_scope.setdefault((r.namespace, r.layer), []).append(r)
        for (namespace, layer), scoped in by_scope.items():
            previous, current = self._bump(conn, namespace, layer, len(scoped))
            with self._lock:
                cached = self._cache.get((namespace, layer))
                ordered = sorted(scoped, key=lambda r: r.pk)
                if (
                    cached is not None
                    and cached.version == previous
                    and ordered[0].pk > cached.max_pk
                ):
                    cached.append(
                        [r.pk for r in ordered],
                        np.vstack([np.asarray(r.vector, dtype=np.float32) for r in ordered]),
                        [r.context for r in ordered],
                    )
                    cached.version = current
                else:
                    self._cache.pop((namespace, layer), None)

    def remove(self, conn: Connection, pks: Sequence[int]) -> None:
        if not pks:
            return
        scopes = conn.execute(
            select(vectors.c.namespace, vectors.c.layer, func.count())
            .where(vectors.c.memory_pk.in_(list(pks)))
            .group_by(vectors.c.namespace, vectors.c.layer)
        ).all()
        conn.execute(vectors.delete().where(vectors.c.memory_pk.in_(list(pks))))
        for namespace, layer, removed in scopes:
            self._bump(conn, namespace, layer, -int(removed))
            with self._lock:
                self._cache.pop((namespace, layer), None)

    def _rows(self, conn: Connection, namespace: str, layer: str, after_pk: int) -> list[Any]:
        return list(
            conn.execute(
                select(vectors.c.memory_pk, vectors.c.vector, memories.c.context)
                .join(memories, memories.c.pk == vectors.c.memory_pk)
                .where(
                    vectors.c.namespace == namespace,
                    vectors.c.layer == layer,
                    vectors.c.memory_pk > after_pk,
                )
                .order_by(vectors.c.memory_pk)
            ).all()
        )

    def _load(self, conn: Connection, namespace: str, layer: str, dimension: int) -> _Matrix:
        key = (namespace, layer)
        state = conn.execute(
            select(vector_versions.c.version, vector_versions.c.count).where(
                vector_versions.c.namespace == namespace, vector_versions.c.layer == layer
            )
        ).one_or_none()
        version, count = (int(state[0]), int(state[1])) if state else (0, 0)
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None and cached.version == version:
                return cached
        # Another process wrote: read what was added since, or everything after deletions.
        after = cached.max_pk if cached is not None else 0
        rows = self._rows(conn, namespace, layer, after)
        if cached is None or cached.size + len(rows) != count:
            cached = _Matrix(version, dimension)
            rows = rows if after == 0 else self._rows(conn, namespace, layer, 0)
        if rows:
            cached.append(
                [int(r[0]) for r in rows],
                np.vstack([np.frombuffer(r[1], dtype=np.float32) for r in rows]),
                [r[2] for r in rows],
            )
        cached.version = version
        with self._lock:
            self._cache[key] = cached
        return cached

    def nearest(
        self,
        conn: Connection,
        namespace: str,
        layer: str,
        query: np.ndarray,
        context: str | None,
        limit: int,
    ) -> list[tuple[int, float]]:
        query = np.asarray(query, dtype=np.float32)
        loaded = self._load(conn, namespace, layer, len(query))
        if loaded.size == 0 or limit <= 0:
            return []
        sims = loaded.matrix @ query
        if context is not None:
            sims = np.where(loaded.contexts == context, sims, -np.inf)
        k = min(limit, loaded.size)
        top = np.argpartition(-sims, k - 1)[:k] if k < loaded.size else np.arange(loaded.size)
        top = top[np.argsort(-sims[top], kind="stable")]
        pks = loaded.pks
        return [(int(pks[i]), float(sims[i])) for i in top if np.isfinite(sims[i])]

    def missing(self, conn: Connection, namespace: str, limit: int) -> list[int]:
        rows = conn.execute(
            select(memories.c.pk)
            .outerjoin(vectors, vectors.c.memory_pk == memories.c.pk)
            .where(memories.c.namespace == namespace, vectors.c.memory_pk.is_(None))
            .order_by(memories.c.pk)
            .limit(limit)
        )
        return [int(r[0]) for r in rows]
